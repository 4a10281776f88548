package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.Applied;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.Positions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest loop: the one consumer of all configured topics and the thread that owns every {@link NamespaceIngest}. A
 * duty cycle: start reading ({@link IngestStart}) until it succeeds, then poll, apply the batch ({@link BatchApplier}),
 * let each namespace publish or grow, and run the periodic jobs that are due ({@link PeriodicJobs}: {@link Checkpoint},
 * {@link HealthCheck}, {@link PartitionCheck}, {@link ProgressLog}). What Kafka throws is dealt with here: a topic
 * rebuilt ({@link TopicRebuilds}), a partition dealt with alone ({@link UnreadablePartitions}), or a wait with backoff
 * while the broker is away. The statuses HTTP reads are {@link IngestStatus}'s; the watch on a thread held away from
 * its loop is {@link IngestHold}'s.
 *
 * <p>The consumer is made by a factory given to it, on the ingest thread as it starts: the writer's makes a
 * {@code KafkaConsumer} with {@link ConsumerSettings}, unit tests give Kafka's {@code MockConsumer}. While the
 * factory throws {@link UnresolvedBootstrapException} (Kafka's client will not build a consumer before a bootstrap
 * host resolves) the ingest thread says so and asks again with backoff, as when the broker does not answer. The
 * consumer is only ever used by the ingest thread (and woken up by {@link #stop}), and closed by it.
 *
 * <p>Partitions added to a topic while the writer runs are followed ({@link PartitionCheck}): a new partition is
 * read from its beginning, and until it has reached the end offset it had when it was noticed, its namespace is not
 * ready and its manifest says not caught up.
 */
public final class Ingestor {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long the ingest thread may stay away from its loop before the statuses say so (see {@link #statuses}). */
    static final Duration AWAY = Duration.ofSeconds(60);

    /** The system property that shortens the health check's period in a writer JVM a test starts. */
    public static final String HEALTH_PERIOD_PROPERTY = "sharedlookup.writer.healthCheckMillis";

    /**
     * The health check's period; IngestorTest shortens it (read when the consumer is made, on the ingest thread). The
     * system property {@value #HEALTH_PERIOD_PROPERTY} sets it for a writer JVM of its own, so that a test waiting on
     * what only a health check notices (a stuck partition, a recreated topic) does not wait out 5 s periods; it is not
     * an operator setting.
     */
    long healthNanos = TimeUnit.MILLISECONDS.toNanos(Long.getLong(HEALTH_PERIOD_PROPERTY, HealthCheck.PERIOD_MILLIS));
    /** The least gap in currency that rebuilds a topic ({@link CurrencyCheck}); IngestorTest shortens it. */
    long leastCurrencyBoundMillis = TimeUnit.MINUTES.toMillis(1);

    private final WriterConfig config;
    /** Each topic's namespaces: a topic is read once and fans out to every namespace it feeds. */
    private final TopicNamespaces byTopic;

    private final WriterMetrics metrics;
    private final Supplier<Consumer<byte[], byte[]>> consumers;
    /** Null until the ingest thread has made it (see {@link #connect}); volatile for {@link #stop}, which wakes it. */
    private volatile Consumer<byte[], byte[]> consumer;

    private final TopicFacts topicFacts;
    /** Per topic: whether it exists, its id, high watermarks, open transactions; asked at every health check. */
    private final TopicWatch watch;
    /** How long the ingest thread has been away from its loop ({@link IngestHold}). */
    private final IngestHold hold;

    private final IngestStatus status;
    private final StuckPartitions stuck;
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean failed;
    /** The applied positions, and since when they are known current, as every namespace records them. */
    private final Positions positions = new Positions() {
        @Override
        public Map<Integer, Long> of(String topic) {
            return reading == null ? Map.of() : reading.offsets.positionsOf(topic); // null: no consumer, nothing read
        }

        @Override
        public long currentAsOfMillis(String topic) {
            return reading == null ? UNKNOWN : reading.offsets.currentAsOfMillis(topic);
        }
    };

    // Owned by the ingest thread; made with the consumer (connect), null before.
    private Reading reading;
    private BatchApplier batch;
    private UnreadablePartitions unreadable;
    private TopicRebuilds rebuilds;
    private PeriodicJobs jobs;
    private IngestStart start;
    private boolean started;
    /** Unresolved bootstrap hosts are retried every few seconds, maybe for minutes: one WARN, then one a minute. */
    private final RateLimitedLog unresolved = new RateLimitedLog(log, 60_000);

    private final RetryBackoff backoff;

    /**
     * @param consumers makes a consumer with {@link ConsumerSettings#of}, called on the ingest thread until it returns
     *                  one (it throws {@link UnresolvedBootstrapException} while no bootstrap host resolves); the
     *                  consumer is owned (and closed) by this ingestor
     */
    public Ingestor(
            WriterConfig config,
            List<NamespaceIngest> namespaces,
            WriterMetrics metrics,
            Supplier<Consumer<byte[], byte[]>> consumers) {
        this(config, namespaces, metrics, consumers, new BrokerAdmin(config));
    }

    private Ingestor(
            WriterConfig config,
            List<NamespaceIngest> namespaces,
            WriterMetrics metrics,
            Supplier<Consumer<byte[], byte[]>> consumers,
            BrokerAdmin admin) {
        this(
                config,
                namespaces,
                metrics,
                consumers,
                TopicFacts.viaAdmin(admin),
                AWAY,
                new TopicWatch(admin, config.bootstrapServers()));
    }

    Ingestor(
            WriterConfig config,
            List<NamespaceIngest> namespaces,
            WriterMetrics metrics,
            Supplier<Consumer<byte[], byte[]>> consumers,
            TopicFacts topicFacts) {
        this(config, namespaces, metrics, consumers, topicFacts, AWAY);
    }

    Ingestor(
            WriterConfig config,
            List<NamespaceIngest> namespaces,
            WriterMetrics metrics,
            Supplier<Consumer<byte[], byte[]>> consumers,
            TopicFacts topicFacts,
            Duration away) {
        this(config, namespaces, metrics, consumers, topicFacts, away, new TopicWatch(null, config.bootstrapServers()));
    }

    private Ingestor(
            WriterConfig config,
            List<NamespaceIngest> namespaces,
            WriterMetrics metrics,
            Supplier<Consumer<byte[], byte[]>> consumers,
            TopicFacts topicFacts,
            Duration away,
            TopicWatch watch) {
        this.watch = watch;
        this.config = config;
        this.metrics = metrics;
        this.byTopic = new TopicNamespaces(namespaces);
        this.consumers = consumers;
        this.topicFacts = topicFacts;
        this.stuck = new StuckPartitions(config.stuckAfterSeconds());
        this.thread = new Thread(this::run, "shared-lookup-ingest");
        this.hold = new IngestHold(
                thread, away, config.ingestHoldLimitSeconds(), () -> stopping || failed || !thread.isAlive());
        this.status = new IngestStatus(byTopic, metrics, watch, stuck, config.bootstrapServers(), hold);
        this.backoff = new RetryBackoff(status, stuck, stopSignal);
        status.publish();
    }

    public void start() {
        thread.start();
        hold.start();
    }

    /** Stops polling, closes every namespace cleanly and waits for that, at most {@code timeout}. */
    public void stop(Duration timeout) throws InterruptedException {
        stopping = true;
        stopSignal.countDown();
        hold.stop();
        Consumer<byte[], byte[]> made = consumer;
        if (made != null) { // else the ingest thread sees stopping once it has made one (connect)
            made.wakeup();
        }
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            log.warn(
                    "The ingest thread did not stop within {}; namespaces it still holds will be rebuilt next start",
                    timeout);
        }
    }

    /**
     * Why ingestion stopped for good (the ingest thread died, or has been away from its loop for longer than
     * {@code --ingest-hold-limit}), or empty while it runs; safe from any thread.
     */
    public Optional<String> failure() {
        return failed ? Optional.of(String.valueOf(status.brokerProblem())) : hold.heldTooLong();
    }

    /**
     * Per namespace, the latest status snapshot: safe to read from any thread. The ingest thread publishes the
     * snapshots, so while it stays away from its loop (a long growth copy, a slow disk, or stuck) they would go on
     * saying what they said before: past {@link #AWAY} each says instead that ingestion is held up, and where.
     */
    public Map<String, NamespaceStatus> statuses() {
        return status.statuses();
    }

    private void run() {
        try {
            while (!stopping) {
                hold.backInLoop();
                try {
                    if (!started) {
                        startAll();
                        continue;
                    }
                    // Before the poll rather than after the batch, so that they also run after a failure one
                    // partition accounts for (a damaged batch is skipped in as many failed polls as it has offsets),
                    // and so that what they throw reaches the catches below.
                    jobs.runDue();
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                    long applying = System.nanoTime();
                    try {
                        batch.apply(records, rebuilds);
                        byTopic.afterBatch(reading.offsets::caughtUp, positions, reading, (topic, why) -> {
                            try {
                                rebuilds.rebuild(topic, why);
                            } catch (KafkaException unreachable) {
                                reading.stall(
                                        topic,
                                        why + "; cannot rebuild now: " + unreachable.getMessage(),
                                        Applied.Stalled.PAUSE_MILLIS);
                            }
                        });
                    } finally {
                        stuck.busyFor(System.nanoTime() - applying); // the writer's own time: no partition's fault
                    }
                    backoff.reset();
                } catch (InvalidOffsetException e) {
                    try {
                        rebuilds.rebuildOutOfRange(e.partitions());
                    } catch (KafkaException again) {
                        // Positions unchanged: the next poll reports the same partitions and this is retried.
                        retryLater("cannot rebuild after offsets went out of range: " + again, null);
                    }
                } catch (WakeupException e) {
                    // stop() woke us up; the loop condition ends it
                } catch (UnresolvedBootstrapException e) {
                    unresolved.warn("{}; serving the last published store and retrying", e.getMessage());
                    backOff(e.getMessage() + "; retrying", false);
                } catch (TimeoutException e) {
                    BrokerOutage.shared().failed("it did not answer: " + e.getMessage()); // a WARN a minute at most
                    backOff("Kafka at " + config.bootstrapServers() + " did not answer: " + e.getMessage(), true);
                } catch (KafkaException e) {
                    if (!handledAlone(e)) {
                        retryLater("Kafka error: " + e, e);
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            // Possibly mid-update (for example Chronicle's own exit hook closed a map under us during shutdown):
            // the files must not be marked cleanly closed, so the next start rebuilds instead of resuming.
            status.brokerProblem(
                    "ingestion failed: " + String.valueOf(e).lines().findFirst().orElse(""), false);
            failed = true;
            log.error(
                    "The ingest thread failed; stopping ingestion (the store keeps serving what was published; "
                            + "the next start rebuilds)",
                    e);
            status.publish();
        } finally {
            closeAll();
        }
    }

    /**
     * Deals with a failure that one partition or topic accounts for there ({@link UnreadablePartitions}), so that the
     * other topics flow on; false when it is not one, or when dealing with it failed too.
     */
    private boolean handledAlone(KafkaException e) {
        if (!started) {
            return false; // before every partition is known, the start is retried as a whole
        }
        try {
            return unreadable.handle(e);
        } catch (KafkaException again) {
            log.warn("Cannot deal with '{}' for its partition alone: {}", e.getMessage(), again.toString());
            return false;
        }
    }

    /** The broker could not do something: says so (/ready, log), then waits ({@link RetryBackoff}). */
    private void retryLater(String problem, Exception logged) {
        if (!backoff.retryLater(problem, logged, reading)) {
            stopping = true;
        }
    }

    /** Says why namespaces are not ready (timed if Kafka is {@code unreachable}), then waits ({@link RetryBackoff}). */
    private void backOff(String problem, boolean unreachable) {
        if (!backoff.backOff(problem, unreachable, reading)) {
            stopping = true;
        }
    }

    /**
     * Makes the consumer and what reads through it. On the ingest thread, so that bootstrap hosts that do not resolve
     * yet are retried here (see {@link #run}) while the writer serves what is published.
     */
    private void connect() {
        Consumer<byte[], byte[]> made = consumers.get();
        PartitionOffsets offsets =
                new PartitionOffsets(made, config.kafkaProperties().containsKey(ConsumerConfig.GROUP_ID_CONFIG));
        Reading r = new Reading(made, byTopic, offsets, positions, metrics);
        batch = new BatchApplier(r, config.maxValueBytes(), config.applyThreads());
        unreadable = new UnreadablePartitions(made, offsets, byTopic::namespacesOf, r, metrics);
        rebuilds = new TopicRebuilds(r, topicFacts, watch, unreadable, batch, status);
        CurrencyCheck currency = new CurrencyCheck(r, rebuilds, leastCurrencyBoundMillis);
        jobs = new PeriodicJobs()
                .every(TimeUnit.MILLISECONDS.toNanos(Checkpoint.PERIOD_MILLIS), new Checkpoint(r, status))
                .everyAfterStart(
                        healthNanos,
                        new HealthCheck(
                                r, watch, unreadable, rebuilds, currency, stuck, status, config.bootstrapServers()))
                .everyAfterStart(
                        TimeUnit.MILLISECONDS.toNanos(PartitionCheck.PERIOD_MILLIS), new PartitionCheck(r, status))
                .everyAfterStart(TimeUnit.MILLISECONDS.toNanos(ProgressLog.PERIOD_MILLIS), new ProgressLog(r));
        start = new IngestStart(r, topicFacts, watch, rebuilds, jobs, status, hold, config.bootstrapServers());
        reading = r;
        status.connected(r);
        consumer = made; // stop() wakes it from now on; a stop() before this is seen by startAll
    }

    /** Makes the consumer if not yet, then starts reading ({@link IngestStart}); retried while that cannot be. */
    private void startAll() {
        if (consumer == null) {
            connect();
            if (stopping) {
                return; // stop() came while it was being made, too early to wake it
            }
        }
        String notYet = start.start();
        if (notYet != null) {
            retryLater(notYet, null);
            return;
        }
        started = true;
    }

    private void closeAll() {
        // No consumer made: no namespace was started, none has a position.
        for (NamespaceIngest ingest : byTopic.all()) {
            try {
                if (failed) {
                    ingest.abandon();
                    continue;
                }
                ingest.close(positions);
            } catch (RuntimeException e) {
                log.error("Closing namespace '{}' failed", ingest.binding().namespace(), e);
            }
        }
        if (!failed && started) {
            reading.offsets.commitForTooling(true);
        }
        if (batch != null) {
            batch.close();
        }
        try {
            if (consumer != null) {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
            }
        } catch (RuntimeException e) {
            log.debug("Consumer close failed", e);
        }
        watch.close();
        log.info("Ingestion stopped");
    }
}
