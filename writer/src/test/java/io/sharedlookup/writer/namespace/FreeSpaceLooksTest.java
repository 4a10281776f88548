package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FreeSpaceLooksTest {
    @Test
    void aCheapLookIsRepeatedAfterAQuarterSecond() {
        assertThat(FreeSpaceLooks.pauseAfterLook(TimeUnit.MILLISECONDS.toNanos(1)))
                .isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void anExpensiveLookWaitsLongEnoughToCostAtMostTwoPercent() {
        // ~40 ms: a look at 10M entries; ~400 ms at 100M. A fixed 250 ms period made the first 15 % of a bootstrap.
        long look = TimeUnit.MILLISECONDS.toNanos(40);
        long pause = FreeSpaceLooks.pauseAfterLook(look);
        assertThat((double) look / (look + pause)).isLessThan(0.02);
        assertThat(FreeSpaceLooks.pauseAfterLook(10 * look)).isEqualTo(10 * pause);
    }

    @Test
    void aClockThatSeemsToGoBackwardsCountsAsAFreeLook() {
        assertThat(FreeSpaceLooks.pauseAfterLook(-5)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }
}
