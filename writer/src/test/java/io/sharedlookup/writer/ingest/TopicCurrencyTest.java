package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.namespace.Positions;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** How far behind a topic can be and still be credited with an answer it has passed ({@link TopicCurrency}). */
class TopicCurrencyTest {
    private static final TopicPartition P0 = new TopicPartition("users", 0);
    private static final TopicPartition P1 = new TopicPartition("users", 1);
    private static final long T0 = 1_000_000;
    private static final long EVERY = 5_000; // a health check's answer every 5 s
    private static final long GROWTH = 100; // records per answer
    private static final long HOUR = 3_600_000;
    /** Clocks that stand still a few days after T0, past every answer the tests give. */
    private static final CurrencyClock LATER = new SteppedClock(T0 + 10 * 86_400_000L);

    /** A wall clock that can be stepped and a monotonic one that only moves forward with time passing. */
    static final class SteppedClock implements CurrencyClock {
        private long wall;
        private long monotonicNanos = 42_000_000_000L;

        SteppedClock(long wall) {
            this.wall = wall;
        }

        /** Time passes: both clocks move on. */
        void pass(long millis) {
            wall += millis;
            monotonicNanos += millis * 1_000_000;
        }

        /** The wall clock is stepped (NTP, an operator); no time passes. */
        void step(long millis) {
            wall += millis;
        }

        @Override
        public long wallMillis() {
            return wall;
        }

        @Override
        public long monotonicNanos() {
            return monotonicNanos;
        }
    }

    /** Credits the topic with what its only partition {@code P0}, at {@code position}, has reached. */
    private static long creditAt(TopicCurrency currency, long position) {
        long reached = currency.reached(List.of(P0), tp -> position);
        currency.credit("users", List.of(P0), reached);
        return reached;
    }

    @Test
    void aWallClockSteppedForwardMidRunInventsNoGap() {
        SteppedClock clock = new SteppedClock(T0);
        TopicCurrency currency = new TopicCurrency(clock);
        currency.answered(Map.of(P0, 10L), clock.wallMillis());
        creditAt(currency, 10);

        clock.pass(EVERY);
        clock.step(HOUR); // measured on the wall clock, an hour without being current: a rebuild for nothing
        currency.answered(Map.of(P0, 20L), clock.wallMillis());
        long reached = currency.reached(List.of(P0), tp -> 20L);
        assertThat(reached - currency.currentAsOf("users")).isEqualTo(EVERY);
    }

    @Test
    void aWallClockSteppedBackMidRunHidesNoGapAndItsStampsFollowIt() {
        SteppedClock clock = new SteppedClock(T0 + HOUR); // an hour ahead
        TopicCurrency currency = new TopicCurrency(clock);
        currency.answered(Map.of(P0, 10L), clock.wallMillis());
        creditAt(currency, 10);

        clock.step(-HOUR); // set right
        clock.pass(10 * 60_000); // then ten minutes without reaching the end (the broker away, say)
        currency.answered(Map.of(P0, 20L), clock.wallMillis());
        long reached = currency.reached(List.of(P0), tp -> 20L);
        assertThat(reached - currency.currentAsOf("users"))
                .as("the gap, not fifty minutes before it began")
                .isEqualTo(10 * 60_000);
        assertThat(currency.currentAsOf("users"))
                .as("the stamp before: ten minutes ago by the clock set right")
                .isEqualTo(clock.wallMillis() - 10 * 60_000);
        currency.credit("users", List.of(P0), reached);
        assertThat(currency.currentAsOf("users")).isEqualTo(clock.wallMillis());
    }

    @Test
    void aStampLaterThanTheWallClockCountsAsNow() {
        SteppedClock clock = new SteppedClock(T0);
        TopicCurrency currency = new TopicCurrency(clock);
        currency.credit("users", List.of(P0), T0 + 30_000); // a resumed manifest's, within the skew believed
        assertThat(currency.currentAsOf("users")).isEqualTo(T0);
        currency.answered(Map.of(P0, 10L), T0 + HOUR);
        assertThat(currency.reached(List.of(P0), tp -> 10L)).isEqualTo(T0);
    }

