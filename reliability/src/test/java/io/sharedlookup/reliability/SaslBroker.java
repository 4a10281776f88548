package io.sharedlookup.reliability;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Writer;
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

/**
 * A real single-node KRaft broker whose client listener requires SASL/PLAIN (SASL_PLAINTEXT), in the test JVM. Users:
 * {@code admin/admin-secret} (inter-broker) and {@code writer/writer-secret}.
 */
final class SaslBroker implements AutoCloseable {
    static final String WRITER_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"writer\" password=\"writer-secret\";";
    private final Path dataDir;
    private final int port;
    private final KafkaRaftServer server;

    SaslBroker() throws Exception {
        dataDir = Files.createTempDirectory("reliability-sasl-kafka-");
        port = WriterProcess.freePort();
        int controller = WriterProcess.freePort();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("listeners", "SASL_PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller);
        p.put("advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port);
        p.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        p.put("sasl.enabled.mechanisms", "PLAIN");
        p.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        p.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
                        + "password=\"admin-secret\" user_admin=\"admin-secret\" user_writer=\"writer-secret\";");
        p.put("controller.quorum.bootstrap.servers", "127.0.0.1:" + controller);
        p.put("log.dirs", dataDir.resolve("logs").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        Path config = dataDir.resolve("server.properties");
        try (Writer w = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            p.store(w, "SASL test broker");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = StorageTool.execute(new String[] {"format", "--config", config.toString(), "--cluster-id",
                Uuid.randomUuid().toString(), "--standalone"}, new PrintStream(out, true, StandardCharsets.UTF_8));
        if (rc != 0) {
            throw new IllegalStateException("formatting failed: " + out);
        }
        server = new KafkaRaftServer(KafkaConfig.fromProps(p), Time.SYSTEM);
        server.startup();
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Client settings for user {@code writer}. */
    Map<String, String> clientSettings() {
        return Map.of("bootstrap.servers", bootstrap(), "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "PLAIN", "sasl.jaas.config", WRITER_JAAS);
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        Broker.deleteRecursively(dataDir);
    }
}
