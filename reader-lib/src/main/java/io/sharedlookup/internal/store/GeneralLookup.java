package io.sharedlookup.internal.store;

import java.nio.ByteBuffer;

/**
 * The general lookup path of one map file: every tier of a segment's chain, any collision chain, retried while the
 * writer changes the segment, waiting as {@link RaceWaits} says. It decides what {@link MappedMap}'s first attempt
 * leaves undecided (a race with the writer, a long collision chain, an extra tier, an entry near its tier's end), and
 * the empty key. A read that is inconsistent although its segment did not change means the file is damaged.
 */
final class GeneralLookup {
    private final MapFileMappings mappings;
    private final MapLayout layout;
    private final RaceWaits waits;
    private final ByteBuffer sequences;
    private final long hashLookupMask;
    private final long hashLookupCapacity;
    private final long keyMask;
    private final int slotShift;
    private final int tierSize;

    GeneralLookup(MapFileMappings mappings, RaceWaits waits) {
        this.mappings = mappings;
        this.layout = mappings.layout;
        this.waits = waits;
        this.sequences = mappings.sequences;
        this.hashLookupMask = layout.hashLookupCapacity() - 1;
        this.hashLookupCapacity = layout.hashLookupCapacity();
        this.keyMask = (1L << layout.keyBits()) - 1;
        this.slotShift = layout.slotShift();
        this.tierSize = (int) layout.tierSize();
    }

    /**
     * Looks up the key of hash {@code hash}, given as an ASCII {@code String} ({@code ascii}) or else as
     * its first {@code keyLength} encoded {@code bytes}, retrying while the writer changes its segment.
     *
     * @return {@link MappedMap#PRESENT} (the value in {@code out}), {@link MappedMap#ABSENT} ({@code out} cleared) or
     *     {@link MappedMap#TIMED_OUT}
     * @throws StoreFormatException when the segment does not parse although no writer is changing it
     */
    int get(String ascii, byte[] bytes, int keyLength, long hash, Utf8Text out, long timeoutNanos) {
        int segment = layout.segmentOf(hash);
        long slotKey = layout.slotKeyOf(hash);
        long start = 0;
        for (int attempt = 0; ; attempt++) {
            long before = SequenceProtocol.readBegin(sequences, segment);
            if (!SequenceProtocol.inChange(before)) {
                int found = find(segment, slotKey, ascii, bytes, keyLength, out);
                if (SequenceProtocol.readValidate(sequences, segment, before)) {
                    // the copy is consistent: decoding it now cannot see a torn value
                    if (found == MappedMap.INCONSISTENT || found == MappedMap.PRESENT && !out.decode()) {
                        throw mappings.corrupt(segment);
                    }
                    if (found == MappedMap.ABSENT) {
                        out.clear();
                    }
                    return found;
                }
            }
            start = waits.afterRace(segment, before, start, attempt, timeoutNanos);
            if (start == SegmentWaits.GAVE_UP) {
                out.clear();
                return MappedMap.TIMED_OUT;
            }
        }
    }

    // ---- reading one segment; every method below may see a half-changed segment and must stay in bounds ----

    private int find(int segment, long slotKey, String ascii, byte[] key, int keyLength, Utf8Text out) {
        ByteBuffer buffer = mappings.firstTierBuffer[segment];
        int base = mappings.firstTierBase[segment];
        long tier = segment + 1L;
        for (long tiers = 0; tiers <= layout.maxExtraTiers(); tiers++) {
            if (tiers > 0) {
                buffer = mappings.tierBuffer(tier);
                if (buffer == null) {
                    return MappedMap.INCONSISTENT;
                }
                base = mappings.tierBase(tier);
            }
            int found = findInTier(buffer, base, slotKey, ascii, key, keyLength, out);
            if (found != MappedMap.ABSENT) {
                return found;
            }
            tier = mappings.nextTier(segment, tiers, buffer, base);
            if (tier == 0) {
                return MappedMap.ABSENT;
            }
        }
        return MappedMap.INCONSISTENT;
    }

    /**
     * Probes one tier (at {@code base} in {@code buffer}, {@code tierSize} bytes) for the key. Every offset taken
     * from the file is checked against the tier once, before the bytes it names are read; the buffer checks each
     * access against the mapping as well, so a damaged file can never be read outside it.
     */
    private int findInTier(
            ByteBuffer buffer, int base, long slotKey, String ascii, byte[] key, int keyLength, Utf8Text out) {
        long index = slotKey & hashLookupMask;
        for (long probes = 0; probes < hashLookupCapacity; probes++) {
            long slot = EntryBytes.slot(buffer, base, index, slotShift);
            if (slot == 0) {
                return MappedMap.ABSENT;
            }
            index = (index + 1) & hashLookupMask;
            if ((slot & keyMask) != slotKey) {
                continue;
            }
            int found = readEntry(buffer, base, slot, ascii, key, keyLength, out);
            if (found != MappedMap.OTHER_KEY) {
                return found;
            }
        }
        return MappedMap.INCONSISTENT; // Chronicle never fills a hash lookup (it adds a tier at 80 %): torn or damaged
    }

    /**
     * Reads the entry that hash-lookup slot {@code slot} of the tier at {@code base} names: {@link MappedMap#PRESENT}
     * (its value copied into {@code out}) when it holds the key, {@link MappedMap#OTHER_KEY} when it holds another
     * one, {@link MappedMap#INCONSISTENT} when it does not parse.
     */
    private int readEntry(
            ByteBuffer buffer, int base, long slot, String ascii, byte[] key, int keyLength, Utf8Text out) {
        int entry = layout.entryOffset(slot); // < tierSize (MapLayout checks the entry space)
        if (entry < 0) {
            return MappedMap.INCONSISTENT;
        }
        long keyField = EntryBytes.sizeAt(buffer, base, entry, tierSize);
        if (keyField < 0) {
            return MappedMap.INCONSISTENT;
        }
        int keySize = (int) keyField;
        int keyStart = entry + (int) (keyField >>> 32);
        if (keySize > tierSize - keyStart) { // not keyStart + keySize: two sizes near the tier's can overflow an int
            return MappedMap.INCONSISTENT;
        }
        if (keySize != keyLength
                || !(ascii != null
                        ? KeyWords.equalsAscii(buffer, base + keyStart, ascii, base + tierSize)
                        : KeyWords.equalsBytes(buffer, base + keyStart, key, keyLength, base + tierSize))) {
            return MappedMap.OTHER_KEY;
        }
        int valueSizeAt = keyStart + keySize;
        if (valueSizeAt >= tierSize) {
            return MappedMap.INCONSISTENT;
        }
        long valueField = EntryBytes.sizeAt(buffer, base, valueSizeAt, tierSize);
        if (valueField < 0) {
            return MappedMap.INCONSISTENT;
        }
        int valueSize = (int) valueField;
        int valueStart = valueSizeAt + (int) (valueField >>> 32);
        if (valueSize > tierSize - valueStart) {
            return MappedMap.INCONSISTENT;
        }
        EntryBytes.copyValue(buffer, base + valueStart, valueSize, base + tierSize, out);
        return MappedMap.PRESENT;
    }
}
