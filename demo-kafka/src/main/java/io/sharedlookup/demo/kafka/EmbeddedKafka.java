package io.sharedlookup.demo.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft broker (combined broker and controller) in this JVM, from the kafka_2.13 jars: for the demo
 * jar, the tests and the benchmarks. Not for production: one node, replication factor 1, data in {@code dataDir}. The
 * writer's own jar never carries it.
 *
 * <p>Can be stopped and started again on the same ports and data (tests use that to simulate an outage).
 */
public final class EmbeddedKafka implements AutoCloseable {
    /**
     * The name of the listener clients connect to. It is PLAINTEXT unless the server properties passed to
     * {@link #start(Path, Map)} map it to another protocol, e.g. {@code listener.security.protocol.map} =
     * {@code CLIENT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT}; its own settings are {@code listener.name.client.*}.
     */
    public static final String CLIENT_LISTENER = "CLIENT";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedKafka.class);
    private final Path dataDir;
    private final int port;
    private final int controllerPort;
    private final Map<String, String> overrides;
    private KafkaRaftServer server;

    private EmbeddedKafka(Path dataDir, int port, int controllerPort, Map<String, String> overrides) {
        this.dataDir = dataDir;
        this.port = port;
        this.controllerPort = controllerPort;
        this.overrides = Map.copyOf(overrides);
    }

    /** Formats {@code dataDir} (unless already formatted) and starts a broker on free loopback ports. */
    public static EmbeddedKafka start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /** As {@link #start(Path)}, with server properties that replace or add to the defaults (security, tests). */
    public static EmbeddedKafka start(Path dataDir, Map<String, String> serverProperties) {
        EmbeddedKafka kafka = new EmbeddedKafka(dataDir, freePort(), freePort(), serverProperties);
        kafka.start();
        return kafka;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Starts (or restarts after {@link #stop}) the broker. */
    public synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            Files.createDirectories(dataDir);
            Path configFile = dataDir.resolve("server.properties");
            Properties props = serverProperties();
            try (Writer w = Files.newBufferedWriter(configFile, StandardCharsets.UTF_8)) {
                props.store(w, "embedded KRaft node of shared-lookup");
            }
            if (!Files.exists(dataDir.resolve("logs").resolve("meta.properties"))) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                int rc = StorageTool.execute(
                        new String[] {
                            "format",
                            "--config",
                            configFile.toString(),
                            "--cluster-id",
                            Uuid.randomUuid().toString(),
                            "--standalone"
                        },
                        new PrintStream(out, true, StandardCharsets.UTF_8));
                if (rc != 0) {
                    throw new IllegalStateException("Formatting Kafka storage in " + dataDir + " failed: " + out);
                }
            }
            KafkaRaftServer s = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
            s.startup();
            server = s;
            log.info("Embedded Kafka broker running at {} (data in {})", bootstrapServers(), dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start embedded Kafka in " + dataDir, e);
        }
    }

    private Properties serverProperties() {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("listeners", CLIENT_LISTENER + "://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", CLIENT_LISTENER + "://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", CLIENT_LISTENER + ":PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", CLIENT_LISTENER);
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controllerPort);
        p.put("log.dirs", dataDir.resolve("logs").toString());
        p.put("num.partitions", "3");
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        // Small footprint: this shares a JVM with the writer.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("log.segment.bytes", Integer.toString(16 << 20));
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 << 20));
        p.put("log.cleaner.threads", "1");
        p.putAll(overrides);
        return p;
    }

    /** Stops the broker, keeping its data and ports for {@link #start}. */
    public synchronized void stop() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
            log.info("Embedded Kafka broker at {} stopped", bootstrapServers());
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on the loopback interface", e);
        }
    }
}
