package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.*;

/**
 * How big a generation file is made. Chronicle Map cannot grow past what its header allows (about 2.2 x
 * {@code entries} with {@code maxBloatFactor} 1.0, "Attempt to allocate #33 extra segment tier" after that), so the
 * writer sizes every generation with headroom and builds a bigger one when {@link Fill#needsGrowth()} says so, long
 * before that limit.
 *
 * @param entries           Chronicle's {@code entries()}: the capacity the fill ratio is measured against
 * @param averageKeyBytes   average UTF-8 key size, from samples
 * @param averageValueBytes average UTF-8 value size, from samples
 * @param maxBloatFactor    extra room Chronicle may take beyond {@code entries} before refusing puts
 * @param largestEntryBytes UTF-8 key plus value bytes of the largest entry the generation must take, or 0 for no
 *                          demand beyond the averages. Chronicle limits an entry to one segment tier, whose size
 *                          follows from the averages: a copy of a generation whose averages many small updates pulled
 *                          down must still take the largest value stored, or it would drop it.
 */
public record GenerationSizing(
        long entries, double averageKeyBytes, double averageValueBytes, double maxBloatFactor, long largestEntryBytes) {
    /** Expected entries are multiplied by this. */
    public static final double HEADROOM = 1.5;
    /** No generation is smaller than this. */
    public static final long MIN_ENTRIES = 1024;
    /** Chronicle accepts up to about 2.2 x entries at 1.0; 2.0 leaves room for bursts while a bigger one is built. */
    public static final double MAX_BLOAT_FACTOR = 2.0;

    static final double DEFAULT_KEY_BYTES = 16;
    static final double DEFAULT_VALUE_BYTES = 32;

    public GenerationSizing {
        if (entries < 1) {
            throw new IllegalArgumentException("entries must be positive: " + entries);
        }
        averageKeyBytes = sane(averageKeyBytes, DEFAULT_KEY_BYTES);
        averageValueBytes = sane(averageValueBytes, DEFAULT_VALUE_BYTES);
        largestEntryBytes = Math.max(0, largestEntryBytes);
    }

    /** A sizing with no demand on the largest entry beyond what the averages give. */
    public GenerationSizing(long entries, double averageKeyBytes, double averageValueBytes, double maxBloatFactor) {
        this(entries, averageKeyBytes, averageValueBytes, maxBloatFactor, 0);
    }

    /** The same sizing, made to take entries of up to {@code bytes} (UTF-8 key plus value) as well. */
    public GenerationSizing withLargestEntry(long bytes) {
        return bytes <= largestEntryBytes
                ? this
                : new GenerationSizing(entries, averageKeyBytes, averageValueBytes, maxBloatFactor, bytes);
    }

    private static double sane(double sampled, double fallback) {
        return Double.isFinite(sampled) && sampled > 0 ? Math.max(1, sampled) : fallback;
    }

    /**
     * Sizing for a namespace expected to hold about {@code expectedEntries} (for Kafka: the sum of
     * {@code endOffset - beginningOffset}, an upper bound on distinct keys), with sampled average sizes; non-positive
     * averages fall back to defaults.
     */
    public static GenerationSizing forExpected(long expectedEntries, double averageKeyBytes, double averageValueBytes) {
        long entries = Math.max(MIN_ENTRIES, (long) Math.ceil(Math.max(0, expectedEntries) * HEADROOM));
        return new GenerationSizing(entries, averageKeyBytes, averageValueBytes, MAX_BLOAT_FACTOR);
    }

    /** Sizing for the generation that replaces one holding {@code currentEntries}: double, with headroom. */
    public GenerationSizing grownFor(long currentEntries, double sampledKeyBytes, double sampledValueBytes) {
        return grownFor(currentEntries, sampledKeyBytes, sampledValueBytes, 0);
    }

    /**
     * Like {@link #grownFor(long, double, double)}, for a generation that must take entries of up to
     * {@code largestStoredBytes} (and of up to this sizing's own largest): the averages alone may make its tiers
     * too small for a value already stored.
     */
    public GenerationSizing grownFor(
            long currentEntries, double sampledKeyBytes, double sampledValueBytes, long largestStoredBytes) {
        long next = Math.max(entries * 2, (long) Math.ceil(currentEntries * HEADROOM * 2));
        return new GenerationSizing(
                next,
                sampledKeyBytes,
                sampledValueBytes,
                maxBloatFactor,
                Math.max(largestEntryBytes, largestStoredBytes));
    }
}
