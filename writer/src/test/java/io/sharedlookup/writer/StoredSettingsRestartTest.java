package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.ingest.Ingestor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue #40 item 1, with a real broker and writers in JVMs of their own: a restart whose settings would change what a
 * namespace stores is refused (exit 2, one line) and changes nothing on disk or for readers; {@code --rebuild}
 * rebuilds it into a new generation that readers see only once it is published.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StoredSettingsRestartTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    private static final String TOPIC = "people";
    private static final int KEYS = 300;

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static Path store;

    private static WriterProcess writer(String name, String... extra) throws IOException {
        return WriterProcess.start(
                args -> ChildJvm.start(name, LOGS, WriterMain.class, args), kafka.bootstrap(), store, TOPIC, extra);
    }

    private static String document(int i) {
        return "{\"id\":" + i + ",\"name\":{\"display\":\"Name " + i + "\",\"short\":\"N" + i + "\"},\"team\":\"team-"
                + i % 7 + "\"}";
    }

    private static Map<String, String> expected(java.util.function.IntFunction<String> value) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < KEYS; i++) {
            m.put(Integer.toString(i), value.apply(i));
        }
        return m;
    }

    /** A store built with {@code --value-field name.display}, stopped cleanly. */
    @BeforeAll
    static void builtWithAValueField() throws Exception {
        kafka.createTopic(TOPIC, 2);
        for (int i = 0; i < KEYS; i++) {
            kafka.send(TOPIC, Integer.toString(i), document(i));
        }
        kafka.flush();
        store = TestKafka.tempStore();
        WriterProcess first = writer("settings-first", "--value-field", "name.display");
        try (ChildJvm jvm = first.jvm) {
            first.awaitReady(Duration.ofSeconds(60));
            jvm.terminate(Duration.ofSeconds(10));
        }
        assertThat(Manifest.read(new StoreLayout(store).manifest(TOPIC)).writerState())
                .isEqualTo(Manifest.WriterState.CLOSED);
        assertThat(TestStores.contents(store, TOPIC)).isEqualTo(expected(i -> "Name " + i));
    }

    /** Every file of the namespace, by name: its bytes' SHA-256 and its modification time. */
    private static Map<String, String> namespaceFiles() throws Exception {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(new StoreLayout(store).namespaceDir(TOPIC))) {
            for (Path f : list.toList()) {
                MessageDigest sha = MessageDigest.getInstance("SHA-256");
                try (InputStream in = Files.newInputStream(f)) {
                    byte[] buffer = new byte[1 << 16];
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        sha.update(buffer, 0, n);
                    }
                }
                files.put(
                        f.getFileName().toString(),
                        HexFormat.of().formatHex(sha.digest()) + " "
                                + Files.getLastModifiedTime(f).toMillis());
            }
        }
        return files;
    }

    private static String remedy(String putBack) {
        return " starting would change what readers see. Start again " + putBack + " (nothing was changed), or pass "
                + "--rebuild people to rebuild it from its topic with the new settings (readers keep the old values "
                + "until the new generation is published)";
    }

    private static void assertRefused(String name, String line, String... extra) throws Exception {
        Map<String, String> filesBefore = namespaceFiles();
        Map<String, String> valuesBefore = TestStores.contents(store, TOPIC);
        WriterProcess w = writer(name, extra);
        try (ChildJvm jvm = w.jvm) {
            assertThat(jvm.awaitExit()).as("exit code; output: %s", jvm.lines()).isEqualTo(2);
            assertThat(jvm.lines(l -> l.startsWith("error:"))).containsExactly(line);
            assertThat(jvm.lines(l -> l.contains("Exception"))).isEmpty();
        }
        assertThat(namespaceFiles())
                .as("the namespace's files, manifest included")
                .isEqualTo(filesBefore);
        assertThat(TestStores.contents(store, TOPIC)).isEqualTo(valuesBefore).isEqualTo(expected(i -> "Name " + i));
    }

    @Test
    @Order(1)
    void restartWithoutTheValueFieldIsRefused() throws Exception {
        assertRefused(
                "settings-no-field",
                "error: Refusing to start: namespace 'people' was built with "
                        + "value.field=name.display, now no value.field:" + remedy("with --value-field name.display"));
    }

    @Test
    @Order(2)
    void restartWithAnotherValueFieldIsRefused() throws Exception {
        assertRefused(
                "settings-other-field",
                "error: Refusing to start: namespace 'people' was built with "
                        + "value.field=name.display, now value.field=name.short:"
                        + remedy("with --value-field name.display"),
                "--value-field",
                "name.short");
    }

    @Test
    @Order(3)
    void restartWithTheReverseIndexToggledIsRefused() throws Exception {
        assertRefused(
                "settings-reverse-index",
                "error: Refusing to start: namespace 'people' was built with "
                        + "reverse.index=false, now reverse.index=true:" + remedy("without --reverse-index"),
                "--value-field",
                "name.display",
                "--reverse-index");
    }

    /**
     * {@code --rebuild} with the new settings: while the rebuild cannot catch up (partition 0 damaged so that the
     * broker serves nothing from it, as DamagedPartitionTest does, until it is repaired), the manifest and every reader
     * still give the old values; once it is published they give the new ones, and no reader ever saw a new value while
     * the manifest named the old generation.
     */
    @Test
    @Order(4)
    void rebuildPublishesTheNewSettingsOnlyOnceComplete() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        long oldGeneration = Manifest.read(layout.manifest(TOPIC)).generation();
        List<String> newValuesUnderOldGeneration = new CopyOnWriteArrayList<>();
        AtomicBoolean observing = new AtomicBoolean(true);
        java.util.concurrent.atomic.AtomicLong observations = new java.util.concurrent.atomic.AtomicLong();
        List<String> observerErrors = new CopyOnWriteArrayList<>();
        int length = kafka.setBatchLength(TOPIC, 0, 0, 1 << 30);
        try (SharedLookupStore reader = SharedLookupStore.builder(store)
                .lockTimeout(Duration.ofSeconds(1))
                .open()) {
            // A reader all along: a new value must never show while the manifest still names the old generation.
            Thread observer = new Thread(
                    () -> {
                        while (observing.get()) {
                            try {
                                String v = reader.lookup(TOPIC).get("1");
                                long generationAfter =
                                        Manifest.read(layout.manifest(TOPIC)).generation();
                                if ("team-1".equals(v) && generationAfter == oldGeneration) {
                                    newValuesUnderOldGeneration.add(v);
                                }
                                observations.incrementAndGet();
                                // Pacing on a shared 2-core host (not synchronisation): a read every millisecond is
                                // plenty.
                                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                            } catch (IOException | RuntimeException e) {
                                observerErrors.add(e.toString());
                            }
                        }
                    },
                    "observer");
            observer.start();
            // A health check every second: only a health check tells the partition stuck (5 s apart in production,
            // the second one 10 s after the start), and the test waits for that before it repairs the partition.
            List<String> jvmOptions = new ArrayList<>(ChildJvm.chronicleFlags());
            jvmOptions.add("-D" + Ingestor.HEALTH_PERIOD_PROPERTY + "=1000");
            WriterProcess w = WriterProcess.start(
                    args -> ChildJvm.start("settings-rebuild", LOGS, jvmOptions, WriterMain.class, args),
                    kafka.bootstrap(),
                    store,
                    TOPIC,
                    "--value-field",
                    "team",
                    "--rebuild",
                    TOPIC,
                    "--stuck-after",
                    "1");
            try (ChildJvm jvm = w.jvm) {
                jvm.awaitLine(
                        Duration.ofSeconds(60),
                        l -> l.contains("building a fresh generation") && l.contains("--rebuild people was given"));
                // Held at partition 0: it has read what it can and cannot publish.
                await("rebuild held at partition 0")
                        .atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions()
                        .until(() -> w.get("/ready").body().contains("stuck: partition 0"));
                assertThat(Manifest.read(layout.manifest(TOPIC)).generation()).isEqualTo(oldGeneration);
                assertThat(reader.lookup(TOPIC).get("1")).isEqualTo("Name 1");
                assertThat(TestStores.contents(store, TOPIC)).isEqualTo(expected(i -> "Name " + i));

                kafka.setBatchLength(TOPIC, 0, 0, length); // repaired
                w.awaitReady(Duration.ofSeconds(60));
                Manifest rebuilt = Manifest.read(layout.manifest(TOPIC));
                assertThat(rebuilt.generation()).isGreaterThan(oldGeneration);
                assertThat(rebuilt.attributes()).containsEntry("value.field", "team");
                await("the long-running reader follows the publish")
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> "team-1".equals(reader.lookup(TOPIC).get("1")));
                assertThat(TestStores.contents(store, TOPIC)).isEqualTo(expected(i -> "team-" + i % 7));
                jvm.terminate(Duration.ofSeconds(10));
            } finally {
                observing.set(false);
                observer.join();
            }
        } finally {
            kafka.setBatchLength(TOPIC, 0, 0, length);
        }
        assertThat(observerErrors).isEmpty();
        assertThat(observations.get()).isPositive();
        assertThat(newValuesUnderOldGeneration).isEmpty();
    }

    /**
     * {@code --rebuild} of a namespace whose settings did not change rebuilds it anyway (an operator who asks for a
     * rebuild gets one); the next start without it resumes.
     */
    @Test
    @Order(5)
    void rebuildWithUnchangedSettingsRebuildsAnyway() throws Exception {
        Manifest published = Manifest.read(new StoreLayout(store).manifest(TOPIC));
        long before = published.generation();
        String field = published.attributes().get("value.field"); // the stored one: nothing changes
        WriterProcess w = field == null
                ? writer("settings-rebuild-same", "--rebuild", TOPIC)
                : writer("settings-rebuild-same", "--value-field", field, "--rebuild", TOPIC);
        try (ChildJvm jvm = w.jvm) {
            w.awaitReady(Duration.ofSeconds(60));
            assertThat(jvm.printed(
                            l -> l.contains("building a fresh generation") && l.contains("--rebuild people was given")))
                    .isTrue();
            jvm.terminate(Duration.ofSeconds(10));
        }
        assertThat(Manifest.read(new StoreLayout(store).manifest(TOPIC)).generation())
                .isGreaterThan(before);
    }
}
