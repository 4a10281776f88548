package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The rule the ingest loop ({@code BatchApplier}, {@code TopicNamespaces}) relies on: only a stall and a rebuild stop
 * a partition at a record; a skip lets it carry on with the next one, and a done record counts as applied.
 */
class AppliedTest {
    @Test
    void onlyAStallOrARebuildStopsThePartition() {
        assertThat(Applied.DONE.halts()).isFalse();
        assertThat(new Applied.Skipped("value too large", true).halts())
                .as("the partition carries on")
                .isFalse();
        assertThat(new Applied.Stalled("disk full", 2_000).halts()).isTrue();
        assertThat(new Applied.RebuildNeeded("generation unusable").halts()).isTrue();
    }

    @Test
    void aStallPausesAtLeastASecond() {
        assertThat(Applied.Stalled.PAUSE_MILLIS).isGreaterThanOrEqualTo(1_000);
    }
}
