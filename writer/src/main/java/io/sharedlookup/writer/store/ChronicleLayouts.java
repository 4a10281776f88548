package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.MapLayout;
import java.nio.file.Path;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.hash.serialization.impl.CharSequenceSizedReader;
import net.openhft.chronicle.hash.serialization.impl.CharSequenceUtf8DataAccess;
import net.openhft.chronicle.hash.serialization.impl.StopBitSizeMarshaller;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.VanillaChronicleMap;

/**
 * Reads, from a Chronicle Map the writer opened, the layout it publishes for readers (store format version 2): the
 * one place that knows Chronicle's internal field names.
 */
final class ChronicleLayouts {
    private ChronicleLayouts() {}

    /**
     * What readers need to read {@code map}'s file without Chronicle. Refuses a map whose entries are laid out in a
     * way the readers do not know (another size or text encoding, alignment): a reader must never guess.
     */
    static MapLayout of(ChronicleMap<CharSequence, CharSequence> chronicleMap, Path file) {
        if (chronicleMap.getClass() != VanillaChronicleMap.class) {
            throw new IllegalStateException("Unexpected Chronicle Map implementation " + chronicleMap.getClass()
                    + " for " + file + ": readers cannot read its layout");
        }
        VanillaChronicleMap<?, ?, ?> m = (VanillaChronicleMap<?, ?, ?>) chronicleMap;
        boolean known = m.keySizeMarshaller instanceof StopBitSizeMarshaller
                && m.valueSizeMarshaller instanceof StopBitSizeMarshaller
                && m.keyDataAccess instanceof CharSequenceUtf8DataAccess
                && m.keyReader instanceof CharSequenceSizedReader
                && m.valueReader instanceof CharSequenceSizedReader
                && m.alignment == 1;
        if (!known) {
            throw new IllegalStateException("Chronicle Map laid " + file + " out with marshallers or alignment "
                    + "readers do not know; this Chronicle Map version is not supported");
        }
        long base = m.bsAddress();
        long segmentsOffset = m.segmentBaseAddr(0) - base;
        int segmentHeaderSize = Math.toIntExact((segmentsOffset - m.segmentHeadersOffset) / m.actualSegments);
        long entrySpace = m.tierHashLookupOuterSize
                + VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE
                + m.tierFreeListOuterSize
                + m.tierEntrySpaceInnerOffset;
        return new MapLayout(
                m.persistedDataVersion(),
                m.actualSegments,
                m.segmentHeadersOffset,
                segmentHeaderSize,
                segmentsOffset,
                m.tierSize,
                m.sizeInBytesWithoutTiers(),
                m.tiersInBulk,
                m.tiersInBulk * m.tierSize,
                0,
                maxExtraTiers(m),
                m.tierHashLookupSlotSize,
                m.tierHashLookupCapacity,
                m.tierHashLookupKeyBits,
                m.tierHashLookupValueBits,
                m.tierHashLookupOuterSize,
                entrySpace,
                m.chunkSize,
                m.actualChunksPerSegmentTier);
    }

    private static long maxExtraTiers(VanillaChronicleMap<?, ?, ?> m) {
        try {
            java.lang.reflect.Field f = VanillaChronicleHash.class.getDeclaredField("maxExtraTiers");
            f.setAccessible(true);
            return f.getLong(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("Cannot read Chronicle Map's tier limit: " + e, e);
        }
    }
}
