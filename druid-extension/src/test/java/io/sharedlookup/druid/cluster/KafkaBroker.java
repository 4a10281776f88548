package io.sharedlookup.druid.cluster;

import io.sharedlookup.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/**
 * A real single-node KRaft broker with compacted topics and a producer, in a child JVM on the demo jar's class
 * path (the writer's own jar carries no broker): {@code src/test/resources/cluster/KafkaFixture.java} run in
 * source-file mode, which uses the demo's {@code EmbeddedKafka}. The test drives the producer over the child's stdin.
 */
final class KafkaBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private final ChildJvm process;
    private String bootstrap;
    private int requests;

    private KafkaBroker(ChildJvm process) {
        this.process = process;
    }

    /** Starts the broker's JVM; {@link #awaitReady} waits for the broker and the topics. */
    static KafkaBroker start(
            Path demoJar, Path fixtureSource, Path dataDir, Path logDir, List<String> topics, int partitions)
            throws IOException {
        List<String> cmd = List.of(
                ChildJvm.java(),
                "-Xms64m",
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                demoJar.toString(),
                fixtureSource.toString(),
                dataDir.resolve("data").toString(),
                String.join(",", topics),
                Integer.toString(partitions));
        return new KafkaBroker(ChildJvm.start("kafka", cmd, dataDir, logDir));
    }

    void awaitReady() {
        process.awaitUp(
                "broker up, topic created",
                START_TIMEOUT,
                () -> !process.lines(l -> l.startsWith("FIXTURE READY ")).isEmpty());
        bootstrap = process.lines(l -> l.startsWith("FIXTURE READY ")).get(0).substring("FIXTURE READY ".length());
    }

    String bootstrap() {
        return bootstrap;
    }

    /** Produces one record to the first topic and returns once the broker acknowledged it; null is a tombstone. */
    void send(String key, String value) {
        send(null, key, value);
    }

    /** Produces one record to {@code topic} (null: the first) and returns once the broker acknowledged it. */
    synchronized void send(String topic, String key, String value) {
        int id = ++requests;
        Base64.Encoder b64 = Base64.getEncoder();
        process.send("SEND " + id + " " + b64.encodeToString(key.getBytes(StandardCharsets.UTF_8)) + " "
                + (value == null ? "-" : b64.encodeToString(value.getBytes(StandardCharsets.UTF_8)))
                + (topic == null ? "" : " " + topic));
        String ack = "FIXTURE ACK " + id + " ";
        String failed = "FIXTURE FAILED " + id + " ";
        process.awaitUp(
                "acknowledges record " + id,
                SEND_TIMEOUT,
                Duration.ofMillis(2),
                () -> !process.lines(l -> l.startsWith(ack) || l.startsWith(failed))
                        .isEmpty());
        List<String> failures = process.lines(l -> l.startsWith(failed));
        if (!failures.isEmpty()) {
            throw new AssertionError("producing " + key + " failed: " + failures.get(0) + "\n" + process.tail(40));
        }
    }

    /**
     * Ends the fixture's input and stops its JVM (SIGTERM, then SIGKILL). End of input alone also stops it, which
     * covers a test JVM that dies without closing it.
     */
    @Override
    public void close() {
        process.closeInput();
        process.stop(Duration.ofSeconds(15));
    }

    void kill() {
        process.kill();
    }
}
