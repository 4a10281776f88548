package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class StringKeyHashTest {

    @Property
    void aCharSequenceHashesLikeTheStringOfItsChars(@ForAll String key) {
        assertThat(StringKeyHash.of(new StringBuilder(key))).isEqualTo(StringKeyHash.of(key))
                .isEqualTo(StringKeyHash.of((CharSequence) key));
    }

    @Test
    void theHashIsPinned() {
        // Readers and writers of any release (and of any language) must agree: these values are the format.
        assertThat(StringKeyHash.of("")).isEqualTo(StringKeyHash.spread(0));
        assertThat(StringKeyHash.spread(0)).isZero();
        assertThat(StringKeyHash.of("1000000")).isEqualTo(0x9999c0e7693d6454L);
        assertThat(StringKeyHash.spread(1)).isEqualTo(0xaa1edc39f66d14a9L);
        assertThat(Long.toHexString(StringKeyHash.spread(1))).isEqualTo(expected(1));
        assertThat(Long.toHexString(StringKeyHash.spread(-1))).isEqualTo(expected(-1));
    }

    /** The spread written out from its definition in docs/store-format.md, independently of the code. */
    private static String expected(int hashCode) {
        java.math.BigInteger mod = java.math.BigInteger.ONE.shiftLeft(64);
        java.math.BigInteger x = java.math.BigInteger.valueOf(Integer.toUnsignedLong(hashCode))
                .multiply(new java.math.BigInteger("9E3779B97F4A7C15", 16)).mod(mod);
        x = x.xor(x.shiftRight(32));
        x = x.multiply(new java.math.BigInteger("BF58476D1CE4E5B9", 16)).mod(mod);
        x = x.xor(x.shiftRight(29));
        return x.toString(16);
    }

    @Test
    void numericIds_spreadEvenlyOverSegmentsAndSlotKeys() {
        // Sequential ids have String hash codes that differ in few bits: the spread must still fill every segment
        // evenly (the low bits) and give distinct slot keys (the bits above them).
        int segments = 256;
        int keys = 200_000;
        int[] perSegment = new int[segments];
        Set<Long> slotKeys = new HashSet<>();
        for (int i = 0; i < keys; i++) {
            long hash = StringKeyHash.of(Integer.toString(1_000_000 + i));
            perSegment[(int) hash & (segments - 1)]++;
            slotKeys.add(hash >>> 8 & ((1L << 32) - 1));
        }
        double mean = (double) keys / segments;
        for (int count : perSegment) {
            assertThat((double) count).isBetween(mean * 0.85, mean * 1.15);
        }
        assertThat(slotKeys).hasSizeGreaterThan(keys - 20);
    }
}
