package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.*;

/**
 * How full a generation is.
 *
 * @param entries              entries now in the map
 * @param capacity             the {@code entries()} it was sized for
 * @param percentageFreeSpace  Chronicle's estimate of free space in the allocated tiers
 * @param remainingAutoResizes extra segment tiers Chronicle may still allocate
 */
public record Fill(long entries, long capacity, int percentageFreeSpace, int remainingAutoResizes) {
    /** A generation is replaced by a bigger one at this fill ratio, far below Chronicle's hard limit. */
    public static final double GROW_AT = 0.75;

    public double ratio() {
        return capacity == 0 ? 1.0 : (double) entries / capacity;
    }

    public boolean needsGrowth() {
        return ratio() >= GROW_AT;
    }
}
