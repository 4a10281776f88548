package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code updated.at} says how current the stored offsets are, which a later start (or a host seeded from a snapshot)
 * measures against the topic's {@code delete.retention.ms}: deletes compacted away since could have been missed.
 * It used to say when the manifest was last written, so a clean stop after days without the broker, or a snapshot
 * taken of such a store, looked fresh and was resumed past deletes it never saw.
 */
class OffsetsAgeTest {
    private static final long DAY = TimeUnit.DAYS.toMillis(1);
    private static final long HOUR = TimeUnit.HOURS.toMillis(1);
    private static final Map<Integer, Long> OFFSETS = Map.of(0, 1L);

    @TempDir
    Path dir;

    /** Positions last known current at {@code asOf}: when they last reached the log's end. */
    private static Positions currentAsOf(long asOf) {
        return new Positions() {
            @Override
            public Map<Integer, Long> of(String topic) {
                return OFFSETS;
            }

            @Override
            public long currentAsOfMillis(String topic) {
                return asOf;
            }
        };
    }

    private NamespaceIngest liveNamespace(StoreLayout layout) throws Exception {
        return liveNamespace(layout, -1);
    }

    private NamespaceIngest liveNamespace(StoreLayout layout, long deleteRetentionMillis) throws Exception {
        NamespaceIngest ingest =
                TestNamespaces.over(NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT));
        ingest.start(Map.of(0, 0L), OFFSETS, deleteRetentionMillis, null);
        ingest.apply("1", "Ada", topic -> OFFSETS);
        // Current as of an hour ago, so that the tests' later stamps are not later than the clock (never written).
        ingest.afterBatch(true, currentAsOf(System.currentTimeMillis() - HOUR));
        return ingest;
    }

    @Test
    void aCleanStopRecordsWhenTheOffsetsWereLastCurrentNotTheStop() throws Exception {
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        long lastAnswer = System.currentTimeMillis() - 3 * DAY;
        ingest.close(currentAsOf(lastAnswer));

        Manifest stopped = Manifest.read(layout.manifest("users"));
        assertThat(stopped.writerState()).isEqualTo(Manifest.WriterState.CLOSED);
        assertThat(stopped.updatedAtMillis()).isEqualTo(lastAnswer);
    }

    @Test
    void aQuietTopicsOffsetsAreRestampedWhileTheyStayCurrent() throws Exception {
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        long published = Manifest.read(layout.manifest("users")).updatedAtMillis();

        // Nothing new and recently stamped: the manifest readers poll is left alone.
        ingest.checkpoint(currentAsOf(published + GenerationLife.STAMP_REFRESH_MILLIS - 1));
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis()).isEqualTo(published);

        long later = published + GenerationLife.STAMP_REFRESH_MILLIS;
        ingest.checkpoint(currentAsOf(later));
        Manifest restamped = Manifest.read(layout.manifest("users"));
        assertThat(restamped.updatedAtMillis()).isEqualTo(later);
        assertThat(restamped.offsets()).isEqualTo(OFFSETS);
        ingest.close(currentAsOf(later));
    }

    @Test
    void aQuietTopicWithAShortDeleteRetentionIsRestampedWithinIt() throws Exception {
        // A minute of delete.retention.ms: restamped every quarter of it, so that a snapshot of the store (a new host's
        // seed) is still young enough to resume once copied. Every ten minutes, it could be nine minutes old.
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout, 60_000);
        long published = Manifest.read(layout.manifest("users")).updatedAtMillis();

        ingest.checkpoint(currentAsOf(published + 15_000 - 1));
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis()).isEqualTo(published);

        ingest.checkpoint(currentAsOf(published + 15_000));
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis()).isEqualTo(published + 15_000);
        ingest.close(currentAsOf(published + 15_000));
    }

    @Test
    void theRestampingIntervalFollowsTheDeleteRetention() {
        assertThat(GenerationLife.stampRefreshFor(-1))
                .as("unknown: Kafka's default, a day")
                .isEqualTo(GenerationLife.STAMP_REFRESH_MILLIS);
        assertThat(GenerationLife.stampRefreshFor(DAY)).isEqualTo(GenerationLife.STAMP_REFRESH_MILLIS);
        assertThat(GenerationLife.stampRefreshFor(60_000)).isEqualTo(15_000);
        assertThat(GenerationLife.stampRefreshFor(0))
                .as("at most as often as the broker is asked")
                .isEqualTo(GenerationLife.MIN_STAMP_REFRESH_MILLIS);
    }

    @Test
    void aRebuildTakesTheDeleteRetentionReadForIt() throws Exception {
        // Started with the retention unknown (ten minutes between restamps), then rebuilt after reading a minute.
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        ingest.rebuild("the topic was recreated", Map.of(0, 0L), OFFSETS, null, 60_000);
        ingest.apply("1", "Ada", topic -> OFFSETS);
        ingest.afterBatch(true, currentAsOf(System.currentTimeMillis() - HOUR));
        long published = Manifest.read(layout.manifest("users")).updatedAtMillis();
        assertThat(Manifest.read(layout.manifest("users")).generation())
                .as("the rebuild published")
                .isGreaterThan(1);

        ingest.checkpoint(currentAsOf(published + 15_000));
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis()).isEqualTo(published + 15_000);
        ingest.close(currentAsOf(published + 15_000));
    }

    @Test
    void aSnapshotKeepsTheAgeOfTheOffsetsItCopies() throws Exception {
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        long lastAnswer = System.currentTimeMillis() - 3 * DAY;
        ingest.close(currentAsOf(lastAnswer)); // a store whose own restart would rebuild (3 days > Kafka's default)

        Snapshots.Taken taken =
                Snapshots.take(layout.storeDir(), "users", dir.resolve("snapshot"), StorePermissions.DEFAULT);
        assertThat(taken.manifest().offsets()).isEqualTo(OFFSETS);
        assertThat(taken.manifest().updatedAtMillis())
                .as("not the snapshot's own time")
                .isEqualTo(lastAnswer);
    }

    @Test
    void aResumeDoesNotMakeTheOffsetsLookNewer() throws Exception {
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        long lastAnswer = System.currentTimeMillis() - DAY / 2;
        ingest.close(currentAsOf(lastAnswer));

        NamespaceIngest resumed =
                TestNamespaces.over(NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT));
        resumed.start(Map.of(0, 0L), Map.of(0, 5L), -1, null); // a backlog: records 1 to 4 are still to be read
        Manifest opened = Manifest.read(layout.manifest("users"));
        assertThat(opened.writerState()).isEqualTo(Manifest.WriterState.OPEN);
        assertThat(opened.updatedAtMillis()).isEqualTo(lastAnswer);

        // Not at the log's end yet (the consumer does not know since when it is current): checkpoints and a stop
        // keep the stored time, whatever else they record.
        Positions behind = topic -> Map.of(0, 3L);
        resumed.checkpoint(behind);
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis()).isEqualTo(lastAnswer);
        resumed.close(behind);
        Manifest stopped = Manifest.read(layout.manifest("users"));
        assertThat(stopped.offsets()).isEqualTo(Map.of(0, 3L));
        assertThat(stopped.updatedAtMillis()).isEqualTo(lastAnswer);
    }

    @Test
    void aStampLaterThanTheClockIsNeverWritten() throws Exception {
        // Positions credited by a wall clock that ran ahead: what is stored is now, not the future, so that a later
        // start with the clock set right does not take offsets of any age for fresh.
        StoreLayout layout = new StoreLayout(dir.resolve("store"));
        NamespaceIngest ingest = liveNamespace(layout);
        long before = System.currentTimeMillis();
        ingest.checkpoint(currentAsOf(before + HOUR));
        long stamped = Manifest.read(layout.manifest("users")).updatedAtMillis();
        assertThat(stamped).isBetween(before, System.currentTimeMillis());
        ingest.close(currentAsOf(System.currentTimeMillis() + HOUR));
        assertThat(Manifest.read(layout.manifest("users")).updatedAtMillis())
                .isLessThanOrEqualTo(System.currentTimeMillis());
    }
}
