package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.Positions;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Credits each topic with the end offsets its positions have reached since ({@link TopicCurrency}), and rebuilds a
 * topic whose positions went too long without being current. Run by the {@link HealthCheck}, after it has asked for
 * fresh end offsets. Logs as the {@link Ingestor}; used by the ingest thread only.
 */
final class CurrencyCheck {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);

    private final TopicNamespaces byTopic;
    private final PartitionOffsets offsets;
    private final TopicRebuilds rebuilds;
    /**
     * The least time positions may go without being current before a topic is rebuilt, whatever its
     * delete.retention.ms: the health check that asks for end offsets runs every 5 s, so no shorter gap can be seen.
     */
    private final long leastBoundMillis;

    CurrencyCheck(Reading reading, TopicRebuilds rebuilds, long leastBoundMillis) {
        this.byTopic = reading.byTopic;
        this.offsets = reading.offsets;
        this.rebuilds = rebuilds;
        this.leastBoundMillis = leastBoundMillis;
    }

    /**
     * A live topic whose positions went longer than its delete.retention.ms without being current (the broker away,
     * the topic paused or behind, the process frozen) may have had deletes compacted away unread, which reading on
     * would never see: it is rebuilt, as a start after so long a stop would be. A rebuild that fails leaves the topic
     * uncredited, so the next check decides again. A gap that is the time a read from the beginning (a build or a
     * rebuild) took is not a reason to rebuild: the next read would take as long, and rebuilding would never end. It
     * is said in a WARN, with the fix (a longer delete.retention.ms), and credited; but a read held up meanwhile (the
     * topic paused, the broker away) is rebuilt once, since a read without the hold-up may be quicker (the read of
     * that rebuild is then judged as uninterrupted, whatever holds it up). Nor is a gap in which nothing was written
     * to the topic (a quiet topic, a broker away) a reason: no delete can have been missed.
     */
    void run() {
        for (String topic : List.copyOf(byTopic.topics())) {
            long reached = offsets.reachedAsOfMillis(topic);
            long current = offsets.currentAsOfMillis(topic);
            if (reached == Positions.UNKNOWN || reached <= current) {
                continue;
            }
            long bound = Math.max(leastBoundMillis, rebuilds.deleteRetentionMillis(topic));
            boolean tooLong = current != Positions.UNKNOWN && reached - current > bound;
            boolean live = byTopic.isLive(topic);
            if (tooLong && offsets.readingFromBeginning(topic)) {
                log.warn(
                        "Topic '{}': reading it from its beginning took {} s, longer than its delete.retention.ms "
                                + "({} ms), so deletes compacted away meanwhile may have been missed; a rebuild would take as "
                                + "long, so the writer reads on: raise the topic's delete.retention.ms above the time a build "
                                + "takes",
                        topic,
                        (reached - current) / 1000,
                        bound);
                offsets.credit(topic, reached);
            } else if (tooLong && live && offsets.nothingWrittenSinceCredited(topic)) {
                log.info(
                        "Topic '{}': its positions were not current for {} s, longer than its delete.retention.ms "
                                + "({} ms), but nothing was written to it meanwhile, so no delete can have been missed: "
                                + "reading on",
                        topic,
                        (reached - current) / 1000,
                        bound);
                offsets.credit(topic, reached);
            } else if (tooLong && live) {
                rebuilds.rebuild(
                        topic,
                        "its positions were not current for " + (reached - current) / 1000 + " s ("
                                + Instant.ofEpochMilli(current) + " to " + Instant.ofEpochMilli(reached)
                                + "), longer than "
                                + "its delete.retention.ms (" + bound + " ms), so deletes may have been missed");
                offsets.rebuiltForGap(topic);
            } else if (!tooLong) {
                offsets.credit(topic, reached);
            } // else: a held-up build not yet live, judged once it is
        }
    }
}
