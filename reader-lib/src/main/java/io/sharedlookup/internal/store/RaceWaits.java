package io.sharedlookup.internal.store;

/**
 * How the reads of one map file wait after a race with the writer: the {@link SegmentWaits} in force, the short bound
 * alone until the map is told to follow its writer's liveness. Shared by the general lookup path and the scans; read
 * only once a read has raced with the writer, so a lookup on a stable segment never touches it.
 */
final class RaceWaits {
    private final int segments;
    private volatile SegmentWaits waits;

    RaceWaits(int segments) {
        this.segments = segments;
        this.waits = new SegmentWaits(segments, WriterLiveness.unknown(), 0);
    }

    /** See {@link MappedMap#followWriter}. */
    void follow(WriterLiveness liveness, long liveBoundNanos) {
        this.waits = new SegmentWaits(segments, liveness, liveBoundNanos);
    }

    /** {@link SegmentWaits#afterRace} of the waits in force. */
    long afterRace(int segment, long seen, long waitingSince, int attempt, long timeoutNanos) {
        return waits.afterRace(segment, seen, waitingSince, attempt, timeoutNanos);
    }
}
