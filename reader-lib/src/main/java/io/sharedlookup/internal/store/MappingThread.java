package io.sharedlookup.internal.store;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs the calls that open and map generation files (not their extra tier bulks: {@link TierBulks}, with a thread per
 * file) on one daemon thread of its own, which nothing interrupts. A
 * {@code FileChannel} used by a thread that is interrupted in the middle of a call closes itself for every thread
 * (the generation's other extra tier bulks could then no longer be mapped, and once the writer has deleted the file it
 * cannot be opened again by its name). Clearing the caller's interrupt status beforehand does not help against an
 * interrupt that comes during the call; a thread nobody else knows does. Druid interrupts the threads of a query it
 * cancels, at any moment.
 *
 * <p>These calls are rare (opening a generation) and take microseconds to milliseconds, so handing them over costs
 * nothing that matters. They are made by the store's refresh thread and by the first {@code lookup(namespace)}, never
 * by a lookup of a key. The caller waits for the result without being
 * interruptible and has its interrupt status set again afterwards. The thread ends after a while without work.
 */
final class MappingThread {
    private static final ThreadPoolExecutor EXECUTOR =
            new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "shared-lookup-open");
                t.setDaemon(true);
                return t;
            });

    static {
        EXECUTOR.allowCoreThreadTimeOut(true);
    }

    /** The thread running the calls now, so that a call made from it runs in place instead of waiting on itself. */
    private static final ThreadLocal<Boolean> ON_IT = ThreadLocal.withInitial(() -> false);

    private MappingThread() {}

    /** Runs {@code call} on the mapping thread and returns its result; the caller's interrupt status is kept. */
    static <T> T call(Uninterruptibly.IoCall<T> call) throws IOException {
        if (ON_IT.get()) {
            return call.call();
        }
        Future<T> result = EXECUTOR.submit(() -> {
            ON_IT.set(true);
            try {
                return call.call();
            } finally {
                ON_IT.set(false);
            }
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return result.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the call is not abandoned: its channel may be shared by then
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
