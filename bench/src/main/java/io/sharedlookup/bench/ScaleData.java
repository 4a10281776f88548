package io.sharedlookup.bench;

import java.nio.charset.StandardCharsets;

/**
 * The scale part's records ({@link ScaleHarness}): key {@code i} is {@code "user-"} and {@code i} in 15 zero-padded
 * digits (20 characters), its value {@code "name-<i> "} padded with letters drawn from {@code i}'s hash to 36–44
 * bytes (40 on average), so that keys and values are as long as the ("~20-char keys, ~40-byte values") and
 * values do not compress to nothing. All ASCII: bytes and characters are the same count.
 */
final class ScaleData {
    static final int KEY_LENGTH = 20;
    private static final char[] LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".toCharArray();

    private ScaleData() {}

    static String key(long i) {
        return new String(keyBytes(i), StandardCharsets.US_ASCII);
    }

    /** The key's bytes, written without formatting (the feed makes 100M of them). */
    static byte[] keyBytes(long i) {
        byte[] out = new byte[KEY_LENGTH];
        out[0] = 'u';
        out[1] = 's';
        out[2] = 'e';
        out[3] = 'r';
        out[4] = '-';
        long v = i;
        for (int p = KEY_LENGTH - 1; p >= 5; p--) {
            out[p] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return out;
    }

    static String value(long i) {
        return new String(valueBytes(i), StandardCharsets.US_ASCII);
    }

    static byte[] valueBytes(long i) {
        byte[] head = ("name-" + i + " ").getBytes(StandardCharsets.US_ASCII);
        long h = mix(i);
        int length = 36 + (int) Long.remainderUnsigned(h, 9);
        byte[] out = new byte[Math.max(length, head.length)];
        System.arraycopy(head, 0, out, 0, head.length);
        for (int p = head.length; p < out.length; p++) {
            h = mix(h + p);
            out[p] = (byte) LETTERS[(int) Long.remainderUnsigned(h, LETTERS.length)];
        }
        return out;
    }

    /** SplitMix64's finaliser: a cheap, well-spread hash of {@code x}. */
    private static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
