package io.sharedlookup.internal.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The extra tier bulks of one map file, mapped in windows of whole tiers ({@link TierWindows}: a bulk may pass the
 * 2 GiB a buffer addresses), each window on first use. Chronicle appends bulks to the file as segments overflow, so a
 * reader maps a window when a tier chain first leads into it.
 *
 * <p>The mapping runs on a thread of this file's own, never on the caller's: a {@code FileChannel} used by a thread
 * interrupted in the middle of a call closes itself for every thread (Druid interrupts a cancelled query's threads at
 * any moment), and once the writer has deleted the file it cannot be opened again. A thread per file, not one for the
 * JVM, so that a mapping that hangs (a hung network file system) holds up only this file's bulks. The caller waits for
 * the mapping at most the lock timeout it was given, holding no lock, then gives up with a
 * {@link LockTimeoutException}; the mapping goes on, and its result is published for later calls.
 */
final class TierBulks {
    /** Runs in the mapping task before it maps a bulk of the given file: lets a test make a mapping hang. */
    static volatile Consumer<Path> beforeMapping = file -> {};

    private final Path file;
    private final Object fileKey;
    private final TierWindows windows;
    private final long waitNanos;
    /** Confined to the mapping thread (and {@link #close()}); replaced if something closed it. */
    private volatile FileChannel channel;
    /** The windows mapped so far, by window number. */
    private volatile ByteBuffer[] mapped = new ByteBuffer[0];
    /**
     * The mappings under way, by window (guarded by {@code this}). A map, not an array: a half-read link may name a
     * window far past the file's end, which must not size anything.
     */
    private final Map<Integer, Future<?>> pending = new HashMap<>();

    private final ThreadPoolExecutor thread;

    TierBulks(Path file, Object fileKey, MapLayout layout, FileChannel channel, long waitNanos) {
        this.file = file;
        this.fileKey = fileKey;
        this.windows = TierWindows.of(layout);
        this.channel = channel;
        this.waitNanos = waitNanos;
        // no thread until a bulk is first used, and none kept once idle: most generations never have extra tiers
        this.thread = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "shared-lookup-bulks " + file.getFileName());
            t.setDaemon(true);
            return t;
        });
        thread.allowCoreThreadTimeOut(true);
    }

    /**
     * The window holding extra tier {@code extra} (0-based, below the layout's {@code maxExtraTiers}), mapped now if it
     * is not yet; null when the file does not (yet) hold it. Once mapped: a shift, a volatile read and an index.
     */
    ByteBuffer get(long extra) {
        int window = windows.windowOf(extra);
        ByteBuffer[] known = mapped;
        return window < known.length && known[window] != null ? known[window] : mapFirst(window);
    }

    /** Where extra tier {@code extra} starts in the window {@link #get} returns for it. */
    int baseOf(long extra) {
        return windows.offsetInWindow(extra);
    }

    private ByteBuffer mapFirst(int window) {
        Future<?> result;
        synchronized (this) { // only to share one mapping task per window: nobody waits for the mapping under it
            ByteBuffer[] known = mapped;
            if (window < known.length && known[window] != null) {
                return known[window];
            }
            result = pending.get(window);
            if (result == null) {
                result = thread.submit(() -> map(window));
                pending.put(window, result);
            }
        }
        return await(result, window);
    }

    /** On the mapping thread: maps the window and publishes it. */
    private ByteBuffer map(int window) throws IOException {
        try {
            beforeMapping.accept(file);
            long offset = windows.fileOffset(window);
            ByteBuffer buffer;
            try {
                buffer = mapAt(offset);
            } catch (ClosedChannelException e) { // close(): interrupts never reach this thread
                channel = reopen();
                buffer = mapAt(offset);
            }
            if (buffer != null) {
                synchronized (this) {
                    ByteBuffer[] grown = Arrays.copyOf(mapped, Math.max(mapped.length, window + 1));
                    grown[window] = buffer;
                    mapped = grown;
                }
            }
            return buffer;
        } finally {
            synchronized (this) {
                pending.remove(window); // done: a window not there yet, or a failure, is tried again by the next call
            }
        }
    }

    private ByteBuffer mapAt(long offset) throws IOException {
        if (channel.size() < offset + windows.windowBytes()) {
            return null; // a half-read link to a bulk that does not exist: the read is retried
        }
        return MappedMap.map(channel, offset, windows.windowBytes());
    }

    /** A new channel to the same file (not another one under its name, which it would be after a rebuild). */
    private FileChannel reopen() throws IOException {
        FileChannel reopened = RegularFiles.openForReading(file, "Generation file");
        if (fileKey != null && !fileKey.equals(MappedMap.fileKey(file))) {
            MappedMap.closeQuietly(reopened);
            throw new IOException(file + " was replaced by another file; the next refresh follows the manifest");
        }
        return reopened;
    }

    /**
     * Waits for the mapping at most {@link #waitNanos}. An interrupt does not end the wait (the caller's interrupt
     * status is set again afterwards): the lookup it interrupts finishes within the bound all the same.
     */
    private ByteBuffer await(Future<?> result, int window) {
        long deadline = System.nanoTime() + waitNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return (ByteBuffer) result.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (TimeoutException e) {
            throw new LockTimeoutException("Mapping extra tiers of " + file + " (window " + window
                    + ") took longer than "
                    + "the lock timeout of " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms (a slow or hung store "
                    + "volume?); the mapping goes on, and later lookups use it once done");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new StoreFormatException("Cannot map extra tiers of " + file + ": " + cause, cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes the file descriptor kept for mapping bulks; the mappings made so far stay valid. */
    synchronized void close() {
        MappedMap.closeQuietly(channel);
    }
}
