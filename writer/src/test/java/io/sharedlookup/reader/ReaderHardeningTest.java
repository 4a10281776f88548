package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.CapturedLog;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a reader does when a store file is not what the writer made (a FIFO, a link, a directory, a file truncated
 * under it) or when its own refresh fails: it refuses in one line, keeps serving the last good generation, and every
 * other namespace of the store keeps following its writer.
 */
class ReaderHardeningTest {
    private static final long TIMEOUT = TestStores.TIMEOUT;
    private static final Duration PATIENCE = Duration.ofSeconds(5);

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
     * A FIFO where a newly published generation's sequence file should be. Opening a FIFO for reading blocks until a
     * writer opens it: the store's only refresh thread would hang there for good.
     */
    @Test
    void aFifoInPlaceOfASequenceFile_isRefusedInOneLine_andTheOtherNamespaceKeepsFollowing() throws Exception {
        try (TestStores.Published users = TestStores.publish(store, "users", Map.of("1", "Ada"));
                TestStores.Published places = TestStores.publish(store, "places", Map.of("p", "Paris"));
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            Lookup usersLookup = s.lookup("users");
            Lookup placesLookup = s.lookup("places");
            try (GenerationFile broken =
                    places.writer.createGeneration(GenerationSizing.forExpected(10, 8, 16), false)) {
                broken.put("p", "Prague", TIMEOUT);
                Path fifo = SequenceFile.of(broken.file());
                Files.delete(fifo);
                mkfifo(fifo);
                try {
                    places.writer.publish(broken, "topic", Map.of(0, 1L), true, Map.of());
                    await().atMost(PATIENCE)
                            .until(() -> warnings().stream()
                                    .anyMatch(m -> m.contains("places")
                                            && m.contains(fifo.toString())
                                            && m.contains("not a regular file")));
                    assertThat(warnings()).allSatisfy(m -> assertThat(m).doesNotContain("\n"));

                    users.republish(Map.of("1", "Grace")); // a new generation: followed by the refresh only
                    await().atMost(PATIENCE).until(() -> "Grace".equals(usersLookup.get("1")));
                    assertThat(placesLookup.get("p"))
                            .as("the last good generation")
                            .isEqualTo("Paris");
                } finally {
                    unblock(fifo);
                }
            }
        }
    }

