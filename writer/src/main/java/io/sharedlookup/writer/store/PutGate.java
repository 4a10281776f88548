package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * Who may put into one generation at the same time: one put at a time by default, several while a parallel build
 * has {@link #shareIfSafe opened} the gate.
 *
 * <p>Why one at a time: when the file system refuses an extra tier bulk (disk full), Chronicle has already lengthened
 * the file and released its own lock before the refusal reaches the caller; a put of another thread slipping in before
 * {@link AllocatedTail#cutBack} would find the file long enough, skip asking for the space and write into pages the
 * file system never gave (SIGBUS on a full disk). Puts into a published generation (the ingest thread, and a growth
 * copy's thread into the next one) are not contended anyway.
 *
 * <p>Several at once: a parallel build's appliers put into disjoint keys of a generation no reader maps. They share the
 * gate for a pass only when no put of the pass can race another over tiers ({@link #shareIfSafe}): the tiers the pass's
 * puts can take (at most) cannot reach Chronicle's tier limit (so a longer value that found a tier free before it moved
 * still finds one: {@code GenerationFile#requireTierForRelocation}); and either the tiers already allocated cover
 * every put of the pass (no put lengthens the file, so the refusal above cannot happen), or the file system has room
 * for many more tier bulks than the pass can ask for ({@link #ROOM_MARGIN_BYTES} and a quarter of the file).
 * Otherwise the pass runs on the ingest thread alone.
 */
final class PutGate {
    /** Free space below which puts go one at a time whatever the file's size. */
    static final long ROOM_MARGIN_BYTES = 256L << 20;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private volatile boolean shared;

    /** Takes the gate for one put: shared while opened, else exclusive. Release with {@link Lock#unlock()}. */
    Lock enter() {
        Lock l = shared ? lock.readLock() : lock.writeLock();
        l.lock();
        return l;
    }

    /**
     * Opens the gate to concurrent puts for a pass whose puts into {@code map} take {@code tiers} extra tiers at most,
     * when that is safe as the class comment says. Called by the thread that runs a parallel pass, before it starts,
     * with no put under way.
     *
     * @param maxExtraTiers Chronicle's limit of extra tiers for {@code map}
     * @return whether puts are shared now (false: the pass must run on one thread)
     */
    boolean shareIfSafe(ChronicleMap<?, ?> map, Path file, long maxExtraTiers, long tiers) {
        boolean underLimit = maxExtraTiers - AllocatedTail.extraTiersInUse(map) >= tiers;
        shared = underLimit
                && (AllocatedTail.spareExtraTiers(map) >= tiers || roomy(file, AllocatedTail.allocatedLength(map)));
        return shared;
    }

    /** At least {@link #ROOM_MARGIN_BYTES} and a quarter of {@code allocatedBytes} free (a bulk is about an eighth). */
    private static boolean roomy(Path file, long allocatedBytes) {
        long usable;
        try {
            usable = Files.getFileStore(file).getUsableSpace();
        } catch (IOException e) {
            usable = 0; // cannot tell: one at a time
        }
        return usable >= ROOM_MARGIN_BYTES + allocatedBytes / 4;
    }

    /** Back to one put at a time (after a parallel pass, before anything else puts). */
    void closeToOne() {
        shared = false;
    }
}
