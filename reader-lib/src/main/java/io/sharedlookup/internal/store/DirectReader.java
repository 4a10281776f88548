package io.sharedlookup.internal.store;

import java.nio.ByteOrder;
import net.openhft.chronicle.algo.bytes.ReadAccess;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.core.UnsafeMemory;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.CompactOffHeapLinearHashTable;
import net.openhft.chronicle.hash.impl.HashSplitting;
import net.openhft.chronicle.hash.impl.TierCountersArea;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.hash.serialization.impl.CharSequenceSizedReader;
import net.openhft.chronicle.hash.serialization.impl.CharSequenceUtf8DataAccess;
import net.openhft.chronicle.hash.serialization.impl.StopBitSizeMarshaller;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.VanillaChronicleMap;
import sun.misc.Unsafe;

/**
 * The read-only hot path of a generation: a key lookup that reads Chronicle Map's memory-mapped layout directly,
 * under the same segment read lock Chronicle takes, instead of going through a query context.
 *
 * <p>Chronicle's query context costs several hundred nanoseconds per call before any memory is touched: a
 * thread-local context lookup, copying the key into a buffer as UTF-8 to hash and compare it, bookkeeping of the
 * context chain and its lock states, and decoding through Bytes views. This class does what Chronicle's own
 * {@code VanillaChronicleMap.getUsing} fast path does — hash the key's UTF-8 bytes with xxHash r39, pick the segment,
 * probe the segment tier's hash lookup, compare the stored key, decode the value — but hashes and compares the key's
 * characters in place and decodes the value straight into the caller's {@link StringBuilder}. Nothing on disk changes:
 * it reads the same file format, and writers are untouched.
 *
 * <p>It handles only what it can do exactly as Chronicle does: maps with the layout this project creates (stop-bit
 * sizes, UTF-8 {@code CharSequence} keys and values, no alignment), keys of ASCII characters (ids, in practice), and
 * values in the 1–3 byte UTF-8 forms Chronicle writes. For anything else {@link #getInto} answers {@link #UNSUPPORTED}
 * and the caller takes the query-context path. Every offset read from the file is checked against the tier before it
 * is dereferenced, so a damaged file also ends in {@code UNSUPPORTED} (and Chronicle's own error), never a stray
 * memory read.
 *
 * <p>The caller must guarantee that the map stays open during a call (reader-lib's reference count does).
 */
final class DirectReader {
    static final int ABSENT = 0;
    static final int PRESENT = 1;
    static final int UNSUPPORTED = -1;
    static final int TIMED_OUT = -2;

    private static final Unsafe U = UnsafeMemory.UNSAFE;
    private static final LongHashFunction XX = LongHashFunction.xx_r39();
    private static final BigSegmentHeader SEGMENT = BigSegmentHeader.INSTANCE;

    private final VanillaChronicleMap<?, ?, ?> map;
    private final HashSplitting splitting;
    private final CompactOffHeapLinearHashTable hashLookup;
    private final long[] segmentHeaders;
    private final long[] segmentBases;
    private final long chunkSize;
    private final long entrySpaceOffset;
    private final long chunksPerTier;
    private final long tierSize;
    private final long tierCountersOffset;

    private DirectReader(VanillaChronicleMap<?, ?, ?> map) {
        this.map = map;
        this.splitting = map.hashSplitting;
        this.hashLookup = map.hashLookup;
        int segments = map.actualSegments;
        this.segmentHeaders = new long[segments];
        this.segmentBases = new long[segments];
        for (int i = 0; i < segments; i++) {
            segmentHeaders[i] = map.segmentHeaderAddress(i);
            segmentBases[i] = map.segmentBaseAddr(i);
        }
        this.chunkSize = map.chunkSize;
        this.tierCountersOffset = map.tierHashLookupOuterSize;
        this.entrySpaceOffset = map.tierHashLookupOuterSize + VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE
                + map.tierFreeListOuterSize + map.tierEntrySpaceInnerOffset;
        this.chunksPerTier = map.actualChunksPerSegmentTier;
        this.tierSize = map.tierSize;
    }

