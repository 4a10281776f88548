package io.sharedlookup.reader;

import io.sharedlookup.internal.store.GenerationFile;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A generation file mapped by this JVM, reference-counted so that it is unmapped only once no call uses it: the live
 * reference is one count, every call in flight another.
 */
final class ReadGeneration {
    final GenerationFile file;
    final long number;
    private final AtomicInteger references = new AtomicInteger(1);

    ReadGeneration(GenerationFile file, long number) {
        this.file = file;
        this.number = number;
    }

    /** Takes a reference unless the generation is already unmapped or about to be. */
    boolean tryAcquire() {
        for (;;) {
            int n = references.get();
            if (n == 0) {
                return false;
            }
            if (references.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void release() {
        if (references.decrementAndGet() == 0) {
            file.close();
        }
    }
}
