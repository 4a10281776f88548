package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KeyWordsTest {
    @Test
    void aKeyBufferHoldsThreeBytesPerCharAndAWordToSpare() {
        assertThat(KeyWords.room(null, 100).length).isGreaterThanOrEqualTo(3 * 100 + 8);
        byte[] small = KeyWords.room(null, 4);
        assertThat(KeyWords.room(small, 4)).isSameAs(small);
    }

    /** 3 x 800M chars overflowed an int: the buffer came back small and encoding threw ArrayIndexOutOfBounds. */
    @Test
    void aKeyLongerThanAnyArrayCanEncodeIsRefusedInOneLine() {
        assertThatThrownBy(() -> KeyWords.room(new byte[16], 800_000_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a key of 800000000 chars is longer than any key a store can hold");
    }

    @Test
    void aBufferGrownForOneHugeKeyIsNotKept() {
        byte[] huge = KeyWords.room(null, 1_000_000);
        assertThat(KeyWords.trimmed(huge).length).isLessThanOrEqualTo(KeyWords.RETAINED_BYTES);
        byte[] usual = KeyWords.room(null, 200);
        assertThat(KeyWords.trimmed(usual)).isSameAs(usual);
    }
}
