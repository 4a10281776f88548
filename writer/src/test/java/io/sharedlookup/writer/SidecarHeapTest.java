package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The documented sidecar heap (docs/writer.md, "JVM settings for a sidecar": {@code -Xmx64m}) holds the first start of
 * sixteen namespaces of 4 KB values: the writer's real main class in a JVM of its own with those settings, against a
 * real broker. Each rebuild used to hold up to 1,000 records (4 MB) of sizing sample on the heap at once, and sixteen
 * of them ran out of memory: none was ever published, and every restart did it again.
 */
class SidecarHeapTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    private static final int NAMESPACES = 16;
    private static final int RECORDS = 1_000;
    private static final int VALUE_BYTES = 4_096;
    /** The settings docs/writer.md gives for a sidecar (its JAVA_TOOL_OPTIONS). */
    private static final List<String> SIDECAR = List.of(
            "-Xms32m",
            "-Xmx64m",
            "-XX:MaxMetaspaceSize=96m",
            "-XX:ReservedCodeCacheSize=48m",
            "-XX:+UseSerialGC",
            "-XX:CICompilerCount=2",
            "-Xss512k",
            "-XX:MaxDirectMemorySize=32m",
            "-Dchronicle.analytics.disable=true");

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static String value(int topic, int i) {
        char[] filler = new char[VALUE_BYTES];
        Arrays.fill(filler, (char) ('a' + (i + topic) % 26));
        String head = topic + "/" + i + ":";
        return head + new String(filler, 0, VALUE_BYTES - head.length());
    }

    /** The writer's main class under the sidecar's heap settings (and Chronicle's flags), nothing else of ours. */
    private static ChildJvm launch(String... writerArgs) throws java.io.IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ChildJvm.java());
        cmd.addAll(ChildJvm.chronicleFlags());
        cmd.addAll(SIDECAR);
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), WriterMain.class.getName()));
        cmd.addAll(List.of(writerArgs));
        return ChildJvm.start("sidecar-heap", cmd, null, LOGS);
    }

    @Test
    void sixteenNamespacesOf4KbValuesStartUnderTheSidecarHeap() throws Exception {
        List<String> extra = new ArrayList<>();
        for (int t = 0; t < NAMESPACES; t++) {
            kafka.createTopic("heap" + t, 1);
            for (int i = 0; i < RECORDS; i++) {
                kafka.send("heap" + t, "k" + i, value(t, i));
            }
            if (t > 0) {
                extra.addAll(List.of("--topic", "heap" + t));
            }
        }
        kafka.flush();
        try (WriterProcess writer = WriterProcess.start(
                SidecarHeapTest::launch,
                kafka.bootstrap(),
                TestKafka.tempStore(),
                "heap0",
                extra.toArray(String[]::new))) {
            await("all " + NAMESPACES + " namespaces ready")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> writer.ready()
                            || !writer.jvm.isAlive()
                            || !writer.jvm
                                    .lines(l -> l.contains("OutOfMemoryError"))
                                    .isEmpty());
            assertThat(writer.jvm.lines(l -> l.contains("OutOfMemoryError")))
                    .as("out of memory")
                    .isEmpty();
            assertThat(writer.jvm.isAlive())
                    .as("writer alive; output: %s", writer.jvm.tail(40))
                    .isTrue();
            for (int t = 0; t < NAMESPACES; t++) {
                assertThat(writer.lookup("heap" + t, "k" + (RECORDS - 1))).isEqualTo(value(t, RECORDS - 1));
                assertThat(writer.lookup("heap" + t, "k0")).isEqualTo(value(t, 0));
            }
        }
    }
}
