package io.sharedlookup.internal.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * The reads of one map file that visit every segment: its change count, its size and its entries. Each segment is
 * read consistently under the sequence protocol (read again while the writer changes it, waiting as {@link RaceWaits}
 * says) and checked against its tiers as a lookup is; an inconsistent segment that did not change means the file is
 * damaged.
 */
final class SegmentScans {
    private final MapFileMappings mappings;
    private final MapLayout layout;
    private final RaceWaits waits;
    private final ByteBuffer sequences;
    private final int slotShift;
    private final int tierSize;

    SegmentScans(MapFileMappings mappings, RaceWaits waits) {
        this.mappings = mappings;
        this.layout = mappings.layout;
        this.waits = waits;
        this.sequences = mappings.sequences;
        this.slotShift = layout.slotShift();
        this.tierSize = (int) layout.tierSize();
    }

    /**
     * The sum of every segment's sequence counter: it grows with every change the writer makes to this file (each
     * moves one counter on by two), and stays put while none is made. Read without waiting for a change in flight.
     */
    long changeCount() {
        long sum = 0;
        for (int segment = 0; segment < layout.segments(); segment++) {
            sum += SequenceProtocol.current(sequences, segment);
        }
        return sum;
    }

    /**
     * The number of entries, each segment counted consistently.
     *
     * @return the count, or -1 when a segment stayed in the middle of a change for longer than {@code timeoutNanos}
     */
    long size(long timeoutNanos) {
        long total = 0;
        for (int segment = 0; segment < layout.segments(); segment++) {
            long start = 0;
            for (int attempt = 0; ; attempt++) {
                long before = SequenceProtocol.readBegin(sequences, segment);
                if (!SequenceProtocol.inChange(before)) {
                    long count = segmentSize(segment);
                    if (SequenceProtocol.readValidate(sequences, segment, before)) {
                        if (count < 0) {
                            throw mappings.corrupt(segment);
                        }
                        total += count;
                        break;
                    }
                }
                start = waits.afterRace(segment, before, start, attempt, timeoutNanos);
                if (start == SegmentWaits.GAVE_UP) {
                    return -1;
                }
            }
        }
        return total;
    }

    /**
     * Calls {@code action} for every entry, segment by segment: each segment is copied consistently first, then its
     * entries are passed on, so the action runs outside any read and may take as long as it likes.
     *
     * @return whether every entry was visited ({@code action} never returned false)
     * @throws LockTimeoutException when a segment stayed in the middle of a change for longer than the bound
     */
    boolean forEachWhile(BiPredicate<String, String> action, long timeoutNanos) {
        List<String> pairs = new ArrayList<>();
        Utf8Text text = new Utf8Text();
        for (int segment = 0; segment < layout.segments(); segment++) {
            long start = 0;
            long firstSeen = 0;
            for (int attempt = 0; ; attempt++) {
                pairs.clear();
                long before = SequenceProtocol.readBegin(sequences, segment);
                if (attempt == 0) {
                    firstSeen = before;
                }
                if (!SequenceProtocol.inChange(before)) {
                    boolean consistent = copySegment(segment, pairs, text);
                    if (SequenceProtocol.readValidate(sequences, segment, before)) {
                        if (!consistent) {
                            throw mappings.corrupt(segment);
                        }
                        break;
                    }
                }
                start = waits.afterRace(segment, before, start, attempt, timeoutNanos);
                if (start == SegmentWaits.GAVE_UP) {
                    // Stuck: odd and unmoved all along (a writer died mid-change); else a busy writer kept moving it.
                    String segmentOfFile = "Segment " + segment + " of " + mappings.file;
                    throw new LockTimeoutException(
                            SequenceProtocol.inChange(before) && before == firstSeen
                                    ? segmentOfFile
                                            + " stayed in the middle of a change for over the lock timeout (its "
                                            + "writer probably died); the next writer rebuilds it"
                                    : segmentOfFile
                                            + " kept changing throughout the lock timeout while this scan copied it "
                                            + "(a busy writer): open the store with a longer lockTimeout for scans of this "
                                            + "namespace");
                }
            }
            for (int i = 0; i < pairs.size(); i += 2) {
                if (!action.test(pairs.get(i), pairs.get(i + 1))) {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- reading one segment; every method below may see a half-changed segment and must stay in bounds ----

    private long segmentSize(int segment) {
        ByteBuffer headers = mappings.headers;
        int header = layout.segmentHeaderOffset(segment);
        long count = (headers.getInt(header + (int) MapLayout.SEGMENT_ENTRIES) & 0xFFFFFFFFL)
                - (headers.getInt(header + (int) MapLayout.SEGMENT_DELETED) & 0xFFFFFFFFL);
        long tier = headers.getLong(header + (int) MapLayout.SEGMENT_NEXT_TIER);
        for (long tiers = 0; tier != 0; tiers++) {
            ByteBuffer buffer = mappings.tierBuffer(tier);
            if (buffer == null || tiers >= layout.maxExtraTiers()) {
                return -1;
            }
            int counters = mappings.tierBase(tier) + (int) layout.countersOffset();
            count += (buffer.getInt(counters + (int) MapLayout.TIER_ENTRIES) & 0xFFFFFFFFL)
                    - (buffer.getInt(counters + (int) MapLayout.TIER_DELETED) & 0xFFFFFFFFL);
            tier = buffer.getLong(counters + (int) MapLayout.TIER_NEXT_TIER);
        }
        return count;
    }

    /** Appends key, value, key, value… of every entry of {@code segment} to {@code pairs}; false when inconsistent. */
    private boolean copySegment(int segment, List<String> pairs, Utf8Text text) {
        if (segmentSize(segment) < 0) { // a looping or broken tier chain, found by its links before any copying
            return false;
        }
        long tier = segment + 1L;
        for (long tiers = 0; tiers <= layout.maxExtraTiers(); tiers++) {
            ByteBuffer buffer = mappings.tierBuffer(tier);
            if (buffer == null) {
                return false;
            }
            int base = mappings.tierBase(tier);
            for (long index = 0; index < layout.hashLookupCapacity(); index++) {
                long slot = EntryBytes.slot(buffer, base, index, slotShift);
                if (slot == 0) {
                    continue;
                }
                int entry = layout.entryOffset(slot);
                long keyField = entry < 0 ? -1 : EntryBytes.sizeAt(buffer, base, entry, tierSize);
                if (keyField < 0) {
                    return false;
                }
                int keySize = (int) keyField;
                int keyStart = entry + (int) (keyField >>> 32);
                // sizes compared with what is left of the tier: an offset plus a size could overflow an int
                long valueField = keySize >= tierSize - keyStart
                        ? -1
                        : EntryBytes.sizeAt(buffer, base, keyStart + keySize, tierSize);
                if (valueField < 0) {
                    return false;
                }
                int valueSizeAt = keyStart + keySize;
                int valueSize = (int) valueField;
                int valueStart = valueSizeAt + (int) (valueField >>> 32);
                if (valueSize > tierSize - valueStart) {
                    return false;
                }
                EntryBytes.copyValue(buffer, base + keyStart, keySize, base + tierSize, text);
                if (!text.decode()) {
                    return false;
                }
                pairs.add(text.toString());
                EntryBytes.copyValue(buffer, base + valueStart, valueSize, base + tierSize, text);
                if (!text.decode()) {
                    return false;
                }
                pairs.add(text.toString());
            }
            tier = mappings.nextTier(segment, tiers, buffer, base);
            if (tier == 0) {
                return true;
            }
        }
        return false;
    }
}
