package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.store.EntrySizes;
import io.sharedlookup.writer.store.EntryTooLargeException;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Copies a generation into a bigger one on a thread of its own, so that ingestion carries on while a large namespace
 * grows. The ingest thread writes every record to both generations meanwhile (old first, then new). Ordering stays
 * right because the copy holds each old segment's update lock while copying it: a write to the old generation for a
 * key in that segment waits until the segment is copied, and then overwrites the copied value in the new one.
 */
final class BackgroundCopy {
    /** How long a copy waits for each segment of the old generation; also used by synchronous copies. */
    static final long COPY_LOCK_NANOS = TimeUnit.SECONDS.toNanos(2);

    final GenerationFile from;
    final GenerationFile to;
    final GenerationSizing sizing;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean cancelled;
    private volatile Throwable failure;
    /** UTF-8 key plus value bytes of the entry the new generation refused, when that ended the copy. */
    private volatile long refusedEntryBytes;

    private BackgroundCopy(GenerationFile from, GenerationFile to, GenerationSizing sizing) {
        this.from = from;
        this.to = to;
        this.sizing = sizing;
    }

    static BackgroundCopy start(GenerationFile from, GenerationFile to, GenerationSizing sizing, String namespace) {
        BackgroundCopy copy = new BackgroundCopy(from, to, sizing);
        Thread t = new Thread(copy::run, "shared-lookup-grow " + namespace);
        t.setDaemon(true);
        t.start();
        return copy;
    }

    private void run() {
        try {
            from.forEach(
                    (k, v) -> {
                        if (cancelled) {
                            throw new CancellationException("growth cancelled");
                        }
                        try {
                            to.put(k, v, COPY_LOCK_NANOS);
                        } catch (EntryTooLargeException e) {
                            // Never skipped: the copy ends, and a generation made to take this entry is built instead.
                            refusedEntryBytes = EntrySizes.bytesOf(k, v);
                            throw e;
                        }
                    },
                    COPY_LOCK_NANOS);
        } catch (Throwable t) {
            failure = t;
        } finally {
            finished.countDown();
        }
    }

    boolean isFinished() {
        return finished.getCount() == 0;
    }

    /** Waits for the copy; returns its failure, or null when it completed. */
    Throwable await() {
        try {
            finished.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancelled = true;
            return e;
        }
        return failure;
    }

    /** Stops the copy at the next entry and waits for the thread to let go of its locks. */
    void cancel() {
        cancelled = true;
        await();
    }

    /** UTF-8 key plus value bytes of the entry that ended the copy by not fitting the new generation, or 0. */
    long refusedEntryBytes() {
        return refusedEntryBytes;
    }
}
