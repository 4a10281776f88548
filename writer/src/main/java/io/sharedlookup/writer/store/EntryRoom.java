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
 * takes 512 MiB of tiers (twice that with a reverse index). Readers need nothing new: the tier length is part of the
 * published layout. A generation whose lengthened tiers readers could not map (a tier over 1 GiB, the window readers
 * map tiers in, see reader-lib's {@code MapLayout}) is never made ({@link NoRoomForEntryException}), and
 * {@link #refusal} also says when one would take more than {@link #DISK_SHARE} of the free disk, so that the writer
 * skips such a record rather than try. Tier bulks may be of any size: readers map them in windows of whole tiers.
 */
public final class EntryRoom {
    /** Chronicle stores each of the key's and the value's sizes as a stop-bit number: at most 5 bytes for an int. */
    static final int SIZE_PREFIXES = 10;

    private EntryRoom() {}

    /**
     * Part of the usable disk one generation lengthened for a large entry may take: the quarter a first generation
     * may take too ({@code InitialSizing}), leaving room for the generation it replaces and for the other namespaces.
     */
    public static final double DISK_SHARE = 0.25;
    /** Reader-lib's {@code MapLayout} refuses a tier over this: a tier must fit one of the windows readers map. */
    static final long MAX_TIER_BYTES = 1L << 30;
    /** Chronicle lays tier parts out on cache lines, and makes a tier bulk at least a page. */
    private static final long CACHE_LINE = 64;

    private static final long PAGE = 4096;

    /**
     * Configures {@code builder} for {@code sizing}: its counts, averages and, when set, its largest entry.
     *
     * @throws NoRoomForEntryException when the tiers lengthened for the largest entry would make a file readers
     *                                 cannot map
     */
    static ChronicleMapBuilder<CharSequence, CharSequence> configure(
            ChronicleMapBuilder<CharSequence, CharSequence> builder, GenerationSizing sizing) {
        if (lengthen(builder, sizing)) {
            String why = layoutRefusal(tiers(builder), sizing.largestEntryBytes());
            if (why != null) {
                throw new NoRoomForEntryException(why);
            }
        }
        return builder;
    }

    /**
     * Why no generation of {@code sizing} should be made, or null when it may: one whose tiers, lengthened for its
     * largest entry, readers could not map, or whose lengthened tiers alone (every segment has one; as many again for
     * a {@code reverseIndex}) would take more than {@link #DISK_SHARE} of {@code usableDiskBytes} (not checked when
     * that is unknown, negative, or 0: a full disk is the retryable refusal of {@link DiskFit}, not a reason to skip
     * the record). A generation sized from its averages alone is never refused here.
     */
    public static String refusal(GenerationSizing sizing, boolean reverseIndex, long usableDiskBytes) {
        ChronicleMapBuilder<CharSequence, CharSequence> builder = GenerationMaps.builder();
        if (!lengthen(builder, sizing)) {
            return null;
        }
        Tiers tiers = tiers(builder);
        String why = layoutRefusal(tiers, sizing.largestEntryBytes());
        if (why != null) {
            return why;
        }
        long fileBytes = saturatedTimes(tiers.segments * (reverseIndex ? 2 : 1), tiers.tierBytes);
        long budget = (long) (usableDiskBytes * DISK_SHARE);
        if (usableDiskBytes > 0 && fileBytes > budget) {
            return "an entry of " + sizing.largestEntryBytes() + " bytes needs tiers of " + tiers.tierBytes
                    + " bytes in each of the generation's " + tiers.segments + " segments"
                    + (reverseIndex ? " and as many in its reverse index" : "") + ": " + fileBytes + " bytes, over "
                    + Math.round(DISK_SHARE * 100) + "% of the " + usableDiskBytes + " bytes free on disk";
        }
        return null;
    }

    /** Lengthens the tiers of {@code builder} (configured for {@code sizing}) for its largest entry, if needed. */
    private static boolean lengthen(ChronicleMapBuilder<CharSequence, CharSequence> builder, GenerationSizing sizing) {
        builder.entries(sizing.entries())
                .averageKeySize(sizing.averageKeyBytes())
                .averageValueSize(sizing.averageValueBytes())
                .maxBloatFactor(sizing.maxBloatFactor());
        if (sizing.largestEntryBytes() <= 0) {
            return false;
        }
        long chunkSize = builderLong(builder, "chunkSize");
        long chunksPerTier = builderLong(builder, "actualChunksPerSegmentTier");
        long needed = (sizing.largestEntryBytes() + SIZE_PREFIXES + chunkSize - 1) / chunkSize;
        if (needed <= chunksPerTier) {
            return false;
        }
        // Only the tier's entry space grows: segments, entries per segment (the hash lookup) and chunk size
        // stay as Chronicle chose them, set explicitly since it takes a tier length only with those three.
        long segments = builderLong(builder, "actualSegments");
        long entriesPerSegment = builderLong(builder, "entriesPerSegment");
        builder.actualSegments(Math.toIntExact(segments))
                .entriesPerSegment(entriesPerSegment)
                .actualChunkSize(Math.toIntExact(chunkSize))
                .actualChunksPerSegmentTier(needed);
        return true;
    }

    /** Segments, tier size and tier bulk size of a file {@code builder} would make: Chronicle's own arithmetic. */
    record Tiers(long segments, long tierBytes, long bulkBytes) {}

    /**
     * The segments and tiers of a generation of {@code sizing}, lengthened for its largest entry if need be.
     *
     * @throws NoRoomForEntryException as {@link #configure} does, when readers could not map those tiers
     */
    static Tiers tiersOf(GenerationSizing sizing) {
        ChronicleMapBuilder<CharSequence, CharSequence> builder = GenerationMaps.builder();
        boolean lengthened = lengthen(builder, sizing);
        Tiers tiers = tiers(builder);
        String why = lengthened ? layoutRefusal(tiers, sizing.largestEntryBytes()) : null;
        if (why != null) {
            throw new NoRoomForEntryException(why);
        }
        return tiers;
    }

    /**
     * Works out what {@code VanillaChronicleHash} will lay out, from its builder's numbers: a tier is the hash lookup
     * (at most 8 bytes a slot), the free list with the tier's counters, and the entry space, each on cache lines; a
     * bulk of extra tiers holds segments / 8 tiers (a power of two, at least a page). Rounded up where Chronicle may
     * round, so that it errs towards refusing.
     */
    private static Tiers tiers(ChronicleMapBuilder<?, ?> builder) {
        long segments = builderLong(builder, "actualSegments");
        long chunks = builderLong(builder, "actualChunksPerSegmentTier");
        long entrySpace = saturatedTimes(builderLong(builder, "chunkSize"), chunks);
        long tier = plus(
                plus(
                        alignUp(saturatedTimes(builderLong(builder, "tierHashLookupCapacity"), 8)),
                        alignUp(chunks / 8 + 8 + CACHE_LINE)),
                plus(alignUp(plus(builderLong(builder, "segmentEntrySpaceInnerOffset"), entrySpace)), CACHE_LINE));
        long tiersInBulk = Math.max(1, Long.highestOneBit(Math.max(1, segments / 8)));
        if (tiersInBulk < segments / 8) {
            tiersInBulk *= 2; // Chronicle takes the next power of two
        }
        while (saturatedTimes(tiersInBulk, tier) < PAGE) {
            tiersInBulk *= 2;
        }
        return new Tiers(segments, tier, plus(saturatedTimes(tiersInBulk, tier), PAGE));
    }

    private static String layoutRefusal(Tiers tiers, long entryBytes) {
        if (tiers.tierBytes > MAX_TIER_BYTES) {
            return "an entry of " + entryBytes + " bytes needs tiers of " + tiers.tierBytes + " bytes in each of the "
                    + "generation's " + tiers.segments + " segments: over what readers can map (a tier of 1 GiB)";
        }
        return null;
    }

    private static long alignUp(long bytes) {
        return bytes >= Long.MAX_VALUE - CACHE_LINE
                ? Long.MAX_VALUE
                : (bytes + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
    }

    private static long plus(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum; // both are sizes, never negative
    }

    private static long saturatedTimes(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        return high != 0 || a * b < 0 ? Long.MAX_VALUE : a * b;
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
            throw new IllegalStateException(
                    "Cannot read Chronicle Map's " + method + " to size a generation for "
                            + "its largest entry; this Chronicle Map version is not supported: " + e,
                    e);
        }
    }
}
