package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a generation fits the disk, asked before its file is created. Chronicle preallocates a generation's first
 * tiers ({@code posix_fallocate}), so a namespace too big for its file system would otherwise fail deep inside
 * Chronicle, or, on a file system without preallocation, crash the writer with SIGBUS at a later page fault. Every
 * generation the writer makes (a first build, a rebuild, a growth or replacement copy) is created through
 * {@link NamespaceDirectory#createGeneration}, which asks here first; the refusal is one line with the figures.
 *
 * <p>There is no other size limit: readers map extra tier bulks of any size in windows (reader-lib's
 * {@code TierWindows}), and only a single tier must fit one window (1 GiB, see {@link EntryRoom}).
 */
public final class DiskFit {
    private static final Logger log = LoggerFactory.getLogger(DiskFit.class);
    /** What {@link #usableSpace} answers when the file system cannot say: never confused with a full disk (0). */
    public static final long UNKNOWN = -1;
    /**
     * Chronicle's header and segment headers, and the sequence file, beside the tiers: a segment header is at most
     * this many bytes (64 in the files measured), a sequence counter far less.
     */
    static final long PER_SEGMENT_BYTES = 128;
    /** Chronicle's self-describing header and global state, rounded up from measured files (a few KiB). */
    static final long HEADER_BYTES = 64 << 10;

    /** Where the free space of a directory's file system comes from: replaced by tests that play a small disk. */
    private static volatile ToLongFunction<Path> freeSpace = DiskFit::fileSystemFreeSpace;
    /** Chronicle's tiers for a sizing: replaced by tests that play a Chronicle whose builder cannot be read. */
    private static volatile Function<GenerationSizing, EntryRoom.Tiers> tiersOf = EntryRoom::tiersOf;
    /** The skipped check is said once, not for every generation. */
    private static final AtomicBoolean warnedSkip = new AtomicBoolean();

    private DiskFit() {}

    /**
     * Bytes the file system of {@code dir} has free for the writer now (0 on a full disk); {@link #UNKNOWN} when it
     * cannot say.
     */
    public static long usableSpace(Path dir) {
        return freeSpace.applyAsLong(dir);
    }

    static long fileSystemFreeSpace(Path dir) {
        try {
            return Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            // java.io.File asks the file system another way; its 0 also means "cannot say" (no such path), so it
            // only counts when positive
            long free = dir.toFile().getUsableSpace();
            return free > 0 ? free : UNKNOWN;
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
        long one = mapBytes(tiersOf.apply(sizing));
        if (!reverseIndex) {
            return one;
        }
        // sized as GenerationFile.create sizes a reverse index: values as keys, keys (and a separator) as values
        GenerationSizing reverse = new GenerationSizing(
                sizing.entries(),
                sizing.averageValueBytes(),
                sizing.averageKeyBytes() + 3,
                sizing.maxBloatFactor(),
                sizing.largestEntryBytes());
        return saturatedPlus(one, mapBytes(tiersOf.apply(reverse)));
    }

    private static long mapBytes(EntryRoom.Tiers tiers) {
        long perSegment = saturatedPlus(tiers.tierBytes(), PER_SEGMENT_BYTES);
        long segments =
                Math.multiplyHigh(tiers.segments(), perSegment) != 0 ? Long.MAX_VALUE : tiers.segments() * perSegment;
        return saturatedPlus(segments < 0 ? Long.MAX_VALUE : segments, HEADER_BYTES);
    }

    private static long saturatedPlus(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * Why a generation of {@code sizing} must not be created in {@code dir}, whose file system has
     * {@code usableBytes} free: one line with the bytes it needs, the bytes free, its entries and what to do; null
     * when it fits, or when the free space is unknown (negative, {@link #UNKNOWN}). A full disk (0) fits nothing.
     */
    public static String shortfall(GenerationSizing sizing, boolean reverseIndex, long usableBytes, Path dir) {
        return usableBytes < 0
                ? null
                : shortfall(sizing, reverseIndex, bytesNeeded(sizing, reverseIndex), usableBytes, dir);
    }

    private static String shortfall(
            GenerationSizing sizing, boolean reverseIndex, long needed, long usableBytes, Path dir) {
        if (needed <= usableBytes) {
            return null;
        }
        return String.format(
                Locale.ROOT,
                "a generation of %,d entries (average key %d B, value %d B%s) needs %,d bytes on disk, "
                        + "but the file system of %s has %,d bytes free: give the store more disk, or hold fewer "
                        + "entries or smaller values in the topic",
                sizing.entries(),
                Math.round(sizing.averageKeyBytes()),
                Math.round(sizing.averageValueBytes()),
                reverseIndex ? ", with its reverse index" : "",
                needed,
                dir,
                usableBytes);
    }

    /**
     * Refuses, before anything is created, a generation that would not fit: see {@link #shortfall}. The tiers are
     * worked out once, for both checks: first whether readers could map them at all (permanent), then the disk.
     * When they cannot be worked out (Chronicle's builder not readable) the disk check is skipped, with a warning:
     * it is only an early, clearer form of the file system's own refusal.
     *
     * @throws NoRoomForEntryException when no generation can take the sizing's largest entry: not worth a retry
     * @throws IOException             with the one line of {@link #shortfall}, as the file system's own refusal would
     *                                 be (the writer retries when space is freed)
     */
    static void require(GenerationSizing sizing, boolean reverseIndex, long usableBytes, Path dir) throws IOException {
        long needed;
        try {
            needed = bytesNeeded(sizing, reverseIndex);
        } catch (NoRoomForEntryException e) {
            throw e;
        } catch (RuntimeException e) {
            if (warnedSkip.compareAndSet(false, true)) {
                log.warn(
                        "Not checking that new generations fit the disk: cannot estimate their size ({}); a full "
                                + "disk is reported by the file system instead",
                        e.toString().replace('\n', ' '));
            }
            return;
        }
        String shortfall = usableBytes < 0 ? null : shortfall(sizing, reverseIndex, needed, usableBytes, dir);
        if (shortfall != null) {
            throw new IOException(shortfall);
        }
    }

    /**
     * For tests: makes the tier estimate fail with {@code failure} until the returned handle is closed, as it would
     * with a Chronicle Map version whose builder cannot be read.
     */
    static AutoCloseable pretendTiersUnknown(RuntimeException failure) {
        tiersOf = sizing -> {
            throw failure;
        };
        return () -> tiersOf = EntryRoom::tiersOf;
    }
}
