package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.MapLayout;

/**
 * How many extra tiers one parallel pass's puts can take between them, at most: what decides whether they may run
 * together ({@link io.sharedlookup.writer.store.GenerationFile#sharePuts}). Counted on the ingest thread as the pass's
 * records are handed out.
 *
 * <p>A put takes a new tier only when no tier of its segment has room for the entry, and an entry fits in one tier, so
 * a pass takes at most one tier per record. Far fewer in practice: when every segment's records of the pass fit in one
 * empty tier (their chunks, counted for the longest UTF-8 encoding, and a quarter of its hash slots: Chronicle fills a
 * tier's hash lookup to at least a third, whether it stops at its load factor or at the entries a segment was sized
 * for), a segment that takes a fresh tier puts the rest of the pass's records there, so the pass takes at most one tier
 * per segment it touches. Removals are counted as puts (they need no room): the bound only errs high. A key whose
 * segment may be other than computed (a char outside the BMP) counts one tier per record.
 */
final class PassTiers {
    /** Chronicle's size prefixes of a key and a value: stop-bit numbers of up to 5 bytes each. */
    private static final int SIZE_PREFIXES = 10;

    private final MapLayout layout;
    private final long[] chunks;
    private final int[] records;
    private int touched;
    private int total;
    private boolean overOneTier;

    PassTiers(MapLayout layout) {
        this.layout = layout;
        this.chunks = new long[layout.segments()];
        this.records = new int[layout.segments()];
    }

    /** One record of the pass, put into {@code segment} (a removal needs no room, but is counted alike). */
    void add(int segment, String key, String value) {
        long bytes = 3L * key.length() + (value == null ? 0 : 3L * value.length()) + SIZE_PREFIXES;
        chunks[segment] += (bytes + layout.chunkSize() - 1) / layout.chunkSize();
        if (records[segment]++ == 0) {
            touched++;
        }
        total++;
        if (chunks[segment] > layout.chunksPerTier()
                || records[segment] > layout.hashLookupCapacity() / 4
                || hasSurrogate(key)) {
            overOneTier = true;
        }
    }

    /** A char outside the BMP: Chronicle may put such a key in another segment than computed ({@code KeySegments}). */
    private static boolean hasSurrogate(String key) {
        for (int i = 0; i < key.length(); i++) {
            if (Character.isSurrogate(key.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /** The most extra tiers the pass's puts can take. */
    long atMost() {
        return overOneTier ? total : touched;
    }
}
