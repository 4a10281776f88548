package io.sharedlookup.internal.store;

/**
 * The key hash of the {@link MapLayout.KeyHash#STRING} encoding: the key's {@link String#hashCode()} spread over 64
 * bits. A reader hashes a {@code String} key from the hash the {@code String} already caches, so the first read of
 * the file does not wait for the key's chars to be read and hashed; the writer hashes every key it stores the same way
 * (its key access in the writer module calls {@link #of(CharSequence)}).
 *
 * <p>{@code String.hashCode()} is specified ({@code s[0]*31^(n-1) + … + s[n-1]} over the UTF-16 chars, in 32-bit
 * arithmetic), so the hash is the same in every JVM and easy to compute outside Java. Its 32 bits are spread by two
 * multiply-xorshift rounds, so that the low bits (the segment) and the bits above them (the hash-lookup slot) both
 * depend on all 32; keys whose {@code hashCode()} collide share a slot key, and Chronicle's probing tells them apart
 * by their bytes.
 */
public final class StringKeyHash {
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xBF58476D1CE4E5B9L;

    private StringKeyHash() {
    }

    /** The hash of {@code key}, a {@code String} or any other {@code CharSequence} of the same chars. */
    public static long of(CharSequence key) {
        if (key instanceof String) {
            return spread(key.hashCode());
        }
        int h = 0;
        for (int i = 0, n = key.length(); i < n; i++) {
            h = 31 * h + key.charAt(i);
        }
        return spread(h);
    }

    /** The hash of a {@code String} key: what {@link #of(CharSequence)} gives, from its cached hash code. */
    static long of(String key) {
        return spread(key.hashCode());
    }

    /** Spreads a 32-bit hash code over 64 bits: a bijection of the unsigned value, every output bit mixed. */
    static long spread(int hashCode) {
        long x = (hashCode & 0xFFFFFFFFL) * M1;
        x ^= x >>> 32;
        x *= M2;
        return x ^ (x >>> 29);
    }
}
