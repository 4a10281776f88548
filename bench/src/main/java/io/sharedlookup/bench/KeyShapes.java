package io.sharedlookup.bench;

import java.util.UUID;

/**
 * The ids and values of the lookup matrix ({@link LookupBenchmark}, {@link DruidQueryBenchmark}): the key shapes users
 * have, and values of a chosen size. Entry {@code i} is the same in every JVM (the feed that fills the broker, the
 * benchmark's heap map), so no data set is shipped. JDK only: {@link LookupStoreFeed} runs it on the demo jar.
 */
enum KeyShapes {
    /** {@code 1000000+i}: 7 digits up to 9M entries (the top million of a 10M store has 8). */
    NUMERIC7("numeric7"),
    /** {@code acct-00012345-xyzw}: 18 ASCII chars, a fixed prefix, the number, four letters that vary with it. */
    ASCII20("ascii20"),
    /** A 36-char UUID, random-looking but a pure function of {@code i}. */
    UUID36("uuid"),
    /** 10–20 chars of Cyrillic (even {@code i}) or CJK (odd {@code i}): 2 or 3 bytes each in UTF-8. */
    NON_ASCII("nonascii"),
    /** {@link #ASCII20}'s ids passed as {@code StringBuilder}s: the {@code CharSequence} path of the read API. */
    BUILDER("builder");

    final String param;

    KeyShapes(String param) {
        this.param = param;
    }

    /** The shape a JMH {@code @Param} names; a clear error for a name it does not know. */
    static KeyShapes of(String param) {
        for (KeyShapes shape : values()) {
            if (shape.param.equals(param)) {
                return shape;
            }
        }
        throw new IllegalArgumentException(
                "unknown key shape '" + param + "': use one of numeric7, ascii20, uuid, nonascii, builder");
    }

    /** The shape whose stored data this one reads: {@link #BUILDER} reads {@link #ASCII20}'s store. */
    KeyShapes data() {
        return this == BUILDER ? ASCII20 : this;
    }

    /** Entry {@code i}'s id as chars (callers make their own {@code String} or {@code StringBuilder} of them). */
    char[] keyChars(int i) {
        return key(i).toCharArray();
    }

    /** Entry {@code i}'s id. */
    String key(int i) {
        return switch (data()) {
            case NUMERIC7 -> Integer.toString(1_000_000 + i);
            case ASCII20 -> ascii20(i);
            case UUID36 ->
                new UUID(mix(i) & ~0xF000L | 0x4000L, mix(~i) & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L).toString();
            case NON_ASCII -> nonAscii(i);
            default -> throw new AssertionError(this);
        };
    }

    /**
     * Entry {@code i}'s value: {@code "#i "} then text, cut to exactly {@code bytes} ASCII chars (so {@code bytes}
     * bytes in UTF-8). 10 B holds {@code #} and up to 8 digits, every id of a 10M store.
     */
    static String value(int i, int bytes) {
        StringBuilder v = new StringBuilder(bytes + 40).append('#').append(i).append(' ');
        while (v.length() < bytes) {
            v.append("Customer ").append(i).append(" of region ").append(i % 97).append("; ");
        }
        if (v.length() < bytes || bytes < 10) {
            throw new IllegalArgumentException(
                    "value size " + bytes + " B: use at least 10 (the benchmark uses " + "10, 40, 200 and 2000)");
        }
        v.setLength(bytes);
        return v.toString();
    }

    /**
     * Five base-32 digits of {@code i} (unique below 33M) in the script's alphabet, after 5–15 filler chars that vary
     * with {@code i}: 10–20 chars in all.
     */
    private static String nonAscii(int i) {
        boolean cyrillic = (i & 1) == 0;
        char base = cyrillic ? '\u0410' : '\u4E00'; // А..Я and the first CJK unified ideographs
        long h = mix(i);
        int filler = 5 + (int) Long.remainderUnsigned(h, 11);
        StringBuilder s = new StringBuilder(20);
        for (int k = 0; k < filler; k++) {
            s.append((char) (base + (int) ((h >>> (k * 4)) & 31)));
        }
        for (int d = 4; d >= 0; d--) {
            s.append((char) (base + ((i >>> (d * 5)) & 31)));
        }
        return s.toString();
    }

    /** {@code acct-%08d-xyzw} without {@code String.format}, which would take most of a 10M-key setup. */
    private static String ascii20(int i) {
        char[] c = "acct-00000000-".concat("    ").toCharArray();
        for (int k = 12, n = i; k >= 5; k--, n /= 10) {
            c[k] = (char) ('0' + n % 10);
        }
        long h = mix(i);
        for (int k = 0; k < 4; k++) {
            c[14 + k] = (char) ('a' + (int) Long.remainderUnsigned(h >>> (k * 8), 26));
        }
        return new String(c);
    }

    /** SplitMix64's finaliser: well spread bits from a counter. */
    private static long mix(long x) {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
