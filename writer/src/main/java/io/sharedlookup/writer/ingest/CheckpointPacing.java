package io.sharedlookup.writer.ingest;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How often a namespace is checkpointed when its checkpoints are slow: after one that took {@code t}, the next waits
 * {@value #SPACING_FACTOR} × {@code t} (at most {@link #MAX_SPACING_NANOS}), so that checkpoints take at most about a
 * tenth of the ingest thread's time however slow the disk is. A fast checkpoint (the usual: well under a millisecond)
 * leaves the period as it is.
 *
 * <p>Why they can be slow: each checkpoint fsyncs the manifest before renaming it, and on ext4 (ordered data) that
 * fsync commits the journal, which first writes out every block of data allocated since the last commit. While a growth
 * fills a new generation, and for minutes after it, that is gigabytes of dirty mapped pages: measured during a 10M
 * growth, one checkpoint took 0.1 to 2 s, and at four a second they held the ingest thread for 40 % of the copy and
 * 78 % of the minutes after it (ingestion fell to a few thousand records a second). What a checkpoint records (offsets
 * and how current they are) only gets a few seconds older meanwhile; readers' content stamp does not depend on it.
 */
final class CheckpointPacing<K> {
    /** The next checkpoint waits this many times as long as the last one took. */
    static final int SPACING_FACTOR = 9;
    /** The longest a namespace goes without a checkpoint however slow the last was: how old its offsets may get. */
    static final long MAX_SPACING_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Map<K, Long> notBefore = new IdentityHashMap<>();

    /** Whether {@code key} may be checkpointed at {@code nowNanos}. */
    boolean due(K key, long nowNanos) {
        Long next = notBefore.get(key);
        return next == null || nowNanos - next >= 0;
    }

    /** Records that checkpointing {@code key} ended at {@code endNanos} and took {@code tookNanos}. */
    void took(K key, long endNanos, long tookNanos) {
        long spacing = Math.min(tookNanos * SPACING_FACTOR, MAX_SPACING_NANOS);
        if (spacing > TimeUnit.MILLISECONDS.toNanos(Checkpoint.PERIOD_MILLIS)) {
            notBefore.put(key, endNanos + spacing);
        } else {
            notBefore.remove(key);
        }
    }
}
