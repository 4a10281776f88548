package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.LockTimeoutException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import net.openhft.chronicle.map.ExternalMapQueryContext;

/**
 * Chronicle's segment locks taken with a bound, never its default 60 s wait: a lock held past the bound was left by a
 * killed process (only writer threads and processes that open a file through Chronicle take them), and the writer
 * replaces the generation rather than wait.
 */
final class BoundedLocks {
    private BoundedLocks() {}

    static boolean tryLock(Lock lock, long timeoutNanos) {
        if (lock.tryLock()) { // the uncontended case: one CAS, no clock reads
            return true;
        }
        try {
            return lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Takes the context's update and then write lock, each within the bound. */
    static void lockForWrite(ExternalMapQueryContext<CharSequence, CharSequence, ?> c, Path file, long timeoutNanos) {
        if (!tryLock(c.updateLock(), timeoutNanos) || !tryLock(c.writeLock(), timeoutNanos)) {
            throw timeout("write", file);
        }
    }

    static LockTimeoutException timeout(String kind, Path file) {
        return new LockTimeoutException("A " + kind + " lock in " + file + " stayed held for over the bound ("
                + "probably by a killed process); the writer replaces this generation");
    }
}