    /** Answers {@code 0..last}, answer {@code i} at {@code T0 + i * EVERY} with end {@code i * GROWTH}. */
    private static TopicCurrency answeredUpTo(int last) {
        TopicCurrency currency = new TopicCurrency(LATER);
        for (int i = 0; i <= last; i++) {
            currency.answered(Map.of(P0, i * GROWTH), T0 + i * EVERY);
        }
        return currency;
    }

    private static long reachedAt(TopicCurrency currency, int answer) {
        return currency.reached(List.of(P0), tp -> answer * GROWTH);
    }

    @Test
    void aTopicAFewSecondsBehindIsCreditedWithTheExactAnswerItPassed() {
        TopicCurrency currency = answeredUpTo(240);
        assertThat(reachedAt(currency, 235)).isEqualTo(T0 + 235 * EVERY);
    }

    @Test
    void aTopicTenMinutesBehindIsCreditedToWithinAMinute() {
        TopicCurrency currency = answeredUpTo(240); // 20 minutes of answers
        long passed = T0 + 120 * EVERY; // its position is at the end of the answer 10 minutes before the last
        assertThat(reachedAt(currency, 120)).isBetween(passed - 60_000, passed);
    }

    @Test
    void aTopicMoreThanAnHourBehindIsNotCredited() {
        TopicCurrency currency = answeredUpTo(1_440); // two hours of answers
        assertThat(reachedAt(currency, 10)).isEqualTo(Positions.UNKNOWN);
    }

    @Test
    void nothingWrittenSinceCreditedOnlyWhenEveryPartitionIsBackAtItsCreditedEnd() {
        TopicCurrency currency = new TopicCurrency(LATER);
        List<TopicPartition> both = List.of(P0, P1);
        currency.answered(Map.of(P0, 5L, P1, 7L), T0);
        currency.reached(both, tp -> tp == P0 ? 5L : 7L);
        assertThat(currency.nothingWrittenSinceCredited(both))
                .as("never credited")
                .isFalse();
        currency.credit("users", both, T0);

        currency.answered(Map.of(P0, 5L, P1, 7L), T0 + 86_400_000L); // a day later, the same ends
        currency.reached(both, tp -> tp == P0 ? 5L : 7L);
        assertThat(currency.nothingWrittenSinceCredited(both)).isTrue();

        currency.answered(Map.of(P0, 5L, P1, 8L), T0 + 86_405_000L); // one record written to P1
        currency.reached(both, tp -> tp == P0 ? 5L : 8L);
        assertThat(currency.nothingWrittenSinceCredited(both)).as("P1 written").isFalse();

        currency.restart("users", both, T0 + 86_410_000L);
        assertThat(currency.nothingWrittenSinceCredited(both))
                .as("read again from the beginning")
                .isFalse();
    }

    @Test
    void aReadFromTheBeginningCountsAsSuchUntilCreditedOrInterrupted() {
        TopicCurrency currency = new TopicCurrency(LATER);
        currency.restart("users", List.of(P0), T0);
        assertThat(currency.readingFromBeginning("users")).isTrue();
        currency.credit("users", List.of(P0), T0 + EVERY);
        assertThat(currency.readingFromBeginning("users")).as("credited").isFalse();

        currency.restart("users", List.of(P0), T0 + 2 * EVERY);
        currency.interrupted("users");
        assertThat(currency.readingFromBeginning("users")).as("held up").isFalse();
        currency.restart("users", List.of(P0), T0 + 3 * EVERY);
        currency.allInterrupted();
        assertThat(currency.readingFromBeginning("users")).as("the broker away").isFalse();

        currency.restart("users", List.of(P0), T0 + 4 * EVERY); // rebuilt for that: its read counts, held up or not
        currency.rebuiltForGap("users");
        currency.interrupted("users");
        assertThat(currency.readingFromBeginning("users"))
                .as("a rebuild's read, held up too")
                .isTrue();
        currency.credit("users", List.of(P0), T0 + 5 * EVERY);
        assertThat(currency.readingFromBeginning("users")).as("credited").isFalse();
    }
}
