package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.VanillaChronicleMap;

/**
 * A map file's allocated part, and what to do when the file system refuses to extend it (disk full): the writer
 * never writes into space the file system did not give it.
 */
final class AllocatedTail {
    private AllocatedTail() {}

    /**
     * The file length Chronicle's initialised part covers: its data store (header, segments and the extra tier bulks
     * it allocated), rounded up to its mapping granularity, as each successful extension leaves the file.
     */
    static long allocatedLength(ChronicleMap<?, ?> map) {
        long initialised =
                ((VanillaChronicleMap<?, ?, ?>) map).globalMutableState().getDataStoreSize();
        long page = net.openhft.chronicle.core.OS.mapAlignment();
        return (initialised + page - 1) / page * page;
    }

    /**
     * Extra tiers Chronicle has allocated (in bulks of {@code tiersInBulk}) and not yet given to a segment: a segment
     * that overflows takes one of these without lengthening the file. None in a fresh map: the first bulk is
     * allocated when a segment first overflows.
     */
    static long spareExtraTiers(ChronicleMap<?, ?> map) {
        VanillaChronicleMap<?, ?, ?> m = (VanillaChronicleMap<?, ?, ?>) map;
        return m.globalMutableState().getAllocatedExtraTierBulks() * m.tiersInBulk - extraTiersInUse(map);
    }

    /** Extra tiers segments have taken so far; Chronicle refuses more than its limit ({@code maxExtraTiers}). */
    static long extraTiersInUse(ChronicleMap<?, ?> map) {
        return ((VanillaChronicleMap<?, ?, ?>) map).globalMutableState().getExtraTiersInUse();
    }

    /** The first {@link IOException} in {@code e}'s causes (the file system refused to extend the file), or null. */
    static IOException ioCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof IOException io) {
                return io;
            }
        }
        return null;
    }

    /**
     * After the file system refused an extra tier bulk: cuts the file back to the bulks Chronicle has initialised.
     * Chronicle lengthens the file before it asks the file system for the blocks ({@code posix_fallocate}); when
     * that fails, the file is left longer than its allocated part, and the next attempt (which sees a file long
     * enough and skips the allocation) would write into pages the file system never gave it: on a full disk the
     * kernel answers with SIGBUS, which the JVM turns into an {@link InternalError} in whatever thread wrote. Cut
     * back, the next attempt asks for the space again and fails cleanly until there is room. Nothing maps the cut
     * part: Chronicle maps a bulk only after its allocation succeeded, readers only bulks that tiers link to.
     */
    static void cutBack(ChronicleMap<?, ?> map, Path file) {
        long allocatedEnd = allocatedLength(map);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            if (ch.size() > allocatedEnd) {
                ch.truncate(allocatedEnd);
            }
        } catch (IOException | RuntimeException e) {
            // Still longer than allocated: never written again, rather than risk the SIGBUS.
            throw new GenerationUnusableException(
                    "Cannot cut " + file + " back to its allocated " + allocatedEnd
                            + " bytes after a failed extension (" + e + "); the namespace is rebuilt from its topic",
                    e);
        }
    }
}
