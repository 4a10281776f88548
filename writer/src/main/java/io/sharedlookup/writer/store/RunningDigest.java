package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ContentDigest;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link ContentDigest} of a generation's entries, kept up to date by every change so that publishing never scans
 * the file. Atomic because the ingest thread and a growth copy may both write a generation being filled. Not kept for
 * a reverse index, whose entries are derived from the data file's.
 */
final class RunningDigest {
    private final AtomicLong digest = new AtomicLong();
    private boolean kept = true;

    /** Whether changes are counted (false for a reverse index). */
    boolean kept() {
        return kept;
    }

    void added(CharSequence key, CharSequence value) {
        if (kept) {
            digest.addAndGet(ContentDigest.of(key, value));
        }
    }

    void replaced(CharSequence key, CharSequence previous, CharSequence value) {
        if (kept) {
            digest.addAndGet(ContentDigest.of(key, value) - ContentDigest.of(key, previous));
        }
    }

    void removed(CharSequence key, CharSequence previous) {
        if (kept) {
            digest.addAndGet(-ContentDigest.of(key, previous));
        }
    }

    long value() {
        return digest.get();
    }

    /** Sets the digest of a reopened generation (recorded in its manifest, or scanned). */
    void restore(long value) {
        digest.set(value);
    }

    /** For a reverse index: its entries are derived, so the data file's digest covers them. */
    void stopKeeping() {
        kept = false;
    }
}
