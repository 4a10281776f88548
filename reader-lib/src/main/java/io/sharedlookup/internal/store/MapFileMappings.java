package io.sharedlookup.internal.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;

/**
 * The read-only mappings of one of the writer's map files and of its sequence file, and where each tier lies in them:
 * the segment headers in one mapping, the first tiers in windows of whole tiers (a {@code ByteBuffer} addresses at most
 * 2 GiB), the extra tier bulks in {@link TierBulks}, mapped on first use. Nothing here reads an entry.
 *
 * <p>Mappings are released by the garbage collector once nothing refers to them (no mapped memory can be touched
 * after release, so there is no crash to guard against).
 */
final class MapFileMappings {
    final Path file;
    final MapLayout layout;
    /** The extra tier bulks, mapped on first use. */
    final TierBulks bulks;
    /** The segment headers, from {@link MapLayout#segmentHeadersOffset}. */
    final ByteBuffer headers;
    /** The first tiers, {@link #tiersPerWindow} whole tiers per window. */
    final ByteBuffer[] windows;

    final int tiersPerWindow;
    /** The generation's sequence counters, one per segment ({@link SequenceFile}). */
    final ByteBuffer sequences;
    /** Per segment: the window holding its first tier, and where in it the tier starts. */
    final ByteBuffer[] firstTierBuffer;

    final int[] firstTierBase;
    /** The highest tier number (1-based) the layout allows, extra bulks rounded up to whole bulks. */
    private final long maxTierIndex;

    private MapFileMappings(
            Path file,
            MapLayout layout,
            TierBulks bulks,
            ByteBuffer headers,
            ByteBuffer[] windows,
            int tiersPerWindow,
            ByteBuffer sequences) {
        this.file = file;
        this.layout = layout;
        this.bulks = bulks;
        this.headers = headers;
        this.windows = windows;
        this.tiersPerWindow = tiersPerWindow;
        this.sequences = sequences;
        long extraBulks = (layout.maxExtraTiers() + layout.tiersInBulk() - 1) / layout.tiersInBulk();
        this.maxTierIndex = layout.segments() + extraBulks * layout.tiersInBulk();
        this.firstTierBuffer = new ByteBuffer[layout.segments()];
        this.firstTierBase = new int[layout.segments()];
        for (int segment = 0; segment < layout.segments(); segment++) {
            firstTierBuffer[segment] = tierBuffer(segment + 1L);
            firstTierBase[segment] = tierBase(segment + 1L);
        }
    }

    /** See {@link MappedMap#open(Path, Path, MapLayout, long)}. */
    static MapFileMappings open(Path file, Path sequenceFile, MapLayout layout, long mappingWaitNanos) {
        try {
            return MappingThread.call(() -> openUninterrupted(file, sequenceFile, layout, mappingWaitNanos));
        } catch (AccessDeniedException e) {
            throw new StoreFormatException(
                    "Cannot map " + e.getFile() + " for reading: permission denied (the reader "
                            + "needs read permission on the store files: add its user to the writer's group)",
                    e);
        } catch (IOException e) {
            throw new StoreFormatException(
                    "Cannot map " + file + " for reading: " + e + " (a file of a published "
                            + "generation is gone or damaged: the reader follows the writer's next publish; if none comes, "
                            + "delete the namespace directory and let the writer rebuild it)",
                    e);
        }
    }

