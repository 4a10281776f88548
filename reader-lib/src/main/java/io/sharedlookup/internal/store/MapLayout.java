package io.sharedlookup.internal.store;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a reader needs to read one of the writer's Chronicle Map files without Chronicle (store format version 2).
 * The writer takes it from the map it created and publishes it in the manifest; the reader trusts nothing else about
 * the file and checks every offset it derives against the file's size.
 *
 * <p>File layout (all offsets in bytes from the start of the file, little-endian):
 * <pre>
 * [0, segmentHeadersOffset)            Chronicle's self-describing header and global state: never read
 * segmentHeadersOffset + s * segmentHeaderSize    segment s's header: entries (u32 at +8), next tier (i64 at +16),
 *                                                 deleted (u32 at +24)            ({@link #segmentHeaderOffset})
 * segmentsOffset + s * tierSize        segment s's first tier = tier s + 1         ({@link #firstTierOffset})
 * baseSize + b * tierBulkSize          extra tier bulk b (appended when a segment overflows), tiersInBulk tiers each
 *                                      after tierBulkInnerOffset bytes; tier segments + 1 + e is extra tier e
 * </pre>
 * A tier ({@code tierSize} bytes; offsets from its start, its <em>base</em>):
 * <pre>
 * 0                                    hash lookup: hashLookupCapacity slots of slotSize bytes, each
 *                                      key | chunk &lt;&lt; keyBits, 0 = empty; linear probing from
 *                                      slotKeyOf(hash) &amp; (hashLookupCapacity - 1)
 * countersOffset                       tier counters: next tier (i64 at +0), entries (u32 at +32), deleted (u32 at +36)
 * entrySpaceOffset + chunk * chunkSize an entry (chunk &lt; chunksPerTier; {@link #entryOffset}):
 *                                      [stop-bit key size][key bytes][stop-bit value size][value bytes]
 *                                      (then, in files written with entry checksums, a checksum readers ignore)
 * </pre>
 * A stop-bit size is 7 bits per byte, low bits first, the high bit set on every byte but the last (a size under 128 is
 * one byte). Text is Chronicle's per-char UTF-8 (a surrogate is three bytes). A key's hash is XXH64 (seed 0) of its
 * bytes; {@link #segmentOf} and {@link #slotKeyOf} split it. Readers map the first tiers in windows of a whole number
 * of tiers, so a first tier's base in its window is {@link #firstTierBase}.
 *
 * @param chronicleMapVersion the Chronicle Map version that wrote the file (informational)
 */
public record MapLayout(
        String chronicleMapVersion,
        int segments,
        long segmentHeadersOffset,
        int segmentHeaderSize,
        long segmentsOffset,
        long tierSize,
        long baseSize,
        long tiersInBulk,
        long tierBulkSize,
        long tierBulkInnerOffset,
        long maxExtraTiers,
        int slotSize,
        long hashLookupCapacity,
        int keyBits,
        int valueBits,
        long countersOffset,
        long entrySpaceOffset,
        long chunkSize,
        long chunksPerTier) {

    /** The one entry encoding this reader knows; anything else is refused when the manifest is read. */
    public static final String ENCODING = "stop-bit-sizes,char-utf8,xxh64,alignment-1";

    static final long SEGMENT_ENTRIES = 8;
    static final long SEGMENT_NEXT_TIER = 16;
    static final long SEGMENT_DELETED = 24;
    static final long TIER_NEXT_TIER = 0;
    static final long TIER_ENTRIES = 32;
    static final long TIER_DELETED = 36;
    static final long COUNTERS_AREA_SIZE = 64;

    /** log2 of {@code slotSize}: a hash-lookup slot is 4 or 8 bytes. */
    int slotShift() {
        return slotSize == 4 ? 2 : 3;
    }

    public MapLayout {
        // The numbers come from a file: products and sums are taken saturated (see times, plus), so that an absurd
        // number fails its check instead of wrapping round into one that passes.
        require(segments > 0, "segments");
        require(segmentHeadersOffset > 0 && segmentHeaderSize >= 32, "segment headers");
        require(segmentsOffset >= plus(segmentHeadersOffset, times(segments, segmentHeaderSize)), "segments offset");
        // A tier is read through one buffer at int offsets, in windows of at most 1 GiB (TierWindows): a tier larger
        // than a window could not be read. Chronicle's tiers are far smaller (a 1 MiB entry makes them about 1 MiB).
        require(tierSize > 0 && tierSize <= TierWindows.WINDOW_BYTES, "tier size");
        require(baseSize == plus(segmentsOffset, times(segments, tierSize)), "base size");
        require(tiersInBulk > 0 && Long.bitCount(tiersInBulk) == 1, "tiers in bulk");
        // no limit on a bulk's bytes: readers map bulks in windows of whole tiers (TierWindows). Tiers per bulk and
        // extra tiers are at most 2^30 each, so that an extra tier's number, rounded up to whole bulks, fits an int
        // (Chronicle makes a bulk of segments / 8 tiers, and segments are an int).
        require(
                tierBulkInnerOffset >= 0
                        && tierBulkSize == plus(tierBulkInnerOffset, times(tiersInBulk, tierSize))
                        && tiersInBulk <= 1L << 30,
                "tier bulk size");
        // their bulks' offsets must fit a file
        require(
                maxExtraTiers >= 0
                        && maxExtraTiers <= 1L << 30
                        && plus(baseSize, times(maxExtraTiers, tierBulkSize)) < Long.MAX_VALUE,
                "max extra tiers");
        require(slotSize == 4 || slotSize == 8, "slot size");
        require(hashLookupCapacity > 0 && Long.bitCount(hashLookupCapacity) == 1, "hash lookup capacity");
        require(
                keyBits > 0 && valueBits > 0 && keyBits < 64 && valueBits < 64 && keyBits + valueBits <= slotSize * 8,
                "slot bits");
        require(
                countersOffset >= times(hashLookupCapacity, slotSize)
                        && plus(countersOffset, COUNTERS_AREA_SIZE) <= entrySpaceOffset,
                "counters offset");
        require(
                chunkSize > 0
                        && chunksPerTier > 0
                        && plus(entrySpaceOffset, times(chunkSize, chunksPerTier)) <= tierSize,
                "entry space");
    }

    /** {@code a * b} for non-negative numbers, or {@link Long#MAX_VALUE} when that overflows (or one is negative). */
    private static long times(long a, long b) {
        if (a < 0 || b < 0) {
            return Long.MAX_VALUE;
        }
        return Math.multiplyHigh(a, b) == 0 && a * b >= 0 ? a * b : Long.MAX_VALUE;
    }

    /** {@code a + b} for non-negative numbers, or {@link Long#MAX_VALUE} when that overflows (or one is negative). */
    private static long plus(long a, long b) {
        return a < 0 || b < 0 || a + b < 0 ? Long.MAX_VALUE : a + b;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new IllegalArgumentException("inconsistent map layout: " + what);
        }
    }

    /** The segment a key of hash {@code hash} lives in (Chronicle's hash splitting for this segment count). */
    public int segmentOf(long hash) {
        if (segments == 1) {
            return 0;
        }
        if (Integer.bitCount(segments) == 1) {
            return ((int) hash) & (segments - 1);
        }
        return (((int) hash) & Integer.MAX_VALUE) % segments;
    }

    /** The key part of a hash lookup slot for a key of hash {@code hash}: never 0, which marks an empty slot. */
    public long slotKeyOf(long hash) {
        long segmentHash;
        if (segments == 1) {
            segmentHash = hash;
        } else if (Integer.bitCount(segments) == 1) {
            segmentHash = hash >>> Integer.numberOfTrailingZeros(segments);
        } else {
            segmentHash = hash >>> 31;
        }
        long keyMask = (1L << keyBits) - 1;
        long key = segmentHash & keyMask;
        return key != 0 ? key : keyMask;
    }

    /** Where segment {@code segment}'s header starts, counted from {@link #segmentHeadersOffset}. */
    int segmentHeaderOffset(int segment) {
        return segment * segmentHeaderSize;
    }

    /** Where segment {@code segment}'s first tier starts in the file. */
    long firstTierOffset(int segment) {
        return segmentsOffset + (long) segment * tierSize;
    }

    /**
     * Where segment {@code segment}'s first tier starts in the window that holds it, when the first tiers are mapped
     * {@code tiersPerWindow} to a window from the first one on.
     */
    int firstTierBase(int segment, int tiersPerWindow) {
        return (int) ((segment % tiersPerWindow) * tierSize);
    }

    /** The offset, from its tier's base, of the entry that hash-lookup slot {@code slot} names; -1 when outside. */
    int entryOffset(long slot) {
        return entryOffset(
                slot, keyBits, (1L << valueBits) - 1, chunksPerTier, (int) entrySpaceOffset, (int) chunkSize);
    }

    /**
     * {@link #entryOffset(long)} from the layout's numbers given one by one: the lookup's hot path keeps them in final
     * fields of its own, one dependent load fewer than reading them through the layout on every probe.
     *
     * @param valueMask {@code 2^valueBits - 1}
     */
    static int entryOffset(
            long slot, int keyBits, long valueMask, long chunksPerTier, int entrySpaceOffset, int chunkSize) {
        long chunk = (slot >>> keyBits) & valueMask;
        if (chunk >= chunksPerTier) {
            return -1;
        }
        return entrySpaceOffset + (int) chunk * chunkSize;
    }

    /** Writes this layout as {@code prefix.*} properties. */
    public void writeTo(String prefix, Map<String, String> out) {
        out.put(prefix + "encoding", ENCODING);
        out.put(prefix + "chronicle.map.version", chronicleMapVersion);
        out.put(prefix + "segments", Integer.toString(segments));
        out.put(prefix + "segment.headers.offset", Long.toString(segmentHeadersOffset));
        out.put(prefix + "segment.header.size", Integer.toString(segmentHeaderSize));
        out.put(prefix + "segments.offset", Long.toString(segmentsOffset));
        out.put(prefix + "tier.size", Long.toString(tierSize));
        out.put(prefix + "base.size", Long.toString(baseSize));
        out.put(prefix + "tiers.in.bulk", Long.toString(tiersInBulk));
        out.put(prefix + "tier.bulk.size", Long.toString(tierBulkSize));
        out.put(prefix + "tier.bulk.inner.offset", Long.toString(tierBulkInnerOffset));
        out.put(prefix + "max.extra.tiers", Long.toString(maxExtraTiers));
        out.put(prefix + "hash.lookup.slot.size", Integer.toString(slotSize));
        out.put(prefix + "hash.lookup.capacity", Long.toString(hashLookupCapacity));
        out.put(prefix + "hash.lookup.key.bits", Integer.toString(keyBits));
        out.put(prefix + "hash.lookup.value.bits", Integer.toString(valueBits));
        out.put(prefix + "counters.offset", Long.toString(countersOffset));
        out.put(prefix + "entry.space.offset", Long.toString(entrySpaceOffset));
        out.put(prefix + "chunk.size", Long.toString(chunkSize));
        out.put(prefix + "chunks.per.tier", Long.toString(chunksPerTier));
    }

    /**
     * Reads a layout written by {@link #writeTo}; null when {@code in} has none under {@code prefix}.
     *
     * @throws IllegalArgumentException naming what is missing, malformed or unsupported
     */
    public static MapLayout readFrom(String prefix, Map<String, String> in) {
        if (!in.containsKey(prefix + "segments")) {
            return null;
        }
        String encoding = in.get(prefix + "encoding");
        if (!ENCODING.equals(encoding)) {
            throw new IllegalArgumentException(
                    "entry encoding '" + encoding + "' is not the one this reader knows (" + ENCODING + ")");
        }
        Reader r = new Reader(prefix, in);
        return new MapLayout(
                in.getOrDefault(prefix + "chronicle.map.version", "unknown"),
                r.integer("segments"),
                r.number("segment.headers.offset"),
                r.integer("segment.header.size"),
                r.number("segments.offset"),
                r.number("tier.size"),
                r.number("base.size"),
                r.number("tiers.in.bulk"),
                r.number("tier.bulk.size"),
                r.number("tier.bulk.inner.offset"),
                r.number("max.extra.tiers"),
                r.integer("hash.lookup.slot.size"),
                r.number("hash.lookup.capacity"),
                r.integer("hash.lookup.key.bits"),
                r.integer("hash.lookup.value.bits"),
                r.number("counters.offset"),
                r.number("entry.space.offset"),
                r.number("chunk.size"),
                r.number("chunks.per.tier"));
    }

    /** This layout as {@code prefix.*} properties (sorted, for tests and tools). */
    public Map<String, String> toProperties(String prefix) {
        Map<String, String> out = new TreeMap<>();
        writeTo(prefix, out);
        return out;
    }

    private record Reader(String prefix, Map<String, String> in) {
        long number(String name) {
            String v = in.get(prefix + name);
            if (v == null) {
                throw new IllegalArgumentException("missing '" + prefix + name + "'");
            }
            try {
                return Long.parseLong(v.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + prefix + name + "' is not a number: " + v);
            }
        }

        int integer(String name) {
            long v = number(name);
            if (v != (int) v) {
                throw new IllegalArgumentException("'" + prefix + name + "' is out of range: " + v);
            }
            return (int) v;
        }
    }
}
