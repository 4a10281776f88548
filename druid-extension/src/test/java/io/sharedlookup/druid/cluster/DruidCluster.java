package io.sharedlookup.druid.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Ports;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A real Druid cluster of separate JVMs on 127.0.0.1, from the runtime class path of {@code druid-services} (see
 * {@code target/druid-cluster.classpath}): ZooKeeper ({@code ZooKeeperServerMain}), a coordinator that is also the
 * overlord (Derby metadata store, local deep storage), a broker and a historical ({@code org.apache.druid.cli.Main
 * server ...}). Each service gets a conf directory at the front of its class path with
 * {@code common.runtime.properties}, {@code runtime.properties} and {@code log4j2.xml}, as Druid's start scripts do.
 *
 * <p>The JVM flags are Druid's own: the 8 strong-encapsulation flags its start scripts add on Java 11+
 * ({@link #DRUID_STRONG_ENCAPSULATION_FLAGS}), heap and direct memory sizes, and Druid's usual system properties; plus
 * {@code extraJvmFlags}, which the extension should not need (see {@link DruidClusterIT#EXTRA_JVM_FLAGS_PROPERTY}).
 */
final class DruidCluster implements AutoCloseable {
    /** {@code ForkingTaskRunner.STRONG_ENCAPSULATION_PROPERTIES} of Druid 33, as in its bin/run-java. */
    static final List<String> DRUID_STRONG_ENCAPSULATION_FLAGS = List.of(
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED");

    /** The extension's folder name under the extensions directory: what druid.extensions.loadList names. */
    static final String EXTENSION = "druid-shared-lookup";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(150);

    private final Path workDir;
    private final Path logDir;
    private final String classPath;
    private final Path extensionsDir;
    private final List<String> extraJvmFlags;
    private final List<ChildJvm> services = new ArrayList<>();

    final int zooKeeperPort = Ports.freePort();
    final int derbyPort = Ports.freePort();
    final int coordinatorPort = Ports.freePort();
    final int brokerPort = Ports.freePort();
    final int historicalPort = Ports.freePort();

    private ChildJvm zooKeeper;
    private ChildJvm coordinator;
    private ChildJvm broker;
    private ChildJvm historical;

    /**
     * @param classPath     Druid's runtime class path (druid-services and its dependencies)
     * @param extensionsDir the directory holding the packaged {@value #EXTENSION} folder
     */
    DruidCluster(Path workDir, Path logDir, String classPath, Path extensionsDir, List<String> extraJvmFlags) {
        this.workDir = workDir;
        this.logDir = logDir;
        this.classPath = classPath;
        this.extensionsDir = extensionsDir;
        this.extraJvmFlags = List.copyOf(extraJvmFlags);
    }

    /** Starts ZooKeeper, then the three Druid services at once (they wait for ZooKeeper themselves). */
    void start() throws IOException {
        Path zkDir = workDir.resolve("zookeeper");
        Path zkConf = conf(zkDir, Map.of());
        Files.writeString(
                zkConf.resolve("zoo.cfg"),
                String.join(
                        "\n",
                        "tickTime=2000",
                        "dataDir=" + zkDir.resolve("data"),
                        "clientPort=" + zooKeeperPort,
                        "clientPortAddress=127.0.0.1",
                        "maxClientCnxns=0",
                        "admin.enableServer=false",
                        "4lw.commands.whitelist=ruok",
                        ""));
        zooKeeper = launch(
                "zookeeper",
                zkDir,
                zkConf,
                List.of("-Xms32m", "-Xmx64m"),
                "org.apache.zookeeper.server.ZooKeeperServerMain",
                zkConf.resolve("zoo.cfg").toString());

        Map<String, String> coordinatorProps = new TreeMap<>(Map.of(
                "druid.service", "druid/coordinator",
                "druid.plaintextPort", Integer.toString(coordinatorPort),
                // Not needed on the coordinator: it keeps lookup specs as JSON and never instantiates them.
                "druid.extensions.loadList", "[]",
                "druid.coordinator.asOverlord.enabled", "true",
                "druid.coordinator.asOverlord.overlordService", "druid/overlord",
                "druid.indexer.storage.type", "metadata",
                // Lookup specs reach the nodes every second (default: 2 minutes).
                "druid.manager.lookups.period", "1000",
                "druid.manager.lookups.initialDelay", "500"));
        coordinator = launchDruid("coordinator", coordinatorProps, "256m", "32m");

        broker = launchDruid(
                "broker",
                queryNode(
                        "druid/broker",
                        brokerPort,
                        Map.of(
                                "druid.broker.http.numConnections", "5",
                                "druid.broker.cache.useCache", "false",
                                "druid.broker.cache.populateCache", "false",
                                "druid.sql.enable", "true")),
                "256m",
                "64m");

        Path segmentCache = workDir.resolve("historical").resolve("segment-cache");
        historical = launchDruid(
                "historical",
                queryNode(
                        "druid/historical",
                        historicalPort,
                        Map.of(
                                "druid.segmentCache.locations",
                                "[{\"path\":\"" + segmentCache + "\",\"maxSize\":104857600}]",
                                "druid.server.maxSize",
                                "104857600")),
                "256m",
                "64m");
    }

    /** Waits until every service answers as up; fails with the last lines of the first one that does not. */
    void awaitUp() {
        zooKeeper.awaitUp("answers ruok", START_TIMEOUT, this::zooKeeperOk);
        coordinator.awaitUp(
                "healthy and leader",
                START_TIMEOUT,
                () -> HttpJson.get(coordinatorPort, "/status/health").ok()
                        && HttpJson.get(coordinatorPort, "/druid/coordinator/v1/isLeader")
                                .ok());
        broker.awaitUp(
                "ready",
                START_TIMEOUT,
                () -> HttpJson.get(brokerPort, "/druid/broker/v1/readiness").ok());
        historical.awaitUp(
                "ready",
                START_TIMEOUT,
                () -> HttpJson.get(historicalPort, "/druid/historical/v1/readiness")
                        .ok());
    }

    ChildJvm coordinator() {
        return coordinator;
    }

    ChildJvm broker() {
        return broker;
    }

    ChildJvm historical() {
        return historical;
    }

    /** The broker's answer to one SQL statement, as rows of values ({@code resultFormat: array}). */
    HttpJson.Answer sql(String query) {
        return HttpJson.post(brokerPort, "/druid/v2/sql", Map.of("query", query, "resultFormat", "array"));
    }

    /**
     * Both sides of the coordinator's lookup sync, when lookups are slow to load: what the coordinator believes each
     * node holds ({@code nodeStatus}), what each node says it holds and has pending ({@code /druid/listen/v1/lookups}),
     * and the coordinator's log lines about lookups. Tells a coordinator that did not send from a node that did not
     * load.
     */
    String lookupSyncState() {
        StringBuilder out = new StringBuilder("\ncoordinator nodeStatus: ")
                .append(HttpJson.get(coordinatorPort, "/druid/coordinator/v1/lookups/nodeStatus?detailed=true"));
        out.append("\nbroker's own lookups: ").append(HttpJson.get(brokerPort, "/druid/listen/v1/lookups"));
        out.append("\nhistorical's own lookups: ").append(HttpJson.get(historicalPort, "/druid/listen/v1/lookups"));
        out.append("\n").append(coordinator.excerpt(l -> l.contains("ookup"), 25));
        return out.toString();
    }

    /**
     * The stack of each query node's lookup notice thread (Druid starts lookups on it, one at a time), from
     * {@code jcmd Thread.print}: where a node waits when lookups are slow to load.
     */
    String lookupThreadStacks() {
        StringBuilder out = new StringBuilder();
        for (ChildJvm node : List.of(broker, historical)) {
            out.append("\n").append(node.name()).append(": ");
            try {
                Process jcmd = new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "jcmd")
                                        .toString(),
                                Long.toString(node.pid()),
                                "Thread.print")
                        .redirectErrorStream(true)
                        .start();
                List<String> lines = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        .lines()
                        .toList();
                int at = -1;
                for (int i = 0; i < lines.size() && at < 0; i++) {
                    at = lines.get(i).contains("LookupExtractorFactoryContainerProvider-MainThread") ? i : -1;
                }
                out.append(
                        at < 0
                                ? "no lookup notice thread found"
                                : String.join("\n", lines.subList(at, Math.min(lines.size(), at + 40))));
            } catch (IOException e) {
                out.append("jcmd failed: ").append(e.getMessage());
            }
        }
        return out.toString();
    }

    /** What the broker and the historical logged about the extension (warnings, errors), for failure messages. */
    String extensionLogExcerpts() {
        Predicate<String> aboutTheExtension =
                l -> l.contains("io.sharedlookup") || l.contains("sharedLookup") || l.contains(EXTENSION);
        return "\n" + broker.excerpt(aboutTheExtension, 15) + "\n" + historical.excerpt(aboutTheExtension, 15);
    }

    private Map<String, String> queryNode(String service, int port, Map<String, String> own) {
        Map<String, String> p = new TreeMap<>(own);
        p.put("druid.service", service);
        p.put("druid.plaintextPort", Integer.toString(port));
        p.put("druid.extensions.loadList", "[\"" + EXTENSION + "\"]");
        p.put("druid.processing.numThreads", "1");
        p.put("druid.processing.numMergeBuffers", "1");
        p.put("druid.processing.buffer.sizeBytes", Integer.toString(10 << 20));
        // Lookups arrive from the coordinator's pushes; no start-up fetch to wait for.
        p.put("druid.lookup.enableLookupSyncOnStartup", "false");
        return p;
    }

    private ChildJvm launchDruid(String name, Map<String, String> props, String heap, String directMemory)
            throws IOException {
        Path dir = workDir.resolve(name);
        Path conf = conf(dir, props);
        List<String> jvm = new ArrayList<>(List.of(
                "-Xms" + heap,
                "-Xmx" + heap,
                "-XX:MaxDirectMemorySize=" + directMemory,
                "-XX:+ExitOnOutOfMemoryError"));
        jvm.addAll(DRUID_STRONG_ENCAPSULATION_FLAGS);
        jvm.addAll(extraJvmFlags);
        jvm.addAll(List.of(
                "-Duser.timezone=UTC",
                "-Dfile.encoding=UTF-8",
                "-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("tmp")),
                "-Djava.util.logging.manager=org.apache.logging.log4j.jul.LogManager"));
        return launch(name, dir, conf, jvm, "org.apache.druid.cli.Main", "server", name);
    }

    /** {@code <dir>/conf}: common.runtime.properties (the cluster's), runtime.properties (the service's), log4j2.xml. */
    private Path conf(Path dir, Map<String, String> serviceProps) throws IOException {
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("common.runtime.properties"), properties(commonProperties()));
        Files.writeString(conf.resolve("runtime.properties"), properties(serviceProps));
        try (InputStream log4j = DruidCluster.class.getResourceAsStream("/cluster/log4j2.xml")) {
            assertThat(log4j).as("cluster/log4j2.xml among the test resources").isNotNull();
            Files.copy(log4j, conf.resolve("log4j2.xml"), StandardCopyOption.REPLACE_EXISTING);
        }
        return conf;
    }

    private Map<String, String> commonProperties() {
        Map<String, String> p = new TreeMap<>();
        p.put("druid.host", "127.0.0.1");
        p.put("druid.bindOnHost", "true");
        p.put("druid.zk.service.host", "127.0.0.1:" + zooKeeperPort);
        p.put("druid.zk.paths.base", "/druid");
        p.put("druid.extensions.directory", extensionsDir.toString());
        p.put(
                "druid.extensions.hadoopDependenciesDir",
                workDir.resolve("hadoop-dependencies").toString());
        p.put("druid.metadata.storage.type", "derby");
        // Started by the coordinator; relative to its working directory.
        p.put(
                "druid.metadata.storage.connector.connectURI",
                "jdbc:derby://127.0.0.1:" + derbyPort + "/metadata.db;create=true");
        p.put("druid.metadata.storage.connector.host", "127.0.0.1");
        p.put("druid.metadata.storage.connector.port", Integer.toString(derbyPort));
        p.put("druid.storage.type", "local");
        p.put("druid.storage.storageDirectory", workDir.resolve("deep-storage").toString());
        p.put("druid.indexer.logs.type", "file");
        p.put("druid.indexer.logs.directory", workDir.resolve("indexing-logs").toString());
        p.put("druid.selectors.indexing.serviceName", "druid/overlord");
        p.put("druid.selectors.coordinator.serviceName", "druid/coordinator");
        p.put("druid.emitter", "noop");
        return p;
    }

    private static String properties(Map<String, String> props) {
        StringBuilder b = new StringBuilder();
        props.forEach((k, v) ->
                b.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        return b.toString();
    }

    private ChildJvm launch(String name, Path dir, Path conf, List<String> jvmOptions, String main, String... args)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildJvm.java());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(conf + File.pathSeparator + classPath);
        cmd.add(main);
        cmd.addAll(List.of(args));
        ChildJvm p = ChildJvm.start(name, cmd, dir, logDir);
        services.add(p);
        return p;
    }

    private boolean zooKeeperOk() {
        try (Socket socket = new Socket("127.0.0.1", zooKeeperPort)) {
            socket.setSoTimeout(2_000);
            socket.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).equals("imok");
        } catch (IOException e) {
            return false;
        }
    }

    /** Stops the Druid services together (SIGTERM, SIGKILL after a grace period), then ZooKeeper. */
    @Override
    public void close() {
        List<ChildJvm> druid = services.stream().filter(s -> s != zooKeeper).toList();
        druid.forEach(ChildJvm::terminate);
        druid.forEach(s -> s.stop(Duration.ofSeconds(20)));
        if (zooKeeper != null) {
            zooKeeper.stop(Duration.ofSeconds(10));
        }
    }

    /** SIGKILL to everything still running: the test JVM's shutdown hook. */
    void kill() {
        services.forEach(ChildJvm::kill);
    }
}
