package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64 with seed 0 (the hash Chronicle Map calls {@code xx_r39}), over a byte array, allocation-free. Written from
 * the public XXH64 specification; checked against Chronicle's implementation in the writer's tests.
 */
final class Xxh64 {
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Xxh64() {}

    static long hash(byte[] b, int length) {
        int p = 0;
        long h;
        if (length >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            int limit = length - 32;
            do {
                v1 = round(v1, (long) LONGS.get(b, p));
                v2 = round(v2, (long) LONGS.get(b, p + 8));
                v3 = round(v3, (long) LONGS.get(b, p + 16));
                v4 = round(v4, (long) LONGS.get(b, p + 24));
                p += 32;
            } while (p <= limit);
            h = converge(v1, v2, v3, v4);
        } else {
            h = P5;
        }
        h += length;
        for (; p + 8 <= length; p += 8) {
            h = mixLong(h, (long) LONGS.get(b, p));
        }
        if (p + 4 <= length) {
            h = mixInt(h, (int) INTS.get(b, p) & 0xFFFFFFFFL);
            p += 4;
        }
        for (; p < length; p++) {
            h = mixByte(h, b[p] & 0xFFL);
        }
        return avalanche(h);
    }

    /**
     * What {@link #hashIfAscii} answers for a key that is not ASCII. An ASCII key whose hash happens to be this number
     * gets it too: a caller that sees it checks the key's chars ({@link KeyWords#isAscii}) before it takes it for
     * "not ASCII".
     */
    static final long NOT_ASCII = Long.MIN_VALUE;

    /**
     * The hash of an ASCII {@code key}'s bytes (its UTF-8 form), computed from its chars in place, with no buffer
     * written or read back, and the chars checked in the same pass: {@link #NOT_ASCII} when one of them is 0x80 or
     * above (such a key is encoded first).
     */
    static long hashIfAscii(String key) {
        int length = key.length();
        int p = 0;
        long words = 0; // the OR of every word: KeyWords.asciiWord makes a word with a char of 0x80 or above -1
        long h;
        if (length >= 32) {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            int limit = length - 32;
            do {
                long a = KeyWords.asciiWord(key, p, p + 8);
                long b = KeyWords.asciiWord(key, p + 8, p + 16);
                long c = KeyWords.asciiWord(key, p + 16, p + 24);
                long d = KeyWords.asciiWord(key, p + 24, p + 32);
                words |= a | b | c | d;
                v1 = round(v1, a);
                v2 = round(v2, b);
                v3 = round(v3, c);
                v4 = round(v4, d);
                p += 32;
            } while (p <= limit);
            h = converge(v1, v2, v3, v4);
        } else {
            h = P5;
        }
        h += length;
        for (; p + 8 <= length; p += 8) {
            long word = KeyWords.asciiWord(key, p, p + 8);
            words |= word;
            h = mixLong(h, word);
        }
        if (p + 4 <= length) {
            long word = KeyWords.asciiWord(key, p, p + 4);
            words |= word;
            h = mixInt(h, word);
            p += 4;
        }
        int chars = 0;
        for (; p < length; p++) {
            char c = key.charAt(p);
            chars |= c;
            h = mixByte(h, c & 0xFFL);
        }
        return words >= 0 && chars < 0x80 ? avalanche(h) : NOT_ASCII;
    }

    /**
     * The hash of a key of {@code length} bytes (0 to 16) given as two little-endian words: bytes 0-7 in {@code w0},
     * 8-15 in {@code w1}; bytes past the length must be 0.
     */
    static long hashShort(long w0, long w1, int length) {
        long h = P5 + length;
        long word = w0;
        int rest = length;
        if (rest >= 8) {
            h = mixLong(h, w0);
            word = w1;
            rest -= 8;
            if (rest == 8) {
                h = mixLong(h, w1);
                rest = 0;
            }
        }
        if (rest >= 4) {
            h = mixInt(h, word & 0xFFFFFFFFL);
            word >>>= 32;
            rest -= 4;
        }
        // at most 3 bytes are left: straight-line code, no loop (this sits on every short-key lookup)
        if (rest > 0) {
            h = mixByte(h, word & 0xFF);
            if (rest > 1) {
                h = mixByte(h, (word >>> 8) & 0xFF);
                if (rest > 2) {
                    h = mixByte(h, (word >>> 16) & 0xFF);
                }
            }
        }
        return avalanche(h);
    }

    /** Chars {@code p..p+count-1} of {@code s} (count 1 to 8) as the little-endian number of their low bytes. */
    static long lowBytes(String s, int p, int count) {
        long word = 0;
        for (int i = count - 1; i >= 0; i--) {
            word = (word << 8) | (s.charAt(p + i) & 0xFF);
        }
        return word;
    }

    private static long converge(long v1, long v2, long v3, long v4) {
        long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        h = merge(h, v1);
        h = merge(h, v2);
        h = merge(h, v3);
        return merge(h, v4);
    }

    private static long mixLong(long h, long word) {
        h ^= round(0, word);
        return Long.rotateLeft(h, 27) * P1 + P4;
    }

    private static long mixInt(long h, long word) {
        h ^= word * P1;
        return Long.rotateLeft(h, 23) * P2 + P3;
    }

    private static long mixByte(long h, long b) {
        h ^= b * P5;
        return Long.rotateLeft(h, 11) * P1;
    }

    private static long avalanche(long h) {
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long round(long acc, long input) {
        acc += input * P2;
        acc = Long.rotateLeft(acc, 31);
        return acc * P1;
    }

    private static long merge(long h, long v) {
        h ^= round(0, v);
        return h * P1 + P4;
    }
}
