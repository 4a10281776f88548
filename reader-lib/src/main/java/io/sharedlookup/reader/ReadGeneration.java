package io.sharedlookup.reader;

import io.sharedlookup.internal.store.GenerationFile;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A generation file mapped by this JVM, unmapped only once it is retired (no longer the live generation) and no call
 * uses it any more.
 *
 * <p>Calls in flight are counted in a few padded cells, each thread always in the same one, instead of one shared
 * counter: every lookup updates the count twice, and with many threads a single counter's cache line would move
 * between cores on every call. A call increments its cell and then checks {@code retired}; the retiring side sets
 * {@code retired} and then sums the cells. Both are sequentially consistent operations, so either the call sees
 * {@code retired} (and backs out without touching the file) or the sum sees the call; the file is closed by whoever
 * finds the sum at zero after retirement — the retiring thread or the last call to leave.
 */
final class ReadGeneration {
    private static final int CELLS = cellCount();
    private static final int STRIDE = 16; // longs: cells 128 bytes apart, never on a shared cache line

    final GenerationFile file;
    final long number;
    private final AtomicLongArray calls = new AtomicLongArray(CELLS * STRIDE);
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean retired;

    ReadGeneration(GenerationFile file, long number) {
        this.file = file;
        this.number = number;
    }

    private static int cellCount() {
        int wanted = Math.min(64, 2 * Runtime.getRuntime().availableProcessors());
        return Integer.highestOneBit(Math.max(1, wanted - 1)) << 1; // a power of two >= wanted
    }

    /** The calling thread's cell (an index into {@link #calls}); the same on every call from that thread. */
    private static int cell() {
        long h = Thread.currentThread().getId() * 0x9E3779B97F4A7C15L;
        return ((int) (h >>> 40) & (CELLS - 1)) * STRIDE;
    }

    /**
     * Counts a call in unless the generation is retired; a caller that gets {@code true} must call {@link #release}
     * from the same thread.
     */
    boolean tryAcquire() {
        int cell = cell();
        calls.getAndIncrement(cell);
        if (retired) {
            calls.getAndDecrement(cell);
            closeIfUnused();
            return false;
        }
        return true;
    }

    void release() {
        calls.getAndDecrement(cell());
        if (retired) {
            closeIfUnused();
        }
    }

    /** No new calls from now on; unmapped as soon as the calls in flight have returned. */
    void retire() {
        retired = true;
        closeIfUnused();
    }

    private void closeIfUnused() {
        long inFlight = 0;
        for (int i = 0; i < CELLS; i++) {
            inFlight += calls.get(i * STRIDE);
        }
        if (inFlight == 0 && closed.compareAndSet(false, true)) {
            file.close();
        }
    }
}
