package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The records a rebuild reads while it samples are held back until the generation sized from them exists. Their
 * offsets count as applied once read, so none of them may be lost, reordered or missing from a published generation.
 */
class NamespaceIngestHeldBackTest {
    /** Far longer than the sample's average: no tier that already holds its share of small entries has room for it. */
    private static final String LONG = "x".repeat(8000);

    @TempDir
    Path store;

    @Test
    void aHeldBackRecordThatCannotBeStoredStallsAndIsAppliedInOrderBeforeThePublish(@TempDir Path probe)
            throws Exception {
        // Small records, then one that needs an extra tier of the generation sized from them all, then a delete and
        // two puts of keys written before it: 999 records, fewer than a sample takes, so all are held back until the
        // batch ends caught up.
        List<String[]> topic = new ArrayList<>();
        for (int i = 0; i < 996; i++) {
            topic.add(new String[] {"key-" + i, i == 995 ? LONG : "v"});
        }
        topic.add(new String[] {"key-2", null});
        topic.add(new String[] {"key-1", "newer"});
        topic.add(new String[] {"key-1", "newest"});
        Map<Integer, Long> beginning = Map.of(0, 0L);
        Map<Integer, Long> end = Map.of(0, (long) topic.size());
        Positions positions = t -> end;
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), "held", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        ingest.start(beginning, end, -1, null);
        for (String[] r : topic) {
            ingest.apply(r[0], r[1], positions);
        }

        // The file system lets the generation be created at the size the sample asks for, and no longer (as a full
        // disk would): the replay stalls at the long value.
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(createdLength(topic, beginning, end, probe))) {
            assertThat(ingest.afterBatch(true, positions))
                    .isInstanceOfSatisfying(
                            Applied.Stalled.class,
                            stalled -> assertThat(stalled.reason()).contains("cannot extend generation"));
            NamespaceStatus stalled = ingest.status(Map.of(), null, Positions.UNKNOWN);
            assertThat(stalled.state()).isEqualTo(NamespaceStatus.State.STALLED);
            assertThat(stalled.lastError()).contains("cannot extend generation").contains("free disk space");
            assertThat(stalled.entries())
                    .as("stalled at the long value (else the sample no longer makes it need "
                            + "an extra tier): it and the 3 records after it wait")
                    .isEqualTo(995);

            // Still full when the pause is over: the next batch's end tries again and is refused again. Nothing
            // after the long value overtakes it, and nothing is published meanwhile.
            batchEnds("a retry after the pause, refused again").until(() -> stallsAgain(ingest, positions));
            assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).entries())
                    .as("nothing overtook the long value")
                    .isEqualTo(995);
            assertThat(directory.published())
                    .as("published with records held back")
                    .isEmpty();
        }

        // Room again: once the pause is over, a batch's end applies the held-back records, then publishes.
        batchEnds("the publish").until(() -> {
            ingest.afterBatch(true, positions);
            return directory.published().isPresent();
        });
        NamespaceStatus recovered = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(recovered.state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(recovered.lastError()).isNull();
        assertThat(directory.published().orElseThrow().offsets()).isEqualTo(end);
        ingest.close(positions);
        Map<String, String> readable = TestStores.contents(store, "held");
        assertThat(readable)
                .hasSize(995)
                .containsEntry("key-995", LONG)
                .containsEntry("key-994", "v")
                .doesNotContainKey("key-2");
        assertThat(readable.get("key-1")).as("the later put wins").isEqualTo("newest");
    }

    /**
     * Waits for {@code what} while batches end caught up every 100 ms, as the ingest loop ends one after every poll;
     * on the test's thread, since a namespace is only ever driven by one thread.
     */
    private static ConditionFactory batchEnds(String what) {
        return await(what).atMost(Duration.ofSeconds(10)).pollInSameThread().pollInterval(Duration.ofMillis(100));
    }

    private static boolean stallsAgain(NamespaceIngest ingest, Positions positions) {
        return ingest.afterBatch(true, positions) instanceof Applied.Stalled;
    }

    /** How long the ingest's generation for {@code records} is when created: a probe sized from the same sample. */
    private static long createdLength(
            List<String[]> records, Map<Integer, Long> beginning, Map<Integer, Long> end, Path probe) throws Exception {
        InitialSizing sample = new InitialSizing(SampleBudget.shared(1));
        sample.start(beginning, end);
        records.forEach(r -> sample.hold(r[0], r[1]));
        try (GenerationFile g = GenerationFile.create(
                probe.resolve("g0000000001.cmap"), sample.sizing(Long.MAX_VALUE), StorePermissions.DEFAULT)) {
            return Files.size(g.file());
        }
    }
}