    /** A FIFO, a symbolic link (even to the right file) or a directory in place of either file: refused at once. */
    @Test
    void aGenerationOrSequenceFileThatIsNotARegularFile_isRefusedInOneLine() throws Exception {
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"))) {
            Path data = published.generation.file();
            Path dir = Files.createDirectory(store.resolve("copies"));
            for (String kind : List.of("fifo", "symlink", "directory")) {
                for (boolean sequenceFile : new boolean[] {false, true}) {
                    Path copy = dir.resolve(kind + "-" + sequenceFile + ".cmap");
                    Files.copy(data, copy);
                    Files.copy(SequenceFile.of(data), SequenceFile.of(copy));
                    Path replaced = sequenceFile ? SequenceFile.of(copy) : copy;
                    Path real = Files.move(replaced, replaced.resolveSibling(replaced.getFileName() + ".real"));
                    switch (kind) {
                        case "fifo" -> mkfifo(replaced);
                        case "symlink" -> Files.createSymbolicLink(replaced, real);
                        default -> Files.createDirectory(replaced);
                    }
                    CompletableFuture<MappedMap> open = CompletableFuture.supplyAsync(
                            () -> MappedMap.open(copy, SequenceFile.of(copy), published.generation.layout()));
                    try {
                        assertThatThrownBy(() -> open.get(5, TimeUnit.SECONDS))
                                .as("%s in place of the %s", kind, sequenceFile ? "sequence file" : "generation file")
                                .hasCauseInstanceOf(StoreFormatException.class)
                                .cause()
                                .hasMessageContaining(replaced.toString())
                                .hasMessageContaining("is not a regular file")
                                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
                    } finally {
                        if (kind.equals("fifo")) {
                            unblock(replaced);
                        }
                    }
                }
            }
        }
    }

    /**
     * A published generation file truncated under the reader (an operator, a restore, an {@code rsync --inplace}):
     * its pages past the new end fault (SIGBUS), which the JVM throws as an {@link InternalError}.
     */
    @Test
    void aGenerationTruncatedUnderTheReader_failsLookupsAsSharedLookupException_andIsReopenedFromTheManifest()
            throws Exception {
        Map<String, String> content = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            content.put("p" + i, "place " + i);
        }
        try (TestStores.Published users = TestStores.publish(store, "users", Map.of("1", "Ada"));
                TestStores.Published places = TestStores.publish(store, "places", content);
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            Lookup usersLookup = s.lookup("users");
            Lookup placesLookup = s.lookup("places");
            Path file = places.generation.file();
            byte[] whole = Files.readAllBytes(file);
            ValueBuffer value = new ValueBuffer();
            StringBuilder builder = new StringBuilder();
            ValueBuffer[] values = {new ValueBuffer(), new ValueBuffer()};
            String[] keys = {"p1", "p2"};
            // the writer's own mapping of this file, made whole again before the writer closes it
            try (FileChannel truncated = FileChannel.open(file, StandardOpenOption.WRITE)) {
                assertThat(placesLookup.getInto("p1", value)).isTrue();
                assertThat(placesLookup.getInto("p1", builder)).isTrue();
                assertThat(placesLookup.getAllInto(keys, values, 2)).isEqualTo(2);
                truncated.truncate(0);

                assertThatThrownBy(() -> placesLookup.getInto("p1", value))
                        .isInstanceOf(SharedLookupException.class)
                        .hasMessageContaining("places")
                        .hasMessageContaining(file.toString())
                        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
                assertThat(value.found()).isFalse();
                assertThat(value.length()).isZero();
                assertThatThrownBy(() -> placesLookup.getInto("p1", builder)).isInstanceOf(SharedLookupException.class);
                assertThat(builder.length()).isZero();
                assertThatThrownBy(() -> placesLookup.getAllInto(keys, values, 2))
                        .isInstanceOf(SharedLookupException.class);
                assertThat(values)
                        .allSatisfy(v -> assertThat(v.found() || v.length() > 0).isFalse());

                users.republish(Map.of("1", "Grace")); // a new generation: followed by the refresh only
                await().atMost(PATIENCE).until(() -> "Grace".equals(usersLookup.get("1")));

                // the file restored as a new file under its name: the generation is opened again from the manifest
                Path aside = file.resolveSibling("restored");
                Files.write(aside, whole);
                Files.move(aside, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                await().atMost(PATIENCE).ignoreExceptions().until(() -> "place 7".equals(placesLookup.get("p7")));
                assertThat(placesLookup.getInto("p1", value)).isTrue();
                assertThat(value.toString()).isEqualTo("place 1");
                truncated.write(ByteBuffer.wrap(whole), 0);
            }
        }
    }

    /**
     * The JVM may throw a mapping fault of compiled code a little after the read that caused it, past
     * PublishedGeneration's catch, into LiveLookup's. Such a fault cannot be timed from a test, so the catch's handling
     * ({@code CallFailures.damaged}, which every lookup method's catch calls) is given one directly: the generation must be reopened
     * at the next refresh, as after a fault caught in PublishedGeneration, though the manifest has not changed.
     */
    @Test
    void aFaultSurfacingInLiveLookup_getsTheGenerationReopenedFromTheManifest() throws Exception {
        try (TestStores.Published places = TestStores.publish(store, "places", Map.of("p", "Paris"));
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            LiveLookup lookup = (LiveLookup) s.lookup("places");
            PublishedGeneration before = lookup.acquire();
            SharedLookupException thrown = CallFailures.damaged(
                    "places",
                    before,
                    new InternalError("a fault occurred in an unsafe memory access operation in compiled Java code"));
            assertThat(thrown.getMessage())
                    .contains("places")
                    .contains(places.generation.file().toString())
                    .doesNotContain("\n");
            await().atMost(PATIENCE).until(() -> lookup.acquire() != before);
            assertThat(lookup.acquire().faulted()).isFalse();
            assertThat(lookup.get("p")).isEqualTo("Paris");
        }
    }

    /**
     * {@code scheduleWithFixedDelay} cancels the refresh for good after one uncaught throwable: an {@link Error} from
     * one namespace's refresh (injected before each of its refreshes) must not stop the others following.
     */
    @Test
    void anErrorEscapingOneNamespacesRefresh_doesNotEndTheRefreshOfAnyNamespace() throws Exception {
        try (TestStores.Published users = TestStores.publish(store, "users", Map.of("1", "Ada"));
                TestStores.Published places = TestStores.publish(store, "places", Map.of("p", "Paris"));
                CapturedLog storeLog = CapturedLog.of(SharedLookupStore.class);
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(5))
                        .open()) {
            Lookup placesLookup = s.lookup("places");
            Lookup usersLookup = s.lookup("users");
            AtomicInteger thrown = new AtomicInteger();
            s.beforeRefresh = namespace -> {
                if (namespace.equals("places")) {
                    thrown.incrementAndGet();
                    throw new StackOverflowError("injected");
                }
            };
            await().atMost(PATIENCE).until(() -> thrown.get() > 0); // changed after a refresh has thrown
            users.republish(Map.of("1", "Grace")); // a new generation: followed by the refresh only
            await().atMost(PATIENCE).until(() -> "Grace".equals(usersLookup.get("1")));
            assertThat(storeLog.warnings()).anyMatch(m -> m.contains("places") && m.contains("injected"));
            s.beforeRefresh = namespace -> {};
            places.republish(Map.of("p", "Prague"));
            await().atMost(PATIENCE).until(() -> "Prague".equals(placesLookup.get("p")));
        }
    }

    private List<String> warnings() {
        return log.warnings();
    }

    private static void mkfifo(Path path) throws Exception {
        Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("mkfifo " + path)
                .isTrue();
    }

    /**
     * Releases any thread blocked opening {@code fifo} for reading (a reader without the fix): opening it for reading
     * and writing never blocks on Linux and counts as a writer.
     */
    private static void unblock(Path fifo) throws Exception {
        if (Files.exists(fifo)) {
            // a blocked open waits for the count of writers to change, so it is released even if this closes first
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    .close();
        }
    }
}
