package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a batch's records may be put by parallel appliers ({@link NamespaceIngest#parallelFill}): never when the pass
 * could take the generation to where the ingest thread's per-record check grows it ({@link Growth#GROW_NOW_AT}); those
 * records then go one by one, and the generation grows as without appliers.
 */
class ParallelFillTest {
    @TempDir
    Path store;

    @Test
    void aPassThatCouldReachGrowNowAtRunsOneByOneAndTheGenerationGrows() throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), "near", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        Map<Integer, Long> offsets = Map.of(0, 0L);
        Positions positions = topic -> offsets;
        ingest.start(offsets, Map.of(0, 1_000L), -1, null); // a first build of a topic of 1,000 records
        for (int i = 0; i < 1_000; i++) {
            ingest.apply("k" + i, "v" + i, positions); // the sample: the generation is made after it
        }
        NamespaceStatus built = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(built.state()).isEqualTo(NamespaceStatus.State.REBUILDING);
        long capacity = built.capacity();
        int toGrowNow = (int) Math.ceil(Growth.GROW_NOW_AT * capacity - built.entries());
        assertThat(toGrowNow)
                .as("records of new keys that bring it to GROW_NOW_AT")
                .isGreaterThan(10);

        ParallelFill small = ingest.parallelFill(toGrowNow - 10);
        assertThat(small)
                .as("a pass that stays under GROW_NOW_AT runs in parallel")
                .isNotNull();
        small.passOver(false);
        assertThat(ingest.parallelFill(toGrowNow))
                .as("a pass that could reach GROW_NOW_AT runs one by one")
                .isNull();

        // One by one, the ingest thread's check grows the generation within the batch, as without appliers.
        for (int i = 1_000; i < 1_000 + toGrowNow + 100; i++) {
            ingest.apply("k" + i, "v" + i, positions);
        }
        NamespaceStatus grown = ingest.status(Map.of(), null, Positions.UNKNOWN);
        assertThat(grown.capacity()).isGreaterThan(capacity);
        assertThat(grown.entries()).isEqualTo(1_000L + toGrowNow + 100);
        ingest.abandon();
    }
}
