package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.CapturedLog;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reader does when its thread, its store's files or its own refresh go wrong: it keeps answering, keeps
 * following the writer, says what is wrong in one line, and piles nothing up.
 */
class ReaderFaultsTest {
    private static final long TIMEOUT = TestStores.TIMEOUT;
    /** More entries than {@link #withExtraTiers} sizes the generation for. */
    private static final Map<String, String> EXTRA_TIER_CONTENT = new HashMap<>();

    static {
        for (int i = 0; i < 2_500; i++) {
            EXTRA_TIER_CONTENT.put("key-" + i, "value " + i);
        }
    }

    @TempDir
    Path store;

    private CapturedLog log;

    @BeforeEach
    void captureLog() {
        log = CapturedLog.of(LiveLookup.class);
    }

    @AfterEach
    void releaseLog() {
        log.close();
    }

    /**
     * A file channel closes itself for every thread when an interrupted thread uses it; the reader maps extra tier
     * bulks through one. Druid interrupts the threads of a query it cancels.
     */
    @Test
    void lookupsOnAnInterruptedThread_answerAndKeepTheInterruptStatus() throws Exception {
        try (NamespaceDirectory writer =
                        NamespaceDirectory.open(new StoreLayout(store), "users", StorePermissions.DEFAULT);
                GenerationFile generation = withExtraTiers(writer)) {
            writer.publish(generation, "topic", Map.of(0, (long) EXTRA_TIER_CONTENT.size()), true, Map.of());
            try (SharedLookupStore s = SharedLookupStore.open(store)) {
                Thread.currentThread().interrupt();
                Map<String, String> read = new HashMap<>();
                try {
                    Lookup users = s.lookup("users");
                    EXTRA_TIER_CONTENT.keySet().forEach(k -> read.put(k, users.get(k)));
                } finally {
                    assertThat(Thread.interrupted())
                            .as("the interrupt status is kept")
                            .isTrue();
                }
                assertThat(read).isEqualTo(EXTRA_TIER_CONTENT);
            }
        }
    }

    /** The same channel, closed anyway (an interrupt in the middle of a call): reopened for the next bulk. */
    @Test
    void aClosedChannel_isReopenedForTheExtraTiersMappedAfterIt() throws Exception {
        try (NamespaceDirectory writer =
                        NamespaceDirectory.open(new StoreLayout(store), "users", StorePermissions.DEFAULT);
                GenerationFile generation = withExtraTiers(writer)) {
            MappedMap map = MappedMap.open(generation.file(), SequenceFile.of(generation.file()), generation.layout());
            map.close();
            StringBuilder value = new StringBuilder();
            for (Map.Entry<String, String> e : EXTRA_TIER_CONTENT.entrySet()) {
                assertThat(map.getInto(e.getKey(), value, TIMEOUT)).isEqualTo(MappedMap.PRESENT);
                assertThat(value.toString()).isEqualTo(e.getValue());
            }
        }
    }

    /** A generation sized far too small for its content, so that most of it lives in extra tier bulks. */
    private static GenerationFile withExtraTiers(NamespaceDirectory writer) throws Exception {
        GenerationFile generation = writer.createGeneration(new GenerationSizing(1024, 4, 4, 8.0), false);
        EXTRA_TIER_CONTENT.forEach((k, v) -> generation.put(k, v, TIMEOUT));
        assertThat(Files.size(generation.file()))
                .as("extra tier bulks were added")
                .isGreaterThan(generation.layout().baseSize());
        return generation;
    }

    @Test
    void aManifestThatIsNotAFileForAWhile_isReportedAndTheReaderFollowsOnceItIsBack() throws Exception {
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"));
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            Lookup users = s.lookup("users");
            Path manifest = store.resolve("users").resolve(StoreLayout.MANIFEST);
            byte[] good = Files.readAllBytes(manifest);
            Path aside = manifest.resolveSibling("manifest.aside");
            Files.createSymbolicLink(aside, Path.of("/dev/zero")); // read whole, it never ends
            Files.move(aside, manifest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> warnings().stream()
                            .anyMatch(m -> m.contains("cannot follow") && m.contains("not a regular file")));
            Files.write(aside, good);
            Files.move(aside, manifest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);

            published.republish(Map.of("1", "Grace"));
            await().atMost(Duration.ofSeconds(5)).until(() -> "Grace".equals(users.get("1")));
        }
    }

    @Test
    void aGenerationThatCannotBeOpened_isRetriedSlowlyWhileTheWriterCheckpointsIt_andHoldsNoDescriptor()
            throws Exception {
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"), true, true);
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            Lookup users = s.lookup("users");
            try (GenerationFile broken =
                    published.writer.createGeneration(GenerationSizing.forExpected(10, 8, 16), true)) {
                broken.put("1", "Grace", TIMEOUT);
                Path reverseIndex = StoreLayout.reverseIndexFile(broken.file());
                Files.delete(SequenceFile.of(reverseIndex)); // the data file opens, its reverse index does not
                published.writer.publish(broken, "topic", Map.of(0, 1L), true, Map.of());
                String name = broken.file().getFileName().toString();
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> warnings().stream()
                                .anyMatch(m -> m.contains("cannot follow")
                                        && m.contains(reverseIndex.getFileName().toString())));
                long descriptors = descriptorsOf(name); // the writer's own
                long mappings = mappingsOf(name);

                long start = System.nanoTime();
                for (long offset = 2; System.nanoTime() - start < 1_000_000_000L; offset++) { // ~200 refreshes
                    published.writer.checkpoint(Map.of(0, offset), true, true); // a new manifest each time
                    assertThat(users.get("1")).isEqualTo("Ada");
                    Thread.sleep(10);
                }
                // At most what was open at the first look, which may have caught a retry's open in flight; a leak
                // would add one per failed open (about a hundred here).
                await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(descriptorsOf(name))
                                .as("descriptors left open by failed opens")
                                .isLessThanOrEqualTo(descriptors));
                assertThat(mappingsOf(name) - mappings)
                        .as("mappings of failed opens")
                        .isLessThan(30);
            }
        }
    }

    @Test
    void aManifestWithAnUnknownWriterState_isRefusedInOneLineThatNamesIt() throws Exception {
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"))) {
            Path manifest = store.resolve("users").resolve(StoreLayout.MANIFEST);
            Files.writeString(
                    manifest, Files.readString(manifest).replaceAll("writer\\.state=\\w+", "writer.state=bogus"));
            try (SharedLookupStore s = SharedLookupStore.open(store)) {
                assertThatThrownBy(() -> s.lookup("users"))
                        .isInstanceOf(SharedLookupException.class)
                        .hasMessageContaining(manifest.toString())
                        .hasMessageContaining("writer.state 'bogus'")
                        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            }
        }
    }

    private List<String> warnings() {
        return log.warnings();
    }

    private static long descriptorsOf(String fileName) throws Exception {
        long count = 0;
        try (var links = Files.list(Path.of("/proc/self/fd"))) {
            for (Path link : (Iterable<Path>) links::iterator) {
                try {
                    if (Files.readSymbolicLink(link).toString().endsWith(fileName)) {
                        count++;
                    }
                } catch (java.io.IOException closedMeanwhile) {
                    // the listing's own descriptor, or one closed since
                }
            }
        }
        return count;
    }

    private static long mappingsOf(String fileName) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.endsWith(fileName))
                .count();
    }
}
