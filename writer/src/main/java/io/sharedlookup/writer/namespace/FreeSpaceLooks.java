package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.store.GenerationFile;

/**
 * Whether a generation runs low on Chronicle's free space, asked at most every {@link #FREE_SPACE_CHECK_NANOS} and
 * never for more than 1/{@link #LOOK_COST_FACTOR} of the writer's time: entries
 * larger than sampled use up bytes before the entry count says so, and growth must start before a put finds no room.
 */
final class FreeSpaceLooks {
    /**
     * Chronicle's free space (percent) below which a generation is replaced even though its entry count is low: when
     * entries are larger than sampled, bytes run out first (seen: full at 0.39 x entries() with values 25x the
     * sampled size). It fluctuates as tiers are added, so this only catches most cases early; a put that still
     * fails for lack of a tier triggers growth and is retried.
     */
    private static final int LOW_FREE_SPACE = 20;
    /**
     * Chronicle computes its free space by counting the allocation bitmap of every segment: the cost grows with the
     * map (it was half of the writer's bootstrap time at 1M entries when asked every 64 records). Asked at most this
     * often instead; a put that still finds no room triggers growth by itself.
     */
    private static final long FREE_SPACE_CHECK_NANOS = 250_000_000L;
    /**
     * A look may take at most this share of the writer's time: the next look waits this many times as long as the last
     * one took, when that is longer than {@link #FREE_SPACE_CHECK_NANOS}. A fixed period was not enough: at 10M entries
     * a look took ~40 ms, 15 % of a bootstrap's ingest thread (async-profiler, docs/benchmarks.md section 11), and it
     * grows with the map while the period does not.
     */
    static final int LOOK_COST_FACTOR = 50;

    private long nextFreeSpaceCheck = System.nanoTime();
    /** The generation {@link #low} last looked at, and what it found. */
    private GenerationFile lookedAtFreeSpaceOf;

    private boolean lowAtLastLook;

    /** Chronicle's free space is below {@link #LOW_FREE_SPACE}; false when asked again too soon. */
    boolean low(GenerationFile t) {
        long now = System.nanoTime();
        if (now - nextFreeSpaceCheck < 0) {
            return false;
        }
        lookedAtFreeSpaceOf = t;
        lowAtLastLook = t.fill().percentageFreeSpace() < LOW_FREE_SPACE;
        long after = System.nanoTime();
        nextFreeSpaceCheck = after + pauseAfterLook(after - now);
        return lowAtLastLook;
    }

    /** How long to wait before the next look, after one that took {@code lookNanos}. */
    static long pauseAfterLook(long lookNanos) {
        return Math.max(FREE_SPACE_CHECK_NANOS, Math.max(0, lookNanos) * LOOK_COST_FACTOR);
    }

    /**
     * Before a parallel pass (which skips the ingest thread's per-record check): whether {@code t} is low now (looked
     * at when a look is due) or was at the last look. A look that finds it low is not spent: the next {@link #low}
     * looks again, so that the check of the records then applied one by one grows the generation.
     */
    boolean lowBeforePass(GenerationFile t) {
        if (low(t)) {
            nextFreeSpaceCheck = System.nanoTime();
            return true;
        }
        return lookedAtFreeSpaceOf == t && lowAtLastLook;
    }

    /**
     * Whether the last real look at free space was at {@code t} and found room: {@link #low} answers false
     * when asked too soon, which must not be taken for "no growth needed".
     */
    boolean roomyAtLastLook(GenerationFile t) {
        return lookedAtFreeSpaceOf == t && !lowAtLastLook;
    }
}