    /** A reader for {@code map}, or null when its layout is not the one this class reads. */
    static DirectReader forMap(ChronicleMap<?, ?> map) {
        if (map.getClass() != VanillaChronicleMap.class) { // replicated maps and others lay entries out differently
            return null;
        }
        VanillaChronicleMap<?, ?, ?> m = (VanillaChronicleMap<?, ?, ?>) map;
        boolean expected = m.keySizeMarshaller instanceof StopBitSizeMarshaller
                && m.valueSizeMarshaller instanceof StopBitSizeMarshaller
                && m.keyDataAccess instanceof CharSequenceUtf8DataAccess
                && m.keyReader instanceof CharSequenceSizedReader
                && m.valueReader instanceof CharSequenceSizedReader
                && m.alignment == 1
                && m.chunkSize > 0 && m.actualSegments > 0 && m.tierSize > 0;
        return expected ? new DirectReader(m) : null;
    }

    /**
     * Looks {@code key} up and, when present, puts its value in {@code out} (cleared first).
     *
     * @return {@link #PRESENT}, {@link #ABSENT}, {@link #TIMED_OUT} when the segment stayed locked beyond
     *     {@code timeoutNanos}, or {@link #UNSUPPORTED} when the caller must use the query context
     */
    int getInto(CharSequence key, StringBuilder out, long timeoutNanos) {
        int length = key.length();
        for (int i = 0; i < length; i++) {
            if (key.charAt(i) >= 0x80) {
                return UNSUPPORTED; // its UTF-8 form differs from its chars; Chronicle encodes it
            }
        }
        long keyHash = XX.hash(key, AsciiAccess.INSTANCE, 0, length);
        int segment = splitting.segmentIndex(keyHash);
        long searchKey = hashLookup.maskUnsetKey(splitting.segmentHash(keyHash));
        long searchStart = hashLookup.hlPos(searchKey);
        long header = segmentHeaders[segment];
        if (!SEGMENT.tryReadLock(header) && !tryReadLock(header, timeoutNanos)) {
            return TIMED_OUT;
        }
        try {
            long tierBase = segmentBases[segment];
            for (int tiers = 0; ; tiers++) {
                int found = searchTier(tierBase, searchKey, searchStart, key, length, out);
                if (found != ABSENT) {
                    return found;
                }
                long next = tiers == 0 ? SEGMENT.nextTierIndex(header)
                        : TierCountersArea.nextTierIndex(tierBase + tierCountersOffset);
                if (next == 0) {
                    return ABSENT;
                }
                if (next < 0 || tiers > 1 << 20) {
                    return UNSUPPORTED;
                }
                tierBase = map.tierIndexToBaseAddr(next);
            }
        } finally {
            SEGMENT.readUnlock(header);
        }
    }

