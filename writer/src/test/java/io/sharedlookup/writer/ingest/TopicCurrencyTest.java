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

    /** Answers {@code 0..last}, answer {@code i} at {@code T0 + i * EVERY} with end {@code i * GROWTH}. */
    private static TopicCurrency answeredUpTo(int last) {
        TopicCurrency currency = new TopicCurrency();
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
        TopicCurrency currency = new TopicCurrency();
        List<TopicPartition> both = List.of(P0, P1);
        currency.answered(Map.of(P0, 5L, P1, 7L), T0);
        currency.reached(both, tp -> tp == P0 ? 5L : 7L);
        assertThat(currency.nothingWrittenSinceCredited(both)).as("never credited").isFalse();
        currency.credit("users", both, T0);

        currency.answered(Map.of(P0, 5L, P1, 7L), T0 + 86_400_000L); // a day later, the same ends
        currency.reached(both, tp -> tp == P0 ? 5L : 7L);
        assertThat(currency.nothingWrittenSinceCredited(both)).isTrue();

        currency.answered(Map.of(P0, 5L, P1, 8L), T0 + 86_405_000L); // one record written to P1
        currency.reached(both, tp -> tp == P0 ? 5L : 8L);
        assertThat(currency.nothingWrittenSinceCredited(both)).as("P1 written").isFalse();

        currency.restart("users", both, T0 + 86_410_000L);
        assertThat(currency.nothingWrittenSinceCredited(both)).as("read again from the beginning").isFalse();
    }

    @Test
    void aReadFromTheBeginningCountsAsSuchUntilCreditedOrInterrupted() {
        TopicCurrency currency = new TopicCurrency();
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
        assertThat(currency.readingFromBeginning("users")).as("a rebuild's read, held up too").isTrue();
        currency.credit("users", List.of(P0), T0 + 5 * EVERY);
        assertThat(currency.readingFromBeginning("users")).as("credited").isFalse();
    }
}
