package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The single-threaded contract of {@link SequenceProtocol}; jcstress/ checks it under races. */
class SequenceProtocolTest {
    private final ByteBuffer counters = ByteBuffer.allocateDirect(3 * SequenceFile.STRIDE + 64)
            .alignedSlice(64)
            .order(ByteOrder.LITTLE_ENDIAN);

    @Test
    void aChange_makesTheCounterOddThenTheNextEven_atItsSegmentsOffsetOnly() {
        SequenceProtocol.beginChange(counters, 1);
        assertThat(counters.getLong(SequenceFile.STRIDE)).isEqualTo(1);
        assertThat(SequenceProtocol.inChange(SequenceProtocol.readBegin(counters, 1)))
                .isTrue();
        SequenceProtocol.endChange(counters, 1);
        assertThat(SequenceProtocol.current(counters, 1)).isEqualTo(2);
        assertThat(counters.getLong(0)).as("segment 0").isZero();
        assertThat(counters.getLong(2 * SequenceFile.STRIDE)).as("segment 2").isZero();
    }

    @Test
    void aRead_validatesOnlyWhenItBeganEvenAndNoChangeBeganSince() {
        long before = SequenceProtocol.readBegin(counters, 0);
        assertThat(SequenceProtocol.readValidate(counters, 0, before)).isTrue();

        SequenceProtocol.beginChange(counters, 0);
        assertThat(SequenceProtocol.readValidate(counters, 0, before))
                .as("a change began")
                .isFalse();
        long odd = SequenceProtocol.readBegin(counters, 0);
        assertThat(SequenceProtocol.readValidate(counters, 0, odd))
                .as("began in the middle")
                .isFalse();

        SequenceProtocol.endChange(counters, 0);
        assertThat(SequenceProtocol.readValidate(counters, 0, before))
                .as("a whole change happened")
                .isFalse();
        assertThat(SequenceProtocol.readValidate(counters, 0, SequenceProtocol.readBegin(counters, 0)))
                .isTrue();
    }

    @Test
    void endChange_afterAPowerLossLeftTheCounterOdd_movesItToTheNextEven() {
        counters.putLong(0, 7);
        SequenceProtocol.endChange(counters, 0);
        assertThat(SequenceProtocol.current(counters, 0)).isEqualTo(8);
    }
}