    /**
     * Waits for the read lock until {@code timeoutNanos} have passed on the monotonic clock. Chronicle's own timed
     * wait counts the millisecond ticks it observes, so on a busy host, where the waiting thread is descheduled for
     * several milliseconds at a time, it can wait many times its nominal bound; this one cannot. After a short spin
     * it yields between attempts, so that on a host with few cores the lock holder gets to run and release it.
     */
    private static boolean tryReadLock(long header, long timeoutNanos) {
        long start = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            if (SEGMENT.tryReadLock(header)) {
                return true;
            }
            long waited = System.nanoTime() - start;
            if (waited >= timeoutNanos || Thread.currentThread().isInterrupted()) {
                return false;
            }
            if (attempt < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** Probes one tier's hash lookup; the linear probe ends at the first empty slot. */
    private int searchTier(long tierBase, long searchKey, long searchStart, CharSequence key, int length,
                           StringBuilder out) {
        CompactOffHeapLinearHashTable hl = hashLookup;
        long pos = searchStart;
        while (true) {
            long slot = hl.readEntryVolatile(tierBase, pos);
            if (hl.empty(slot)) {
                return ABSENT;
            }
            pos = hl.step(pos);
            if (pos == searchStart) {
                return UNSUPPORTED; // a full hash lookup: Chronicle reports it
            }
            if (hl.key(slot) != searchKey) {
                continue;
            }
            long chunk = hl.value(slot);
            if (chunk >= chunksPerTier) {
                return UNSUPPORTED;
            }
            long offset = entrySpaceOffset + chunk * chunkSize; // within the tier
            long keySize = readStopBit(tierBase, offset);
            if (keySize < 0) {
                return UNSUPPORTED;
            }
            long keyOffset = offset + stopBitLength(keySize);
            if (keyOffset + keySize > tierSize) {
                return UNSUPPORTED;
            }
            if (keySize != length || !keyEquals(tierBase + keyOffset, key, length)) {
                continue;
            }
            long valueSizeOffset = keyOffset + keySize;
            long valueSize = readStopBit(tierBase, valueSizeOffset);
            if (valueSize < 0) {
                return UNSUPPORTED;
            }
            long valueOffset = valueSizeOffset + stopBitLength(valueSize);
            if (valueOffset + valueSize > tierSize || valueSize > Integer.MAX_VALUE) {
                return UNSUPPORTED;
            }
            return decodeUtf8(tierBase + valueOffset, (int) valueSize, out) ? PRESENT : UNSUPPORTED;
        }
    }

    /**
     * Reads a non-negative stop-bit number (7 bits per byte, low bits first, high bit = more follow) at
     * {@code tierBase + offset}; -1 when it is not one or runs past the tier.
     */
    private long readStopBit(long tierBase, long offset) {
        long value = 0;
        for (int shift = 0; shift <= 56; shift += 7) {
            if (offset >= tierSize) {
                return -1;
            }
            int b = U.getByte(tierBase + offset++);
            if (b >= 0) {
                if (b == 0 && shift > 0) {
                    return -1; // Chronicle's encoding of a negative number: never a size
                }
                return value | ((long) b << shift);
            }
            value |= (long) (b & 0x7F) << shift;
        }
        return -1;
    }

    private static int stopBitLength(long value) {
        int n = 1;
        while ((value >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static boolean keyEquals(long address, CharSequence key, int length) {
        for (int i = 0; i < length; i++) {
            if (U.getByte(address + i) != (byte) key.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Decodes the 1-, 2- and 3-byte UTF-8 forms Chronicle writes; false (out undefined) on anything else. */
    private static boolean decodeUtf8(long address, int size, StringBuilder out) {
        out.setLength(0);
        out.ensureCapacity(size);
        long end = address + size;
        long p = address;
        while (p < end) {
            int b = U.getByte(p++);
            if (b >= 0) {
                out.append((char) b);
            } else if ((b & 0xE0) == 0xC0 && p < end) {
                int b2 = U.getByte(p++);
                if ((b2 & 0xC0) != 0x80) {
                    return false;
                }
                out.append((char) (((b & 0x1F) << 6) | (b2 & 0x3F)));
            } else if ((b & 0xF0) == 0xE0 && p + 1 < end) {
                int b2 = U.getByte(p++);
                int b3 = U.getByte(p++);
                if ((b2 & 0xC0) != 0x80 || (b3 & 0xC0) != 0x80) {
                    return false;
                }
                out.append((char) (((b & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F)));
            } else {
                return false;
            }
        }
        return true;
    }

    /**
     * A {@link CharSequence} of ASCII characters seen as its UTF-8 bytes (one byte per char), little-endian, so that
     * Chronicle's xxHash implementation hashes it exactly as it hashes the encoded key, without the encoding.
     */
    static final class AsciiAccess implements ReadAccess<CharSequence> {
        static final AsciiAccess INSTANCE = new AsciiAccess();

        @Override
        public ByteOrder byteOrder(CharSequence handle) {
            return ByteOrder.LITTLE_ENDIAN;
        }

        @Override
        public byte readByte(CharSequence s, long offset) {
            return (byte) s.charAt((int) offset);
        }

        @Override
        public short readShort(CharSequence s, long offset) {
            int i = (int) offset;
            return (short) ((s.charAt(i) & 0xFF) | (s.charAt(i + 1) & 0xFF) << 8);
        }

        @Override
        public int readInt(CharSequence s, long offset) {
            int i = (int) offset;
            return (s.charAt(i) & 0xFF) | (s.charAt(i + 1) & 0xFF) << 8 | (s.charAt(i + 2) & 0xFF) << 16
                    | (s.charAt(i + 3) & 0xFF) << 24;
        }

        @Override
        public long readLong(CharSequence s, long offset) {
            return (readInt(s, offset) & 0xFFFFFFFFL) | ((long) readInt(s, offset + 4)) << 32;
        }
    }
}
