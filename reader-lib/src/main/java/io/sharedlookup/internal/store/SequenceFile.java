package io.sharedlookup.internal.store;

import java.nio.file.Path;

/**
 * The sequence file beside each map file of format version 2: one 64-bit little-endian counter per segment, each on
 * its own 64-byte cache line. The writer makes a segment's counter odd before it changes that segment and even again
 * after, inside Chronicle Map's segment write lock, so changes by two writer threads never interleave. A reader reads
 * the counter, reads the segment, and reads the counter again: equal and even means the read saw no change.
 */
public final class SequenceFile {
    /** Bytes between two counters: one cache line, so that segments written by different threads never share one. */
    public static final int STRIDE = 64;

    private SequenceFile() {}

    /** The sequence file of {@code mapFile} ({@code g0000000007.cmap} to {@code g0000000007.seq}). */
    public static Path of(Path mapFile) {
        String name = mapFile.getFileName().toString();
        return mapFile.resolveSibling(name.substring(0, name.length() - ".cmap".length()) + ".seq");
    }
}
