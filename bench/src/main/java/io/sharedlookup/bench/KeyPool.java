package io.sharedlookup.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;

/**
 * The keys a benchmark passes to every lookup, made as a query passes them: each its own object with its own char
 * data, never sharing the stored key's bytes or its cached hash.
 *
 * <p>One key per entry is built before measuring, from a fresh {@code char[]} ({@code String.valueOf(char[])}, or a
 * {@code StringBuilder} for the {@link KeyShapes#BUILDER} shape): {@code new String(String)} would share the map key's
 * bytes and cached hash. A {@code String} caches its hash at its first {@code hashCode()}, so a pool reused for millions
 * of calls would soon hand {@code ConcurrentHashMap.get} pre-hashed keys, while a key fresh from a query is never
 * hashed (reader-lib hashes the chars itself and never reads the cached hash). JMH's average-time mode cannot make a new
 * key per call outside the measured region, so {@link #next} clears the key's cached hash field (a plain store into the
 * object the lookup reads next anyway, the same cost for every benchmark): every {@code get} hashes the chars, as it
 * would for a key from a query. This needs {@code --add-opens=java.base/java.lang=ALL-UNNAMED}, which the benchmark's
 * forks have (Chronicle Map needs it too).
 */
final class KeyPool {
    private static final VarHandle STRING_HASH = stringHash();

    private final CharSequence[] keys;

    /** One fresh key per entry {@code 0..entries-1} of {@code shape}. */
    KeyPool(KeyShapes shape, int entries) {
        keys = new CharSequence[entries];
        for (int i = 0; i < entries; i++) {
            char[] chars = shape.keyChars(i);
            keys[i] =
                    shape == KeyShapes.BUILDER ? new StringBuilder(chars.length).append(chars) : String.valueOf(chars);
        }
    }

    /** A random key with no cached hash. */
    CharSequence next(SplittableRandom random) {
        CharSequence key = keys[random.nextInt(keys.length)];
        if (key instanceof String s) {
            STRING_HASH.set(s, 0);
        }
        return key;
    }

    /** The key as a map's {@code get} takes it: a {@code String}, made as a caller holding a builder would. */
    static String asString(CharSequence key) {
        return key instanceof String s ? s : key.toString();
    }

    private static VarHandle stringHash() {
        try {
            return MethodHandles.privateLookupIn(String.class, MethodHandles.lookup())
                    .findVarHandle(String.class, "hash", int.class);
        } catch (ReflectiveOperationException | IllegalAccessError e) {
            throw new IllegalStateException(
                    "cannot clear String's cached hash between lookups: run the benchmark "
                            + "JVM with --add-opens=java.base/java.lang=ALL-UNNAMED (LookupBenchmark's forks have it)",
                    e);
        }
    }
}
