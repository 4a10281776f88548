package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.Positions;
import org.apache.kafka.clients.consumer.Consumer;

/**
 * What the ingest thread reads with once its consumer is made: the consumer, the namespaces each topic feeds, the
 * offsets read and applied ({@link PartitionOffsets}), the paused topics ({@link TopicPauses}) and the positions every
 * namespace records. One small object, so that the loop's helpers ({@link BatchApplier}, the periodic jobs, the
 * rebuilds) are each given what they share instead of a long list of arguments. It also owns what a stall is, since a
 * stall touches three of them at once. Used by the ingest thread only.
 */
final class Reading implements BatchApplier.Stall {
    final Consumer<byte[], byte[]> consumer;
    /** Each topic's namespaces: a topic is read once and fans out to every namespace it feeds. */
    final TopicNamespaces byTopic;

    final PartitionOffsets offsets;
    final TopicPauses pauses;
    /** The applied positions, and since when they are known current, as every namespace records them. */
    final Positions positions;

    final WriterMetrics metrics;

    Reading(
            Consumer<byte[], byte[]> consumer,
            TopicNamespaces byTopic,
            PartitionOffsets offsets,
            Positions positions,
            WriterMetrics metrics) {
        this.consumer = consumer;
        this.byTopic = byTopic;
        this.offsets = offsets;
        this.pauses = new TopicPauses(consumer, offsets);
        this.positions = positions;
        this.metrics = metrics;
    }

    /**
     * Pauses a topic whose namespace cannot take records for {@code pauseMillis}: its reading is interrupted (its
     * positions are not current meanwhile) and each of its namespaces counts a stall.
     */
    @Override
    public void stall(String topic, String why, long pauseMillis) {
        pauses.pause(topic, why, pauseMillis);
        offsets.readingInterrupted(topic);
        byTopic.namespacesOf(topic).forEach(ns -> metrics.stalls.labelValues(ns).inc());
    }
}
