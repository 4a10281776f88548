package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Whether a generation fits the disk, asked before its file is created. Chronicle preallocates a generation's first
 * tiers ({@code posix_fallocate}), so a namespace too big for its file system would otherwise fail deep inside
 * Chronicle, or, on a file system without preallocation, crash the writer with SIGBUS at a later page fault. Every
 * generation the writer makes (a first build, a rebuild, a growth or replacement copy) is created through
 * {@link NamespaceWriter#createGeneration}, which asks here first; the refusal is one line with the figures.
 *
 * <p>There is no other size limit: readers map extra tier bulks of any size in windows (reader-lib's
 * {@code TierWindows}), and only a single tier must fit one window (1 GiB, see {@link EntryRoom}).
 */
public final class DiskFit {
    /**
     * Chronicle's header and segment headers, and the sequence file, beside the tiers: a segment header is at most
     * this many bytes (64 in the files measured), a sequence counter far less.
     */
    static final long PER_SEGMENT_BYTES = 128;
    /** Chronicle's self-describing header and global state, rounded up from measured files (a few KiB). */
    static final long HEADER_BYTES = 64 << 10;

    /** Where the free space of a directory's file system comes from: replaced by tests that play a small disk. */
    private static volatile ToLongFunction<Path> freeSpace = DiskFit::fileSystemFreeSpace;

    private DiskFit() {
    }

    /** Bytes the file system of {@code dir} has free for the writer now; 0 when it cannot say. */
    public static long usableSpace(Path dir) {
        return freeSpace.applyAsLong(dir);
    }

    private static long fileSystemFreeSpace(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * For tests: makes {@link #usableSpace} answer {@code figure} for every directory until the returned handle is
     * closed, so that a test can play a disk of any size without filling one.
     */
    public static AutoCloseable pretendFreeSpace(ToLongFunction<Path> figure) {
        freeSpace = figure;
        return () -> freeSpace = DiskFit::fileSystemFreeSpace;
    }

    /**
     * The bytes a new generation of {@code sizing} takes on disk as soon as it is created: Chronicle's header, a
     * first tier for every segment (lengthened for its largest entry, if any), and the same again for a
     * {@code reverseIndex}. Extra tiers come later, as segments overflow.
     */
    public static long bytesNeeded(GenerationSizing sizing, boolean reverseIndex) {
        long one = mapBytes(EntryRoom.tiersOf(sizing));
        if (!reverseIndex) {
            return one;
        }
        // sized as GenerationFile.create sizes a reverse index: values as keys, keys (and a separator) as values
        GenerationSizing reverse = new GenerationSizing(sizing.entries(), sizing.averageValueBytes(),
                sizing.averageKeyBytes() + 3, sizing.maxBloatFactor(), sizing.largestEntryBytes());
        return saturatedPlus(one, mapBytes(EntryRoom.tiersOf(reverse)));
    }

    private static long mapBytes(EntryRoom.Tiers tiers) {
        long perSegment = saturatedPlus(tiers.tierBytes(), PER_SEGMENT_BYTES);
        long segments = Math.multiplyHigh(tiers.segments(), perSegment) != 0 ? Long.MAX_VALUE
                : tiers.segments() * perSegment;
        return saturatedPlus(segments < 0 ? Long.MAX_VALUE : segments, HEADER_BYTES);
    }

    private static long saturatedPlus(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * Why a generation of {@code sizing} must not be created in {@code dir}, whose file system has
     * {@code usableBytes} free: one line with the bytes it needs, the bytes free, its entries and what to do; null
     * when it fits, or when the free space is unknown (0).
     */
    public static String shortfall(GenerationSizing sizing, boolean reverseIndex, long usableBytes, Path dir) {
        long needed = bytesNeeded(sizing, reverseIndex);
        if (usableBytes <= 0 || needed <= usableBytes) {
            return null;
        }
        return String.format(Locale.ROOT, "a generation of %,d entries (average key %d B, value %d B%s) needs %,d bytes on disk, "
                        + "but the file system of %s has %,d bytes free: give the store more disk, or hold fewer "
                        + "entries or smaller values in the topic", sizing.entries(),
                Math.round(sizing.averageKeyBytes()), Math.round(sizing.averageValueBytes()),
                reverseIndex ? ", with its reverse index" : "", needed, dir, usableBytes);
    }

    /**
     * Refuses, before anything is created, a generation that would not fit: see {@link #shortfall}.
     *
     * @throws IOException with that one line, as the file system's own refusal would be (the writer retries when
     *                     space is freed)
     */
    static void require(GenerationSizing sizing, boolean reverseIndex, long usableBytes, Path dir) throws IOException {
        String shortfall = shortfall(sizing, reverseIndex, usableBytes, dir);
        if (shortfall != null) {
            throw new IOException(shortfall);
        }
    }
}
