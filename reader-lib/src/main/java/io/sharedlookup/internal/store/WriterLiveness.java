package io.sharedlookup.internal.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A reader's view of whether a namespace's writer is alive, from the heartbeat in its {@code writer.status} file
 * ({@link WriterStatusDescriptor}), mapped read-only.
 *
 * <p>The writer is judged alive while this reader has seen the heartbeat count move within
 * {@link WriterStatusDescriptor#ALIVE_WINDOW_NANOS} of its own {@link System#nanoTime()}: a writer paused for a second
 * still looks alive, one killed looks dead within two seconds, and no two processes' clocks are compared. At the first
 * look there is no movement to go by yet: a heartbeat the writer stamped (by the shared host clock) within the window
 * counts as seen then, an older one as not seen. Without the file (a writer from before it, or none yet) liveness is
 * {@link State#UNKNOWN}, and readers behave as they did before the file existed.
 *
 * <p>Thread-safe; every method is off the lookup path (the refresh thread, and waits that already lasted the short
 * bound).
 */
public final class WriterLiveness {
    /** What a reader can say about a writer. */
    public enum State {
        ALIVE,
        NOT_ALIVE,
        UNKNOWN
    }

    /** How often a missing status file is looked for again. */
    private static final long REMAP_NANOS = 1_000_000_000L;

    private final Path file;
    private ByteBuffer status;
    private long lastMapAttemptNanos;
    private boolean seen;
    private long lastCount;
    private long lastMovedNanos;
    private long lastSeenAliveMillis = -1;

    private WriterLiveness(Path file) {
        this.file = file;
    }

    /** The liveness of the writer of the namespace in {@code namespaceDir}; maps its status file at the first look. */
    public static WriterLiveness of(Path namespaceDir) {
        return new WriterLiveness(WriterStatusDescriptor.of(namespaceDir));
    }

    /** A liveness that is always {@link State#UNKNOWN}: for maps opened without a namespace to follow. */
    public static WriterLiveness unknown() {
        return new WriterLiveness(null);
    }

    /**
     * Looks at the heartbeat now, mapping the status file when it is not yet mapped (at most once a second while it
     * is missing). For the refresh thread: a thread that may be interrupted should use {@link #alive()}.
     */
    public synchronized State observe() {
        if (status == null && file != null) {
            long now = System.nanoTime();
            if (lastMapAttemptNanos == 0 || now - lastMapAttemptNanos >= REMAP_NANOS) {
                lastMapAttemptNanos = now == 0 ? 1 : now;
                status = map(file);
            }
        }
        return judge(System.nanoTime());
    }

    /** The writer's state now, as {@link #observe()} would say it, but without mapping anything. */
    public synchronized State state() {
        return judge(System.nanoTime());
    }

    /** Whether the writer is alive now; never maps anything (safe on any thread, interrupted or not). */
    public synchronized boolean alive() {
        return judge(System.nanoTime()) == State.ALIVE;
    }

    /** Epoch milliseconds at which this reader last saw the heartbeat move (or judged it fresh), or -1. */
    public synchronized long lastSeenAliveMillis() {
        return lastSeenAliveMillis;
    }

    /** Whether the writer marked itself stopped (a clean stop), as opposed to a heartbeat that stopped moving. */
    public synchronized boolean stoppedCleanly() {
        return recognised()
                && WriterStatusDescriptor.getInt(status, WriterStatusDescriptor.STATE_AT)
                        != WriterStatusDescriptor.RUNNING;
    }

    /** The writer's last word on when the namespace's content was current with its topic (epoch ms), or -1. */
    public synchronized long currentAsOfMillis() {
        return recognised() ? WriterStatusDescriptor.getLong(status, WriterStatusDescriptor.CURRENT_AS_OF_AT) : -1;
    }

    /** The writer's last word on how many records it has yet to apply, or -1 when unknown. */
    public synchronized long lagRecords() {
        return recognised() ? WriterStatusDescriptor.getLong(status, WriterStatusDescriptor.LAG_AT) : -1;
    }

    private boolean recognised() {
        return status != null && WriterStatusDescriptor.recognised(status);
    }

    private State judge(long now) {
        if (!recognised()) {
            return State.UNKNOWN;
        }
        long count = WriterStatusDescriptor.getLong(status, WriterStatusDescriptor.HEARTBEAT_AT);
        if (!seen) {
            seen = true;
            lastCount = count;
            long age = System.currentTimeMillis()
                    - WriterStatusDescriptor.getLong(status, WriterStatusDescriptor.HEARTBEAT_MILLIS_AT);
            long window = WriterStatusDescriptor.ALIVE_WINDOW_NANOS / 1_000_000;
            boolean fresh = age >= 0 && age < window;
            lastMovedNanos = now - (fresh ? age * 1_000_000 : WriterStatusDescriptor.ALIVE_WINDOW_NANOS);
            if (fresh) {
                lastSeenAliveMillis = System.currentTimeMillis() - age;
            }
        } else if (count != lastCount) {
            lastCount = count;
            lastMovedNanos = now;
            lastSeenAliveMillis = System.currentTimeMillis();
        }
        boolean running = WriterStatusDescriptor.getInt(status, WriterStatusDescriptor.STATE_AT)
                == WriterStatusDescriptor.RUNNING;
        return running && now - lastMovedNanos < WriterStatusDescriptor.ALIVE_WINDOW_NANOS
                ? State.ALIVE
                : State.NOT_ALIVE;
    }

    /** The status file mapped read-only, or null when it is missing, too short or unreadable (liveness unknown). */
    private static ByteBuffer map(Path file) {
        try (FileChannel channel = RegularFiles.openForReading(file, "Writer status file")) {
            if (channel.size() < WriterStatusDescriptor.SIZE) {
                return null;
            }
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, WriterStatusDescriptor.SIZE)
                    .order(ByteOrder.LITTLE_ENDIAN);
        } catch (IOException | RuntimeException e) {
            return null; // absent (an older writer), or not usable: liveness stays unknown, the old behaviour
        }
    }
}
