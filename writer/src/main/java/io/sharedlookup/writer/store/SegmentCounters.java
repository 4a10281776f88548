package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.SequenceProtocol;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The writer's side of a map file's sequence file (see {@link SequenceFile}): {@link #begin} makes a segment's
 * counter odd before the segment changes, {@link #end} makes it even again after, as {@link SequenceProtocol} says
 * (the one place the protocol is written, shared with the readers). Callers hold Chronicle's segment
 * write lock around both, so two writer threads never interleave on one counter.
 */
final class SegmentCounters {
    private final ByteBuffer counters;

    private SegmentCounters(ByteBuffer counters) {
        this.counters = counters;
    }

    /** Creates the zeroed sequence file of {@code mapFile}, with the store's file mode before it holds anything. */
    static SegmentCounters create(Path mapFile, int segments, StorePermissions permissions) throws IOException {
        Path file = SequenceFile.of(mapFile);
        Files.deleteIfExists(file); // left by a killed writer's half-built generation of the same number
        permissions.createFile(file);
        // Written, not just mapped: mapping past the end lengthens the file without the file system giving it
        // blocks, and on a full disk the first counter update would then end the JVM with SIGBUS. A write fails
        // cleanly (ENOSPC) instead.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer zeros = ByteBuffer.allocate(segments * SequenceFile.STRIDE);
            while (zeros.hasRemaining()) {
                ch.write(zeros);
            }
            // Its length is durable before any manifest names the generation (a publish fsyncs the map files and
            // the directory, not this): after a power loss a short one would make readers refuse the namespace.
            ch.force(true);
        }
        return map(file, segments);
    }

    /**
     * Maps the existing sequence file of {@code mapFile}, for a generation resumed after a clean stop. The file is not
     * fsynced (its counters are not data), so after a power loss a counter may be odd: no change is in flight now
     * (this writer owns the namespace), so such a counter is moved on to even, which readers see as a change.
     */
    static SegmentCounters open(Path mapFile, int segments) throws IOException {
        Path file = SequenceFile.of(mapFile);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                || Files.size(file) < (long) segments * SequenceFile.STRIDE) {
            throw new IOException("Sequence file " + file + " is missing or truncated; the namespace is rebuilt");
        }
        SegmentCounters counters = map(file, segments);
        for (int segment = 0; segment < segments; segment++) {
            if ((counters.value(segment) & 1) != 0) {
                counters.end(segment);
            }
        }
        return counters;
    }

    private static SegmentCounters map(Path file, int segments) throws IOException {
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) segments * SequenceFile.STRIDE);
            return new SegmentCounters(buffer.order(ByteOrder.LITTLE_ENDIAN));
        }
    }

    /** Before changing {@code segment}: its counter goes odd, and no change to the segment is visible before that. */
    void begin(int segment) {
        SequenceProtocol.beginChange(counters, segment);
    }

    /** After changing {@code segment}: every change is visible before its counter goes even again. */
    void end(int segment) {
        SequenceProtocol.endChange(counters, segment);
    }

    /** The counter of {@code segment} (for tests). */
    long value(int segment) {
        return SequenceProtocol.current(counters, segment);
    }
}
