package io.sharedlookup.internal.store;

/**
 * Where an extra tier of a map file lies for a reader: in which window (one read-only mapping) and at which offset in
 * it. A {@code ByteBuffer} addresses at most 2 GiB, while Chronicle makes a bulk of extra tiers as large as
 * {@code tiersInBulk x tierSize} (past 2 GiB for large namespaces), so bulks are mapped in windows of whole tiers, as
 * the first tiers are: no tier straddles two windows, and every window lies within one bulk.
 *
 * <p>A window holds a power of two of tiers, which divides the bulk's (also a power of two): the extra tier
 * {@code e} (0-based, counted from the first extra tier) is then in window {@code e >> shift} and at
 * {@code (e & mask) * tierSize} in it, a shift and a mask on the lookup path. File offsets are {@code long}s.
 */
final class TierWindows {
    /** The largest window, as for the first tiers: well under what a {@code ByteBuffer} can address. */
    static final long WINDOW_BYTES = 1L << 30;

    /** The windows of {@code layout}'s extra tiers, each at most {@link #WINDOW_BYTES}. */
    static TierWindows of(MapLayout layout) {
        return of(layout, WINDOW_BYTES);
    }

    /**
     * The windows of {@code layout}'s extra tiers, each at most {@code windowBytes} (which a tier must fit: MapLayout
     * refuses a tier over 1 GiB, and an offset within a window must be an {@code int}).
     */
    static TierWindows of(MapLayout layout, long windowBytes) {
        if (layout.tierSize() > windowBytes) {
            throw new IllegalArgumentException(
                    "a tier of " + layout.tierSize() + " bytes does not fit a window of " + windowBytes);
        }
        long tiers = Long.highestOneBit(Math.min(layout.tiersInBulk(), windowBytes / layout.tierSize()));
        return new TierWindows(layout, tiers);
    }

    private final long baseSize;
    private final long tierBulkSize;
    private final long tierBulkInnerOffset;
    private final long tierSize;
    /** Tiers in one window: a power of two dividing the tiers of a bulk. */
    private final long tiersPerWindow;

    private final long windowsPerBulk;
    private final int shift;
    private final long mask;

    private TierWindows(MapLayout layout, long tiersPerWindow) {
        this.baseSize = layout.baseSize();
        this.tierBulkSize = layout.tierBulkSize();
        this.tierBulkInnerOffset = layout.tierBulkInnerOffset();
        this.tierSize = layout.tierSize();
        this.tiersPerWindow = tiersPerWindow;
        this.windowsPerBulk = layout.tiersInBulk() / tiersPerWindow;
        this.shift = Long.numberOfTrailingZeros(tiersPerWindow);
        this.mask = tiersPerWindow - 1;
    }

    /** The window holding extra tier {@code extra} (0-based; at most {@code maxExtraTiers}, an int). */
    int windowOf(long extra) {
        return (int) (extra >>> shift);
    }

    /** The offset of extra tier {@code extra} within its window. */
    int offsetInWindow(long extra) {
        return (int) ((extra & mask) * tierSize);
    }

    /** Where window {@code window} starts in the file. */
    long fileOffset(int window) {
        long bulk = window / windowsPerBulk;
        long inBulk = window % windowsPerBulk;
        return baseSize + bulk * tierBulkSize + tierBulkInnerOffset + inBulk * tiersPerWindow * tierSize;
    }

    /** Tiers in one window. */
    long tiersPerWindow() {
        return tiersPerWindow;
    }

    /** Bytes of a window: whole tiers. */
    long windowBytes() {
        return tiersPerWindow * tierSize;
    }
}
