package io.sharedlookup.internal.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.function.BiPredicate;

/**
 * A map file as a reader holds it open, seen as a whole rather than key by key: which file and layout it is, the
 * writer its waits follow, the scans over all its segments, its release, and the file-level helpers its tier bulks
 * use. Everything {@link MappedMap} does besides looking keys up, none of it on a lookup's path.
 *
 * <p>Why a superclass of {@link MappedMap} rather than an object it holds: these members stay on the same object, so
 * callers keep calling them on the map, and the lookup methods, which read only {@link MappedMap}'s own final fields,
 * gain no field, load or call from the split (see {@link MappedMap}'s class comment on why that matters).
 */
abstract class MappedMapFile extends KeyClassifier {
    /** How long a read waits for an extra tier bulk to be mapped, for callers that name no bound. */
    public static final long DEFAULT_MAPPING_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
    /** The file's mappings: the cold paths reach the tiers through them. */
    final MapFileMappings mappings;
    /** How the lookups and the scans wait after a race with the writer, and whether they follow its liveness. */
    final RaceWaits waits;

    private final SegmentScans scans;

    MappedMapFile(MapFileMappings mappings) {
        this.mappings = mappings;
        this.waits = new RaceWaits(mappings.layout.segments());
        this.scans = new SegmentScans(mappings, waits);
    }

    /**
     * Makes reads of this map wait for a segment mid-change while {@code liveness} says the writer is alive, up to
     * {@code liveBoundNanos}, rather than give up at the caller's short bound (see {@link SegmentWaits}). Until
     * called, and with a liveness that is unknown, the short bound holds.
     */
    public void followWriter(WriterLiveness liveness, long liveBoundNanos) {
        waits.follow(liveness, liveBoundNanos);
    }

    /** See {@link MapFileMappings#requireCompleteHeader}: used by the writer on a file it reopens. */
    public static void requireCompleteHeader(FileChannel channel, Path file, long limit) throws IOException {
        MapFileMappings.requireCompleteHeader(channel, file, limit);
    }

    /** The identity of {@code file} (device and inode on Linux), which a file replaced under the same name changes. */
    static Object fileKey(Path file) throws IOException {
        return MapFileMappings.fileKey(file);
    }

    /** See {@link MapFileMappings#map}. */
    static ByteBuffer map(FileChannel channel, long offset, long size) throws IOException {
        return MapFileMappings.map(channel, offset, size);
    }

    static void closeQuietly(FileChannel channel) {
        MapFileMappings.closeQuietly(channel);
    }

    public Path file() {
        return mappings.file;
    }

    public MapLayout layout() {
        return mappings.layout;
    }

    /** The sum of every segment's sequence counter, which each change moves on: {@link SegmentScans#changeCount}. */
    public long changeCount() {
        return scans.changeCount();
    }

    /** The number of entries, or -1 past the bound: {@link SegmentScans#size}. */
    public long size(long timeoutNanos) {
        return scans.size(timeoutNanos);
    }

    /** Calls {@code action} for every entry while it returns true: {@link SegmentScans#forEachWhile}. */
    public boolean forEachWhile(BiPredicate<String, String> action, long timeoutNanos) {
        return scans.forEachWhile(action, timeoutNanos);
    }

    /**
     * Closes the file descriptor kept for mapping extra tier bulks, when this map is given up before use (a generation
     * whose other file failed to open). Mappings made so far stay valid; the garbage collector releases them.
     */
    public void close() {
        mappings.close();
    }
}
