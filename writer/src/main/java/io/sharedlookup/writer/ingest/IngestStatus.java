package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.Positions;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The status of every namespace as HTTP shows it ({@code /ready}, {@code /namespaces}), and why a namespace is not
 * ready: the broker's problem first, then its topic's, a pause, a stuck partition, a build, catching up. The ingest
 * thread says what changed and publishes a snapshot ({@link #publish}); any thread reads the latest one
 * ({@link #statuses}), which says instead that ingestion is held up while the ingest thread stays away from its loop
 * ({@link IngestHold}), since the snapshots would otherwise go on saying what they said before. Logs as the
 * {@link Ingestor}.
 */
final class IngestStatus {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);

    private final TopicNamespaces byTopic;
    private final WriterMetrics metrics;
    private final TopicWatch watch;
    private final StuckPartitions stuck;
    private final String bootstrapServers;
    private final IngestHold hold;
    private volatile Map<String, NamespaceStatus> statuses = Map.of();
    /** Why no namespace is ready because of Kafka (or ingestion failed), null when none; read from any thread. */
    private volatile String brokerProblem = "not connected to Kafka yet";

    private boolean brokerUnreachable; // brokerProblem is a timeout, an outage BrokerOutage times for /ready
    /** Null until the consumer is made; then its pauses say why a topic waits. */
    private Reading reading;
    /** Whether every partition is known and positioned: from then on lag and currency can be said. */
    private boolean started;

    IngestStatus(
            TopicNamespaces byTopic,
            WriterMetrics metrics,
            TopicWatch watch,
            StuckPartitions stuck,
            String bootstrapServers,
            IngestHold hold) {
        this.byTopic = byTopic;
        this.metrics = metrics;
        this.watch = watch;
        this.stuck = stuck;
        this.bootstrapServers = bootstrapServers;
        this.hold = hold;
    }

    /** The consumer is made: what it reads with can now say why a topic waits. */
    void connected(Reading made) {
        this.reading = made;
    }

    /** Every partition is known and positioned; Kafka answered every question of the start. */
    void started() {
        BrokerOutage.shared().reachable();
        brokerProblem = null;
        started = true;
    }

    /** Kafka could not do something (or ingestion failed): every namespace says {@code problem} until it can. */
    void brokerProblem(String problem, boolean unreachable) {
        brokerProblem = problem;
        brokerUnreachable = unreachable;
    }

    /** Why no namespace is ready because of Kafka, or null; safe from any thread. */
    String brokerProblem() {
        return brokerProblem;
    }

    /** Kafka answered a health check: its problem is over (said in the log unless the outage says it). */
    void brokerAnswered() {
        if (!BrokerOutage.shared().reachable() && brokerProblem != null) { // else the outage says it
            log.info("Kafka at {} is reachable again", bootstrapServers);
        }
        brokerProblem = null;
    }

    /**
     * Per namespace, the latest status snapshot: safe to read from any thread. Past {@link Ingestor#AWAY} away from
     * its loop, each says instead that ingestion is held up, and where.
     */
    Map<String, NamespaceStatus> statuses() {
        Map<String, NamespaceStatus> snapshot = statuses;
        String why = hold.awayReason();
        if (why == null) {
            return snapshot;
        }
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        snapshot.forEach((namespace, status) -> out.put(namespace, status.notReadyBecause(why)));
        return out;
    }

    /** Publishes a fresh snapshot of every namespace's status (and its stuck-partitions gauge); ingest thread only. */
    void publish() {
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        for (NamespaceIngest ingest : byTopic.all()) {
            Map<Integer, Long> lag =
                    started ? reading.offsets.lag(ingest.binding().topic(), watch::highWatermark) : new TreeMap<>();
            long currentAsOf =
                    started ? reading.offsets.currentAsOfMillis(ingest.binding().topic()) : Positions.UNKNOWN;
            out.put(ingest.binding().namespace(), ingest.status(lag, notReadyReason(ingest), currentAsOf));
            metrics.stuckPartitions
                    .labelValues(ingest.binding().namespace())
                    .set(stuck.count(ingest.binding().topic()));
        }
        statuses = Collections.unmodifiableMap(out); // HTTP threads iterate it; WriterApp.statuses() hands it out
    }

    private String notReadyReason(NamespaceIngest ingest) {
        String topic = ingest.binding().topic();
        if (brokerProblem != null) {
            return brokerUnreachable ? BrokerOutage.shared().withDuration(brokerProblem) : brokerProblem;
        }
        String topicProblem = watch.problem(topic);
        if (topicProblem != null) {
            return topicProblem;
        }
        if (reading != null && reading.pauses.isPaused(topic)) {
            return "paused: " + reading.pauses.reason(topic);
        }
        String stuckWhy = stuck.reason(topic);
        if (stuckWhy != null) {
            return "stuck: " + stuckWhy;
        }
        if (!ingest.isLive()) {
            return "building a fresh generation from topic '" + topic + "'; readers see the previous one, if any";
        }
        if (!started || !reading.offsets.caughtUp(topic)) {
            Set<Integer> added = reading == null ? null : reading.offsets.addedNotCaughtUp(topic);
            if (added != null) {
                return "reading partition(s) " + added + " added to topic '" + topic + "' from their beginning";
            }
            return "catching up with topic '" + topic + "'";
        }
        return null;
    }
}
