package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.Positions;

/**
 * Every {@value #PERIOD_MILLIS} ms: each namespace records its positions ({@code checkpoint}), topics whose pause is
 * over resume, and the statuses HTTP shows are published afresh. Often, because what a checkpoint records is what a
 * restart resumes from, and the statuses say lag and how current the positions are. A namespace whose checkpoints are
 * slow (a disk busy writing out a growth) is checkpointed less often: {@link CheckpointPacing}.
 */
final class Checkpoint implements PeriodicJob {
    static final long PERIOD_MILLIS = 250;

    private final TopicNamespaces byTopic;
    private final Positions positions;
    private final TopicPauses pauses;
    private final IngestStatus status;
    private final CheckpointPacing<NamespaceIngest> pacing = new CheckpointPacing<>();

    Checkpoint(Reading reading, IngestStatus status) {
        this.byTopic = reading.byTopic;
        this.positions = reading.positions;
        this.pauses = reading.pauses;
        this.status = status;
    }

    @Override
    public void run(long nowNanos) {
        for (NamespaceIngest namespace : byTopic.all()) {
            long start = System.nanoTime();
            if (pacing.due(namespace, start)) {
                namespace.checkpoint(positions);
                long end = System.nanoTime();
                pacing.took(namespace, end, end - start);
            }
        }
        pauses.resumeDue();
        status.publish();
    }
}