    private static MapFileMappings openUninterrupted(
            Path file, Path sequenceFile, MapLayout layout, long mappingWaitNanos) throws IOException {
        FileChannel channel = null;
        try {
            channel = RegularFiles.openForReading(file, "Generation file");
            Object fileKey = fileKey(file);
            long size = channel.size();
            if (size < layout.baseSize()) {
                throw new StoreFormatException("Generation file " + file + " is corrupt or truncated (" + size
                        + " bytes, its layout needs " + layout.baseSize() + "); the writer rebuilds it from the topic");
            }
            requireCompleteHeader(channel, file, layout.segmentHeadersOffset());
            ByteBuffer headers = map(
                    channel, layout.segmentHeadersOffset(), layout.segmentsOffset() - layout.segmentHeadersOffset());
            int tiersPerWindow =
                    (int) Math.max(1, Math.min(layout.segments(), TierWindows.WINDOW_BYTES / layout.tierSize()));
            int windowCount = (layout.segments() + tiersPerWindow - 1) / tiersPerWindow;
            ByteBuffer[] windows = new ByteBuffer[windowCount];
            for (int w = 0; w < windowCount; w++) {
                int tiers = Math.min(tiersPerWindow, layout.segments() - w * tiersPerWindow);
                windows[w] = map(channel, layout.firstTierOffset(w * tiersPerWindow), tiers * layout.tierSize());
            }
            ByteBuffer sequences;
            try (FileChannel seq = RegularFiles.openForReading(sequenceFile, "Sequence file")) {
                long needed = (long) layout.segments() * SequenceFile.STRIDE;
                if (seq.size() < needed) {
                    throw new StoreFormatException("Sequence file " + sequenceFile + " is truncated (" + seq.size()
                            + " bytes, " + needed + " needed); the writer rebuilds the namespace from the topic");
                }
                sequences = map(seq, 0, needed);
            }
            return new MapFileMappings(
                    file,
                    layout,
                    new TierBulks(file, fileKey, layout, channel, mappingWaitNanos),
                    headers,
                    windows,
                    tiersPerWindow,
                    sequences);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /**
     * A cheap check that {@code file} is a complete Chronicle Map: its self-bootstrapping header (8 bytes checksum,
     * then a 4-byte little-endian length whose top bit means "not complete") must be marked complete and end by
     * {@code limit} (the segment headers for a reader, the file's size for the writer). Readers never read the header
     * otherwise; Chronicle itself would wait 60 s for an incomplete one, assuming another process still creates it.
     *
     * @throws StoreFormatException when it is not
     */
    static void requireCompleteHeader(FileChannel channel, Path file, long limit) throws IOException {
        ByteBuffer word = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
        while (word.hasRemaining() && channel.read(word, 8 + word.position()) > 0) {
            // read the length word
        }
        int length = word.hasRemaining() ? 0 : word.getInt(0);
        if (length == 0 || (length & 0x80000000) != 0 || 12L + (length & 0x3FFFFFFF) > limit) {
            throw new StoreFormatException(
                    "Generation file " + file + " is corrupt or truncated (no complete Chronicle "
                            + "Map header); the writer rebuilds it from the topic");
        }
    }

    /** The identity of {@code file} (device and inode on Linux), which a file replaced under the same name changes. */
    static Object fileKey(Path file) throws IOException {
        return RegularFiles.fileKey(file);
    }

    /** Maps {@code size} bytes of {@code channel} from {@code offset} read-only, little-endian. */
    static ByteBuffer map(FileChannel channel, long offset, long size) throws IOException {
        MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, offset, size);
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        return buffer;
    }

    static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing was mapped through it yet, or the mappings outlive it
            }
        }
    }

    /** The buffer holding tier {@code tier} (1-based, as Chronicle counts), or null when no such tier can exist. */
    ByteBuffer tierBuffer(long tier) {
        if (tier <= 0 || tier > maxTierIndex) {
            return null;
        }
        if (tier <= layout.segments()) {
            return windows[(int) ((tier - 1) / tiersPerWindow)];
        }
        return bulks.get(tier - 1 - layout.segments());
    }

    /** Where tier {@code tier} starts in {@link #tierBuffer}'s buffer for it. */
    int tierBase(long tier) {
        if (tier <= layout.segments()) {
            return layout.firstTierBase((int) (tier - 1), tiersPerWindow);
        }
        return bulks.baseOf(tier - 1 - layout.segments());
    }

    /** The tier after {@code segment}'s first tier, named by the segment header; 0 when there is none. */
    long secondTier(int segment) {
        return headers.getLong(layout.segmentHeaderOffset(segment) + (int) MapLayout.SEGMENT_NEXT_TIER);
    }

    /**
     * The tier after tier number {@code tiers} (0 = the first) of {@code segment}'s chain, which is at {@code base} in
     * {@code buffer}: the first tier's successor is named by the segment header, later ones by their own counters.
     * 0 when the chain ends.
     */
    long nextTier(int segment, long tiers, ByteBuffer buffer, int base) {
        return tiers == 0
                ? secondTier(segment)
                : buffer.getLong(base + (int) (layout.countersOffset() + MapLayout.TIER_NEXT_TIER));
    }

    /** The error for a segment of this file that does not parse although no writer is changing it. */
    StoreFormatException corrupt(int segment) {
        return new StoreFormatException("Generation file " + file + " is corrupt (segment " + segment
                + " does not parse although no writer is changing it); delete the namespace directory and let the "
                + "writer rebuild it from the topic");
    }

    /** See {@link MappedMap#close()}. */
    void close() {
        bulks.close();
    }
}
