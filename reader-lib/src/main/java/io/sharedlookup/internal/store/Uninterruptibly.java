package io.sharedlookup.internal.store;

import java.io.IOException;

/**
 * File-channel calls made with the calling thread's interrupt status set aside. A {@code FileChannel} used by a thread
 * whose interrupt status is set closes itself ({@code ClosedByInterruptException}) for every thread that shares it.
 * Reading the store never blocks, so an interrupt (Druid interrupts the threads of a query it cancels) has nothing to
 * cancel here; the status is restored for whatever the thread does next.
 */
public final class Uninterruptibly {
    private Uninterruptibly() {}

    /** A call that may throw {@link IOException}. */
    @FunctionalInterface
    public interface IoCall<T> {
        T call() throws IOException;
    }

    /** Runs {@code call} with the thread's interrupt status cleared, and sets it again afterwards if it was set. */
    public static <T> T call(IoCall<T> call) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            return call.call();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
