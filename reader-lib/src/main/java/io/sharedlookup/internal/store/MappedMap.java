package io.sharedlookup.internal.store;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One of the writer's Chronicle Map files, read in place through read-only mappings, without Chronicle and without
 * any lock (store format version 2): the lookups and scans every reader runs, and the single lookup's hot path itself.
 *
 * <p>Every read of a segment is validated against that segment's counter in the generation's sequence file (see
 * {@link SequenceFile}, protocol in {@link SequenceProtocol}): read the counter (even), read, re-read it; a change
 * means the writer touched the segment meanwhile, so the read is retried, waiting as {@link SegmentWaits} says: a
 * counter that stays odd past the bound means a writer died in the middle of a change, or stopped in it for long:
 * {@link #TIMED_OUT}. Nothing here writes to any file or waits on anything the writer waits for, so a reader that
 * dies, pauses or scans slowly cannot hold the writer up.
 *
 * <p>Every offset derived from the file is checked against its tier before it is used: a read that races with the
 * writer may see a half-changed entry, which is detected and retried, never dereferenced outside the mapping. A read
 * that is inconsistent although its segment did not change means the file is damaged ({@link StoreFormatException}).
 *
 * <p>Who does what around this class, from mapping the file to scanning it: the package overview.
 *
 * <p>Why the first attempt's methods ({@link #getInto(CharSequence, Utf8Text, long)}, {@link #hashedKey},
 * {@link #probeFirstTier}, {@link #probeOnward}, {@link #decideSlot}, {@link #readFastEntry}) stay together here, each
 * small: a hit should run as one compiled method, without calls or the spills around them. The JIT inlines a method
 * only while it is under 325 bytecodes and not compiled big on its own, and only 15 levels below the method it
 * compiles: so these stay small, and the chain of calls from a caller down to the mapping's reads no deeper than it is
 * (spread over more classes or wrappers, it would grow). They read the mappings and the layout's numbers from final
 * fields of this object, copied at open: through another object, each lookup would make one more dependent load.
 */
public final class MappedMap extends MappedMapFile {
    public static final int ABSENT = 0;
    public static final int PRESENT = 1;
    public static final int TIMED_OUT = -1;

    /** From the general path's entry reads: the segment does not parse (torn by a race, or damaged). */
    static final int INCONSISTENT = -2;
    /** From {@link #probeFirstTier}: not decided by the first attempt. */
    static final int UNDECIDED = 3;
    /** Probes the first attempt makes before it leaves a long collision chain to the general path. */
    private static final int FAST_PROBES = 8;
    /** From an entry read: the slot names an entry of another key (a hash-lookup collision). */
    static final int OTHER_KEY = 2;

    private static final ThreadLocal<KeyBuffer> KEY = ThreadLocal.withInitial(KeyBuffer::new);

    private final MapLayout layout;
    // the mappings and the layout's numbers the lookup path uses, held here rather than read through the mappings or
    // the layout on every probe (one dependent load fewer per lookup); those without "private" are read by BatchLookup
    // as well, which runs this probe over many keys
    private final ByteBuffer headers;
    private final int tiersPerWindow;
    private final ByteBuffer firstWindow;
    private final ByteBuffer[] firstTierBuffer; // per segment: its first tier's window and offset in it
    private final int[] firstTierBase;
    final ByteBuffer sequences;
    final long hashLookupMask;
    private final long keyMask;
    private final long valueMask;
    private final int tierSize;
    final int slotShift;
    private final int keyBits;
    private final long chunksPerTier;
    private final int chunkSize;
    private final int entrySpaceOffset;
    /** {@code segments - 1} when the segment count is a power of two (a hash's segment is its low bits), else -1. */
    private final int segmentMask;

    private final int segmentShift;
    /** The general path, which runs less often: reached through one final field, off the first attempt's path. */
    private final GeneralLookup general;

    private MappedMap(MapFileMappings mappings) {
        super(mappings);
        this.layout = mappings.layout;
        this.headers = mappings.headers;
        this.tiersPerWindow = mappings.tiersPerWindow;
        this.firstWindow = mappings.windows[0];
        this.firstTierBuffer = mappings.firstTierBuffer;
        this.firstTierBase = mappings.firstTierBase;
        this.sequences = mappings.sequences;
        this.hashLookupMask = layout.hashLookupCapacity() - 1;
        this.keyMask = (1L << layout.keyBits()) - 1;
        this.valueMask = (1L << layout.valueBits()) - 1;
        this.tierSize = (int) layout.tierSize();
        this.slotShift = layout.slotShift();
        this.keyBits = layout.keyBits();
        this.chunksPerTier = layout.chunksPerTier();
        this.chunkSize = (int) layout.chunkSize();
        this.entrySpaceOffset = (int) layout.entrySpaceOffset();
        this.segmentMask = Integer.bitCount(layout.segments()) == 1 ? layout.segments() - 1 : -1;
        this.segmentShift = Integer.numberOfTrailingZeros(layout.segments());
        this.general = new GeneralLookup(mappings, waits);
    }

    /** {@link #open(Path, Path, MapLayout, long)} waiting up to {@link #DEFAULT_MAPPING_WAIT_NANOS} for a bulk. */
    public static MappedMap open(Path file, Path sequenceFile, MapLayout layout) {
        return open(file, sequenceFile, layout, DEFAULT_MAPPING_WAIT_NANOS);
    }

    /**
     * Maps {@code file} and its sequence file read-only. A read that needs an extra tier bulk mapped first waits for
     * that at most {@code mappingWaitNanos} (see {@link TierBulks}), then throws {@link LockTimeoutException}.
     *
     * @throws StoreFormatException when a file is missing, unreadable or smaller than its layout says
     */
    public static MappedMap open(Path file, Path sequenceFile, MapLayout layout, long mappingWaitNanos) {
        return new MappedMap(MapFileMappings.open(file, sequenceFile, layout, mappingWaitNanos));
    }

    /**
     * Looks {@code key} up and, when present, puts its value in {@code out} (cleared first). Allocation-free once the
     * calling thread has looked up a key and a value at least as long before.
     *
     * @return {@link #PRESENT}, {@link #ABSENT}, or {@link #TIMED_OUT} when the key's segment stayed in the middle of
     *     a change for longer than {@code timeoutNanos}
     * @throws StoreFormatException when the file is damaged
     */
    public int getInto(CharSequence key, StringBuilder out, long timeoutNanos) {
        Utf8Text value = KEY.get().value;
        int found = getInto(key, value, timeoutNanos);
        value.copyTo(out);
        return found;
    }

    /**
     * Looks {@code key} up and, when present, copies its value's bytes into {@code out} (cleared otherwise): the
     * cheapest way to hand a value over, a few 8-byte moves. Allocation-free once {@code out} has held a value at
     * least as long before (and, for a key that is not an ASCII {@code String}, once the thread has looked up a key
     * at least as long).
     *
     * @return {@link #PRESENT}, {@link #ABSENT}, or {@link #TIMED_OUT} when the key's segment stayed in the middle of
     *     a change for longer than {@code timeoutNanos}
     * @throws StoreFormatException when the file is damaged
     */
    public int getInto(CharSequence key, Utf8Text out, long timeoutNanos) {
        // An ASCII String key (the common case), of any length, is hashed and compared from its chars in place; any
        // other key is encoded into the thread's buffer once (otherKey). Both take the same first attempt (hashedKey),
        // whose methods stay together and small (see the class comment; docs/benchmarks.md, issue #12 section).
        return classify(key, 0, out, timeoutNanos);
    }

    /**
     * The lookup of a key that is not an ASCII {@code String}: encoded into the thread's buffer first. Encoding
     * runs the key's own {@code charAt}, which may look another key up on this thread (a key computed from the store):
     * such a nested lookup gets a buffer of its own rather than overwrite the one being filled. {@code place} is
     * unused (a batch's).
     */
    @Override
    int otherKey(CharSequence key, int place, Utf8Text out, long timeoutNanos) {
        KeyBuffer k = KEY.get();
        if (k.encoding) {
            k = new KeyBuffer();
        }
        int length;
        k.encoding = true;
        try {
            length = k.encode(key);
        } finally {
            k.encoding = false;
        }
        byte[] bytes = k.bytes; // held here: a nested lookup may replace the thread's buffer, never this array's bytes
        try {
            if (length == 0) {
                return general.get(null, bytes, 0, Xxh64.hash(bytes, 0), out, timeoutNanos);
            }
            return hashedKey(
                    null,
                    bytes,
                    length,
                    KeyWords.word(bytes, 0),
                    KeyWords.word(bytes, 8),
                    Xxh64.hash(bytes, length),
                    0,
                    out,
                    timeoutNanos);
        } finally {
            k.bytes = KeyWords.trimmed(k.bytes);
        }
    }

    /**
     * The lookup of a key of {@code n} bytes (at least 1) and hash {@code hash}, given as an ASCII {@code String}
     * ({@code ascii}) or else as encoded {@code bytes}; when {@code n} is at most {@link #SHORT_KEY}, its bytes are
     * also in the words {@code w0} and {@code w1}. One short first attempt ({@link #probeFirstTier}), else the general
     * path. {@code place} is unused (a batch's).
     */
    @Override
    int hashedKey(
            String ascii,
            byte[] bytes,
            int n,
            long w0,
            long w1,
            long hash,
            int place,
            Utf8Text out,
            long timeoutNanos) {
        int segment = segmentOf(hash);
        long before = SequenceProtocol.readBegin(sequences, segment);
        if (!SequenceProtocol.inChange(before)) {
            int found = probeFirstTier(segment, slotKeyOf(hash), w0, w1, n, ascii, bytes, out);
            if (found != UNDECIDED
                    && SequenceProtocol.readValidate(sequences, segment, before)
                    && (found == ABSENT || out.decode())) {
                if (found == ABSENT) {
                    out.clear();
                }
                return found;
            }
        }
        return general.get(ascii, bytes, n, hash, out, timeoutNanos);
    }

    /**
     * Looks up {@code keys[from .. from + n)} together ({@code n} at most {@link LookupBatch#SIZE}): key
     * {@code from + i}'s value goes into {@code batch.out[i]} (cleared when absent) and {@code batch.found[i]} says
     * whether it is present, exactly as {@link #getInto(CharSequence, Utf8Text, long)} would answer.
     *
     * <p>Why a batch is faster per key, and how it runs: {@link BatchLookup}.
     *
     * <p>The bound applies to each key that takes the single-key path, as it does to a single lookup: a key whose
     * segment stays in the middle of a change ends the batch after one bound.
     *
     * @return how many of the keys are present, or {@link #TIMED_OUT} when a key's segment stayed in the middle of a
     *     change for longer than {@code timeoutNanos} (the batch's outputs are then partly filled: callers discard
     *     them)
     * @throws StoreFormatException when the file is damaged (the outputs likewise)
     */
    public int getAllInto(CharSequence[] keys, int from, int n, LookupBatch batch, long timeoutNanos) {
        return BatchLookup.getAllInto(this, keys, from, n, batch, timeoutNanos);
    }

    /** The window holding {@code segment}'s first tier (in the first window: no division, no table). */
    ByteBuffer firstTierBufferOf(int segment) {
        return segment < tiersPerWindow ? firstWindow : firstTierBuffer[segment];
    }

    /** Where {@code segment}'s first tier starts in {@link #firstTierBufferOf}. */
    int firstTierBaseOf(int segment) {
        return segment < tiersPerWindow ? segment * tierSize : firstTierBase[segment];
    }

    /** {@link MapLayout#segmentOf}, from the mask held in a field when the segment count is a power of two. */
    int segmentOf(long hash) {
        return segmentMask >= 0 ? (int) hash & segmentMask : layout.segmentOf(hash);
    }

    /** {@link MapLayout#slotKeyOf}, from the numbers held in fields when the segment count is a power of two. */
    long slotKeyOf(long hash) {
        if (segmentMask < 0) {
            return layout.slotKeyOf(hash);
        }
        long key = (hash >>> segmentShift) & keyMask;
        return key != 0 ? key : keyMask;
    }

    /**
     * The first attempt at a key of {@code length} bytes (at least 1; see {@link #hashedKey} for {@code w0},
     * {@code w1}, {@code ascii} and {@code bytes}): it probes the segment's first tier only, for an entry whose key and
     * value lie within the tier with room for a whole word after the key's size. {@link #PRESENT} (the value copied into
     * {@code out}), {@link #ABSENT} (the key is in none of the segment's tiers), or {@link #UNDECIDED} for anything
     * else, which the general path decides.
     */
    private int probeFirstTier(
            int segment, long slotKey, long w0, long w1, int length, String ascii, byte[] bytes, Utf8Text out) {
        ByteBuffer buffer = firstTierBufferOf(segment);
        int base = firstTierBaseOf(segment);
        // The first slot is probed here, without a loop: a method with a hot loop is compiled on its own early, and
        // once compiled big the JIT no longer inlines it into the caller. Later probes of a collision chain (rarer)
        // have their own method.
        long index = slotKey & hashLookupMask;
        int found = decideSlot(
                segment,
                buffer,
                base,
                EntryBytes.slot(buffer, base, index, slotShift),
                slotKey,
                w0,
                w1,
                length,
                ascii,
                bytes,
                out);
        return found != OTHER_KEY
                ? found
                : probeOnward(segment, buffer, base, index, slotKey, w0, w1, length, ascii, bytes, out);
    }

    /** {@link #probeFirstTier}'s later probes, after the slot at {@code index}. */
    int probeOnward(
            int segment,
            ByteBuffer buffer,
            int base,
            long index,
            long slotKey,
            long w0,
            long w1,
            int length,
            String ascii,
            byte[] bytes,
            Utf8Text out) {
        for (int probes = 1; probes < FAST_PROBES; probes++) {
            index = (index + 1) & hashLookupMask;
            int found = decideSlot(
                    segment,
                    buffer,
                    base,
                    EntryBytes.slot(buffer, base, index, slotShift),
                    slotKey,
                    w0,
                    w1,
                    length,
                    ascii,
                    bytes,
                    out);
            if (found != OTHER_KEY) {
                return found;
            }
        }
        return UNDECIDED;
    }

    /**
     * One probe of {@link #probeFirstTier}, decided from the content {@code slot} of a hash-lookup slot: {@link
     * #OTHER_KEY} when it holds another key (the probe goes on), else what the first attempt decides. The slot is read
     * by the caller ({@link EntryBytes#slot}), one call level less between the lookup and the read.
     */
    int decideSlot(
            int segment,
            ByteBuffer buffer,
            int base,
            long slot,
            long slotKey,
            long w0,
            long w1,
            int length,
            String ascii,
            byte[] bytes,
            Utf8Text out) {
        if (slot == 0) {
            return absentUnlessExtraTier(segment);
        }
        return (slot & keyMask) == slotKey
                ? readFastEntry(buffer, base, slot, w0, w1, length, ascii, bytes, out)
                : OTHER_KEY;
    }

    /** After an empty slot in {@code segment}'s first tier: the key is absent unless the segment has more tiers. */
    private int absentUnlessExtraTier(int segment) {
        return headers.getLong(layout.segmentHeaderOffset(segment) + (int) MapLayout.SEGMENT_NEXT_TIER) == 0
                ? ABSENT
                : UNDECIDED;
    }

    /**
     * Reads the entry that hash-lookup slot {@code slot} of the tier at {@code base} names, for the key of
     * {@link #probeFirstTier}: {@link #PRESENT} (the value copied into {@code out}), {@link #OTHER_KEY}, or
     * {@link #UNDECIDED} when the entry is not one the first attempt reads (too near the tier's end, or torn). Sizes
     * of 128 or more (two stop-bit bytes) and keys longer than {@link #SHORT_KEY} are read by other methods
     * ({@link EntryBytes#sizeAt}, {@link #longKeyStart}, {@link KeyWords}), so that this one stays small enough to
     * inline.
     */
    private int readFastEntry(
            ByteBuffer buffer,
            int base,
            long slot,
            long w0,
            long w1,
            int length,
            String ascii,
            byte[] bytes,
            Utf8Text out) {
        int offset = entryOffset(slot);
        int entry = base + offset;
        int limit = base + tierSize;
        if (offset < 0 || limit - entry < 2 + 2 * Long.BYTES) {
            return UNDECIDED;
        }
        int keyStart = entry + 1;
        if (buffer.get(entry) != length) {
            if (length < 128) { // a one-byte size that differs, or a size of 128 or more (its first byte negative)
                return OTHER_KEY;
            }
            keyStart = longKeyStart(buffer, base, offset, length); // a key of 128 bytes or more: a 2-byte size
            if (keyStart < 0) {
                return keyStart == -1 ? OTHER_KEY : UNDECIDED;
            }
        }
        if (length > limit - keyStart - 1) { // the key and at least its value's size byte must lie in the tier
            return UNDECIDED;
        }
        if (length <= SHORT_KEY) {
            long first = buffer.getLong(keyStart); // 16 bytes past a one-byte size lie in the tier (checked above)
            if (length <= 8
                    ? ((first ^ w0) & (-1L >>> (64 - 8 * length))) != 0
                    : first != w0 || ((buffer.getLong(keyStart + 8) ^ w1) & (-1L >>> (128 - 8 * length))) != 0) {
                return OTHER_KEY;
            }
        } else if (!(ascii != null
                ? KeyWords.equalsAscii(buffer, keyStart, ascii, limit)
                : KeyWords.equalsBytes(buffer, keyStart, bytes, length, limit))) {
            return OTHER_KEY;
        }
        int valueSizeAt = keyStart + length;
        int valueSize = buffer.get(valueSizeAt);
        int valueStart = valueSizeAt + 1;
        if (valueSize < 0) { // a value of 128 bytes or more
            long valueField = EntryBytes.sizeAt(buffer, base, valueSizeAt - base, tierSize);
            if (valueField < 0) {
                return UNDECIDED;
            }
            valueSize = (int) valueField;
            valueStart = valueSizeAt + (int) (valueField >>> 32);
        }
        if (valueSize > limit - valueStart) {
            return UNDECIDED;
        }
        EntryBytes.copyValue(buffer, valueStart, valueSize, limit, out);
        return PRESENT;
    }

    /**
     * Where the key of the entry at tier offset {@code offset} starts when its size is written in more than one byte
     * and equals {@code length}; -1 when the size differs, -2 when it does not parse (torn or damaged).
     */
    private int longKeyStart(ByteBuffer buffer, int base, int offset, int length) {
        long keyField = EntryBytes.sizeAt(buffer, base, offset, tierSize);
        if (keyField < 0) {
            return -2;
        }
        return (int) keyField != length ? -1 : base + offset + (int) (keyField >>> 32);
    }

    /** {@link MapLayout#entryOffset(long)}, from the numbers held in fields: the entry's offset in its tier, or -1. */
    int entryOffset(long slot) {
        return MapLayout.entryOffset(slot, keyBits, valueMask, chunksPerTier, entrySpaceOffset, chunkSize);
    }
}
