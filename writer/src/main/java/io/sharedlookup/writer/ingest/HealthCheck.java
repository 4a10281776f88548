package io.sharedlookup.writer.ingest;

import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;

/**
 * Every few seconds (5 in production): a cheap request to tell "nothing new" from "broker gone", and fresh end
 * offsets for lag; with them, how current each topic's positions are ({@link CurrencyCheck}), topics recreated under
 * the writer ({@link TopicRebuilds#rebuildRecreated}), partitions that stay put although their log goes on
 * ({@link StuckPartitions}); then the applied offsets are committed for Kafka's tools.
 */
final class HealthCheck implements PeriodicJob {
    /** The production period; tests shorten it. */
    static final long PERIOD_MILLIS = 5_000;

    private final Reading reading;
    private final TopicWatch watch;
    private final UnreadablePartitions unreadable;
    private final TopicRebuilds rebuilds;
    private final CurrencyCheck currency;
    private final StuckPartitions stuck;
    private final IngestStatus status;
    private final String bootstrapServers;
    /** When partitions were last looked at for being stuck: what was paused since then stayed put for that reason. */
    private long lastStuckCheck;

    HealthCheck(
            Reading reading,
            TopicWatch watch,
            UnreadablePartitions unreadable,
            TopicRebuilds rebuilds,
            CurrencyCheck currency,
            StuckPartitions stuck,
            IngestStatus status,
            String bootstrapServers) {
        this.reading = reading;
        this.watch = watch;
        this.unreadable = unreadable;
        this.rebuilds = rebuilds;
        this.currency = currency;
        this.stuck = stuck;
        this.status = status;
        this.bootstrapServers = bootstrapServers;
    }

    @Override
    public void started(long nowNanos) {
        lastStuckCheck = nowNanos;
    }

    @Override
    public void run(long nowNanos) {
        checkBroker(nowNanos);
        reading.offsets.commitForTooling(false);
    }

    private void checkBroker(long now) {
        PartitionOffsets offsets = reading.offsets;
        try {
            TopicAuthorizationException unauthorized = null;
            watch.look(reading.byTopic.topics(), offsets.all(), offsets::latestEnd); // first: a topic gone is not asked
            try {
                watch.unanswered(offsets.refreshEnds(watch.missingTopics(), watch.brokerAnswering()));
            } catch (TopicAuthorizationException e) {
                unauthorized = e; // the broker answered; the other topics' end offsets are refreshed
            }
            try {
                currency.run();
                rebuilds.rebuildRecreated();
                status.brokerAnswered();
            } finally {
                if (unauthorized != null) {
                    unreadable.handle(unauthorized); // those topics pause, even when a rebuild above failed
                }
            }
        } catch (TimeoutException e) {
            BrokerOutage.shared().failed("it did not answer: " + e.getMessage()); // a WARN a minute at most
            status.brokerProblem("Kafka at " + bootstrapServers + " is unreachable: " + e.getMessage(), true);
            offsets.readingInterrupted();
        }
        checkStuck(now);
        status.publish();
    }

    /** After {@link #checkBroker}: partitions that stay put although their log goes on ({@link StuckPartitions}). */
    private void checkStuck(long now) {
        long previous = lastStuckCheck;
        lastStuckCheck = now;
        if (status.brokerProblem() != null) {
            stuck.restart(); // nothing moves while the broker is gone: watch afresh once it is back
            return;
        }
        // Paused now or since the last check (a full disk retried every 2 s is resumed for a moment at a time): each
        // stays put for a reason /ready already gives.
        Set<TopicPartition> held = new HashSet<>(reading.consumer.paused());
        reading.byTopic.topics().stream()
                .filter(t -> reading.pauses.pausedSince(t, previous) || watch.problem(t) != null)
                .forEach(t -> held.addAll(reading.offsets.of(t))); // gone or unanswered: said so already
        stuck.check(
                now,
                reading.offsets.all(),
                held,
                reading.consumer::position,
                reading.offsets::latestEnd,
                watch::highWatermark,
                watch::openTransaction);
    }
}
