package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Who may put into one generation at the same time: one put at a time by default, several while a parallel build
 * has {@link #shareIfRoomy opened} the gate.
 *
 * <p>Why one at a time: when the file system refuses an extra tier bulk (disk full), Chronicle has already lengthened
 * the file and released its own lock before the refusal reaches the caller; a put of another thread slipping in before
 * {@link AllocatedTail#cutBack} would find the file long enough, skip asking for the space and write into pages the
 * file system never gave (SIGBUS on a full disk). Puts into a published generation (the ingest thread, and a growth
 * copy's thread into the next one) are not contended anyway.
 *
 * <p>Several at once: a parallel build's appliers put into disjoint keys of a generation no reader maps. They share the
 * gate only while the file system has room for many more tier bulks than the whole batch can ask for
 * ({@link #ROOM_MARGIN_BYTES} and a quarter of the file), so that a refusal, and with it the race above, does not
 * happen; when the disk is that full their puts go one at a time again, as today.
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
     * Opens the gate to concurrent puts when the file system holding {@code file} has room to spare: at least
     * {@link #ROOM_MARGIN_BYTES} plus a quarter of {@code allocatedBytes} (two tier bulks and more: a bulk is about an
     * eighth of a generation's first tiers). Called by the thread that runs a parallel pass, before it starts.
     *
     * @return whether puts are shared now
     */
    boolean shareIfRoomy(Path file, long allocatedBytes) {
        long usable;
        try {
            usable = Files.getFileStore(file).getUsableSpace();
        } catch (IOException e) {
            usable = 0; // cannot tell: one at a time
        }
        shared = usable >= ROOM_MARGIN_BYTES + allocatedBytes / 4;
        return shared;
    }

    /** Back to one put at a time (after a parallel pass, before anything else puts). */
    void closeToOne() {
        shared = false;
    }
}
