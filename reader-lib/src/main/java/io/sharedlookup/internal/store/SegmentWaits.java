package io.sharedlookup.internal.store;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * How a read of one map file waits for a segment the writer is changing (its counter odd, or moved during the read):
 * a short spin (a change takes microseconds), then parking for growing times, up to 1 ms (a preempted or paused writer
 * needs the CPU that a spinning or yielding reader would take from it on a busy host).
 *
 * <p>The rule: a wait gives up after the caller's short bound (the store's {@code lockTimeout}) unless the writer is
 * {@link WriterLiveness alive}; while it is, the wait goes on up to the long bound (the store's
 * {@code liveWriterWait}). Liveness is asked only once the short bound has passed, so a lookup on a stable segment
 * never reads anything of it. When liveness is unknown (no status file: an older writer), the short bound holds, as it
 * did before there was a heartbeat.
 *
 * <p>A segment whose counter has stood at one odd value since a wait gave up on it over
 * {@link #LEFT_MID_CHANGE_NANOS} ago was left mid-change by a dead writer: calls for it give up at once. One per map.
 */
final class SegmentWaits {
    /** From {@link #afterRace}: the wait lasted longer than the bound (never a start time it returns otherwise). */
    static final long GAVE_UP = Long.MIN_VALUE;
    /**
     * How long a segment's counter must have stood at one odd value, seen by a wait that gave up, before calls give up
     * on it at once: far longer than any live writer's change, preempted or paused for GC included.
     */
    static final long LEFT_MID_CHANGE_NANOS = 1_000_000_000L;
    /** Attempts that only spin before a wait starts parking. */
    private static final int SPINS = 64;
    /** The longest single park: bounds how late a reader sees a segment the writer has finished changing. */
    private static final long MAX_PARK_NANOS = 1_000_000L;

    private final int segments;
    private final WriterLiveness liveness;
    private final long liveBoundNanos;
    /** Per segment, the last wait that gave up on it ({@link #leftMidChange}); made at the first one. */
    private volatile AtomicReferenceArray<MidChange> midChange;

    /**
     * @param liveness       the namespace's writer liveness ({@link WriterLiveness#unknown()} for none)
     * @param liveBoundNanos the longest a wait goes on while the writer is alive
     */
    SegmentWaits(int segments, WriterLiveness liveness, long liveBoundNanos) {
        this.segments = segments;
        this.liveness = liveness;
        this.liveBoundNanos = liveBoundNanos;
    }

    /**
     * After a read of a segment that was changing (attempt {@code attempt}, the first failed one being 0, having seen
     * the counter at {@code seen}): notes when the waiting began, gives up past {@code timeoutNanos} when the writer is
     * not alive (past the long bound when it is), else backs off. Gives up at once on a segment
     * {@link #leftMidChange left in the middle of a change}.
     *
     * @param waitingSince when the waiting began (ignored on attempt 0)
     * @return when the waiting began, or {@link #GAVE_UP} when the wait is over
     */
    long afterRace(int segment, long seen, long waitingSince, int attempt, long timeoutNanos) {
        long now = System.nanoTime(); // any value, negative included: only differences count
        if (attempt == 0) {
            waitingSince = now;
            if ((seen & 1) != 0 && leftMidChange(segment, seen, now)) {
                return GAVE_UP;
            }
        } else {
            long waited = now - waitingSince;
            if (waited > timeoutNanos && (waited > Math.max(timeoutNanos, liveBoundNanos) || !liveness.alive())) {
                if ((seen & 1) != 0) {
                    noteLeftMidChange(segment, seen, now);
                }
                return GAVE_UP;
            }
        }
        if (attempt < SPINS) {
            Thread.onSpinWait();
        } else {
            LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1_000L << Math.min(attempt - SPINS, 10)));
        }
        return waitingSince;
    }

    /** A wait that gave up, at {@code since}, on a segment whose counter stood at the odd {@code sequence}. */
    private record MidChange(long sequence, long since) {}

    /**
     * Whether the segment's counter has stood at {@code seen} (odd) since a wait gave up on it at that value, over
     * {@link #LEFT_MID_CHANGE_NANOS} ago (counters only grow, so it stood there all along): a writer died in the
     * middle of that change, and waiting the bound again would not help. Its generation stays published until the
     * next writer has rebuilt the namespace (minutes on a large topic); without this, every call for a key of that
     * segment would spend the whole bound waiting again: one bound per row of a Druid query, one per request on the
     * writer's single HTTP thread.
     */
    private boolean leftMidChange(int segment, long seen, long now) {
        AtomicReferenceArray<MidChange> known = midChange;
        MidChange m = known == null ? null : known.get(segment);
        return m != null && m.sequence() == seen && now - m.since() >= LEFT_MID_CHANGE_NANOS;
    }

    private void noteLeftMidChange(int segment, long seen, long since) {
        AtomicReferenceArray<MidChange> known = midChange;
        if (known == null) {
            synchronized (this) {
                known = midChange;
                if (known == null) {
                    midChange = known = new AtomicReferenceArray<>(segments);
                }
            }
        }
        MidChange m = known.get(segment);
        if (m == null || m.sequence() != seen) { // the same change given up on again keeps the earlier time
            known.set(segment, new MidChange(seen, since));
        }
    }
}
