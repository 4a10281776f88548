package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.MapLayout;
import java.lang.reflect.Method;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * How large an entry a generation file takes. Chronicle Map keeps an entry within one segment tier: at most
 * {@code chunkSize x chunksPerTier} bytes, both derived from the average key and value sizes it was configured with.
 * A generation sized from averages that many small updates pulled down can therefore refuse a value its predecessor
 * holds; here the tier is made long enough for {@link GenerationSizing#largestEntryBytes()} as well.
 *
 * <p>The cost: every segment's tiers are at least that long, so one value of 1 MiB in a namespace of 512 segments
 * takes 512 MiB of tiers. Readers need nothing new: the tier length is part of the published layout.
 */
public final class EntryRoom {
    /** Chronicle stores each of the key's and the value's sizes as a stop-bit number: at most 5 bytes for an int. */
    static final int SIZE_PREFIXES = 10;

    private EntryRoom() {
    }

    /** Configures {@code builder} for {@code sizing}: its counts, averages and, when set, its largest entry. */
    static ChronicleMapBuilder<CharSequence, CharSequence> configure(
            ChronicleMapBuilder<CharSequence, CharSequence> builder, GenerationSizing sizing) {
        builder.entries(sizing.entries())
                .averageKeySize(sizing.averageKeyBytes())
                .averageValueSize(sizing.averageValueBytes())
                .maxBloatFactor(sizing.maxBloatFactor());
        if (sizing.largestEntryBytes() > 0) {
            long chunkSize = builderLong(builder, "chunkSize");
            long chunksPerTier = builderLong(builder, "actualChunksPerSegmentTier");
            long needed = (sizing.largestEntryBytes() + SIZE_PREFIXES + chunkSize - 1) / chunkSize;
            if (needed > chunksPerTier) {
                // Only the tier's entry space grows: segments, entries per segment (the hash lookup) and chunk size
                // stay as Chronicle chose them, set explicitly since it takes a tier length only with those three.
                long segments = builderLong(builder, "actualSegments");
                long entriesPerSegment = builderLong(builder, "entriesPerSegment");
                builder.actualSegments(Math.toIntExact(segments)).entriesPerSegment(entriesPerSegment)
                        .actualChunkSize(Math.toIntExact(chunkSize)).actualChunksPerSegmentTier(needed);
            }
        }
        return builder;
    }

    /** The UTF-8 key plus value bytes of the largest entry {@code generation} takes. */
    public static long maxEntryBytes(GenerationFile generation) {
        MapLayout layout = generation.layout();
        return Math.max(0, layout.chunkSize() * layout.chunksPerTier() - SIZE_PREFIXES);
    }

    /**
     * Chronicle works the chunk size and tier length out from the averages in package-private methods of its
     * builder; asking them is the only way to know, before creating the file, whether the tier is long enough.
     */
    private static long builderLong(ChronicleMapBuilder<?, ?> builder, String method) {
        try {
            Method m = ChronicleMapBuilder.class.getDeclaredMethod(method);
            m.setAccessible(true);
            return ((Number) m.invoke(builder)).longValue();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("Cannot read Chronicle Map's " + method + " to size a generation for "
                    + "its largest entry; this Chronicle Map version is not supported: " + e, e);
        }
    }
}
