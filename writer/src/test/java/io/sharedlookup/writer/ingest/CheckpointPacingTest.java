package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link CheckpointPacing}: slow checkpoints take at most about a tenth of the ingest thread, fast ones are untouched. */
class CheckpointPacingTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final CheckpointPacing<String> pacing = new CheckpointPacing<>();

    @Test
    void fastCheckpointsKeepTheirPeriod() {
        pacing.took("users", 1_000 * MS, MS / 2); // a usual checkpoint: half a millisecond
        assertThat(pacing.due("users", 1_000 * MS + Checkpoint.PERIOD_MILLIS * MS))
                .isTrue();
    }

    @Test
    void aSlowCheckpointDelaysTheNextByNineTimesItsDuration() {
        long end = 5_000 * MS;
        pacing.took("users", end, 1_000 * MS); // an fsync held up by a growth's dirty pages
        assertThat(pacing.due("users", end + 8_999 * MS)).isFalse();
        assertThat(pacing.due("users", end + 9_000 * MS)).isTrue();
        assertThat(pacing.due("products", end + MS))
                .as("other namespaces keep their period")
                .isTrue();
        // With the next checkpoint waiting 9 times as long as this one took, checkpoints take 10 % of the time at most.
        double share = 1_000.0 / (1_000 + 9_000);
        assertThat(share).isLessThanOrEqualTo(0.1);
    }

    @Test
    void noNamespaceGoesLongerThanTheBoundWithoutACheckpoint() {
        long end = 5_000 * MS;
        pacing.took("users", end, 30_000 * MS); // a checkpoint that took half a minute
        assertThat(pacing.due("users", end + CheckpointPacing.MAX_SPACING_NANOS - 1))
                .isFalse();
        assertThat(pacing.due("users", end + CheckpointPacing.MAX_SPACING_NANOS))
                .isTrue();
    }

    @Test
    void aFastCheckpointAfterSlowOnesRestoresThePeriod() {
        pacing.took("users", 5_000 * MS, 2_000 * MS);
        pacing.took("users", 30_000 * MS, MS);
        assertThat(pacing.due("users", 30_000 * MS + Checkpoint.PERIOD_MILLIS * MS))
                .isTrue();
    }
}
