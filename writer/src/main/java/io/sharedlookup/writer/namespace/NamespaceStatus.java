package io.sharedlookup.writer.namespace;

import java.util.List;
import java.util.Map;

/**
 * What HTTP shows about one namespace: an immutable snapshot published by the ingest thread, so that requests never
 * touch the state the ingest thread is changing.
 */
public record NamespaceStatus(
        String namespace,
        String topic,
        State state,
        long generation,
        long entries,
        long capacity,
        double fillRatio,
        Map<Integer, Long> lag,
        long lastUpdateMillis,
        String lastError,
        boolean caughtUp,
        String notReadyReason,
        Map<Integer, Long> offsets,
        Long digest,
        List<SkippedRecords.Skipped> skippedRecords,
        long currentAsOfMillis) {
    public enum State {
        /** Connecting, discovering partitions, deciding between resume and rebuild. */
        STARTING,
        /** Building a fresh generation from the topic's beginning; readers see the last published one, if any. */
        REBUILDING,
        /** The published generation is being updated in place. */
        LIVE,
        /** Waiting to retry something that failed (for example a disk full while growing). */
        STALLED
    }

    /**
     * {@code offsets} and {@code digest} are the published manifest's: the content digest as of those offsets, so that
     * hosts can be compared (null before anything is published, or for a manifest from before digests).
     * {@code skippedRecords} are the last records skipped, oldest first (see {@link SkippedRecords}).
     * {@code currentAsOfMillis} is, while the namespace is {@link State#LIVE}, the last time what readers see was
     * current with the topic (the writer's positions had reached the end offsets the broker gave then), moved on at
     * every health check; {@link Positions#UNKNOWN} otherwise (readers then see the published manifest's stamp). The
     * manifest is restamped with it only every so often when the topic is quiet; the writer's heartbeat carries it to
     * readers at once.
     */
    public NamespaceStatus {
        lag = Map.copyOf(lag);
        offsets = Map.copyOf(offsets);
        skippedRecords = List.copyOf(skippedRecords);
    }

    /** A snapshot of a namespace that has skipped no record (yet). */
    public NamespaceStatus(
            String namespace,
            String topic,
            State state,
            long generation,
            long entries,
            long capacity,
            double fillRatio,
            Map<Integer, Long> lag,
            long lastUpdateMillis,
            String lastError,
            boolean caughtUp,
            String notReadyReason,
            Map<Integer, Long> offsets,
            Long digest) {
        this(
                namespace,
                topic,
                state,
                generation,
                entries,
                capacity,
                fillRatio,
                lag,
                lastUpdateMillis,
                lastError,
                caughtUp,
                notReadyReason,
                offsets,
                digest,
                List.of(),
                Positions.UNKNOWN);
    }

    /** This snapshot with {@code reason} as why the namespace is not ready. */
    public NamespaceStatus notReadyBecause(String reason) {
        return new NamespaceStatus(
                namespace,
                topic,
                state,
                generation,
                entries,
                capacity,
                fillRatio,
                lag,
                lastUpdateMillis,
                lastError,
                caughtUp,
                reason,
                offsets,
                digest,
                skippedRecords,
                currentAsOfMillis);
    }

    /** This snapshot with what readers see current with the topic as of {@code millis} (a test's writer). */
    public NamespaceStatus currentAsOf(long millis) {
        return new NamespaceStatus(
                namespace,
                topic,
                state,
                generation,
                entries,
                capacity,
                fillRatio,
                lag,
                lastUpdateMillis,
                lastError,
                caughtUp,
                notReadyReason,
                offsets,
                digest,
                skippedRecords,
                millis);
    }

    /** Whether {@code /ready} counts this namespace ready: nothing holds it back. */
    public boolean ready() {
        return notReadyReason == null;
    }
}
