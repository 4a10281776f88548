package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceSink;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.Positions;
import io.sharedlookup.writer.namespace.ResumeDecision;
import io.sharedlookup.writer.namespace.StalledException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer of all configured topics and the thread that owns every {@link NamespaceSink}: assigns all
 * partitions (no consumer group), has each poll batch applied ({@link BatchApplier}), tracks catching up against
 * the end offsets captured at start ({@link PartitionOffsets}), pauses topics whose namespace cannot take records
 * ({@link TopicPauses}), checkpoints, watches the broker and publishes status snapshots for HTTP.
 *
 * <p>The consumer is made by a factory given to it, on the ingest thread as it starts: the writer's makes a
 * {@code KafkaConsumer} with {@link ConsumerSettings}, unit tests give Kafka's {@code MockConsumer}. While the
 * factory throws {@link UnresolvedBootstrapException} (Kafka's client will not build a consumer before a bootstrap
 * host resolves) the ingest thread says so and asks again with backoff, as when the broker does not answer. The
 * consumer is only ever used by the ingest thread (and woken up by {@link #stop}), and closed by it.
 *
 * <p>Partitions added to a topic while the writer runs are followed: the consumer refreshes its metadata every
 * {@value ConsumerSettings#METADATA_MAX_AGE_MS} ms (unless {@code metadata.max.age.ms} is set), the ingest thread
 * compares each topic's partitions with that cached metadata every {@value #PARTITION_CHECK_MILLIS} ms (no request to
 * the broker, so the poll loop is not slowed), and a new partition is assigned from its beginning. Until it has
 * reached the end offset it had when it was noticed, its namespace is not ready and its manifest says not caught up.
 */
public final class Ingestor {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long CHECKPOINT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    long healthNanos = TimeUnit.SECONDS.toNanos(5); // the health check's period; IngestorTest shortens it
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often the partitions in the consumer's cached metadata are compared with the assigned ones. */
    static final long PARTITION_CHECK_MILLIS = 1_000;
    private static final long FIRST_BACKOFF_MILLIS = 500;
    private static final long MAX_BACKOFF_MILLIS = 10_000;
    /** How long the ingest thread may stay away from its loop before the statuses say so (see {@link #statuses}). */
    static final Duration AWAY = Duration.ofSeconds(60);

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
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;
    private volatile boolean failed;
    private volatile Map<String, NamespaceStatus> statuses = Map.of();
    private volatile String brokerProblem = "not connected to Kafka yet";
    private boolean brokerUnreachable; // brokerProblem is a timeout, an outage BrokerOutage times for /ready
    /** Per topic, its delete.retention.ms (Kafka's default, a day, when it cannot be read), as last read. */
    private final Map<String, Long> deleteRetentionMillis = new HashMap<>();
    /**
     * The least time positions may go without being current before a topic is rebuilt, whatever its
     * delete.retention.ms: the health check that asks for end offsets runs every 5 s, so no shorter gap can be seen.
     */
    long leastCurrencyBoundMillis = TimeUnit.MINUTES.toMillis(1);
    /** The applied positions, and since when they are known current, as every namespace records them. */
    private final Positions positions = new Positions() {
        @Override
        public Map<Integer, Long> of(String topic) {
            return offsets == null ? Map.of() : offsets.positionsOf(topic); // null: no consumer made, nothing read
        }

        @Override
        public long currentAsOfMillis(String topic) {
            return offsets == null ? UNKNOWN : offsets.currentAsOfMillis(topic);
        }
    };

    // Owned by the ingest thread; these four are made with the consumer, null before.
    private boolean started;
    private PartitionOffsets offsets;
    private TopicPauses pauses;
    private BatchApplier batch;
    private UnreadablePartitions unreadable;
    private final StuckPartitions stuck;
    /** Unresolved bootstrap hosts are retried every few seconds, maybe for minutes: one WARN, then one a minute. */
    private final RateLimitedLog unresolved = new RateLimitedLog(log, 60_000);
    private long lastCheckpoint;
    private long lastHealth;
    private long lastProgress;
    private long lastPartitionCheck;
    private long lastStuckCheck;
    private long backoffMillis = FIRST_BACKOFF_MILLIS;

    /**
     * @param consumers makes a consumer with {@link ConsumerSettings#of}, called on the ingest thread until it returns
     *                  one (it throws {@link UnresolvedBootstrapException} while no bootstrap host resolves); the
     *                  consumer is owned (and closed) by this ingestor
     */
    public Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics,
                    Supplier<Consumer<byte[], byte[]>> consumers) {
        this(config, sinks, metrics, consumers, new BrokerAdmin(config));
    }

    private Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics,
                     Supplier<Consumer<byte[], byte[]>> consumers, BrokerAdmin admin) {
        this(config, sinks, metrics, consumers, TopicFacts.viaAdmin(admin), AWAY,
                new TopicWatch(admin, config.bootstrapServers()));
    }

    Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics,
             Supplier<Consumer<byte[], byte[]>> consumers, TopicFacts topicFacts) {
        this(config, sinks, metrics, consumers, topicFacts, AWAY);
    }

    Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics,
             Supplier<Consumer<byte[], byte[]>> consumers, TopicFacts topicFacts, Duration away) {
        this(config, sinks, metrics, consumers, topicFacts, away, new TopicWatch(null, config.bootstrapServers()));
    }

    private Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics,
                     Supplier<Consumer<byte[], byte[]>> consumers, TopicFacts topicFacts, Duration away,
                     TopicWatch watch) {
        this.watch = watch;
        this.config = config;
        this.metrics = metrics;
        this.byTopic = new TopicNamespaces(sinks);
        this.consumers = consumers;
        this.topicFacts = topicFacts;
        this.stuck = new StuckPartitions(config.stuckAfterSeconds());
        this.thread = new Thread(this::run, "shared-lookup-ingest");
        this.hold = new IngestHold(thread, away, config.ingestHoldLimitSeconds(),
                () -> stopping || failed || !thread.isAlive());
        publishStatuses();
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
            log.warn("The ingest thread did not stop within {}; namespaces it still holds will be rebuilt next start",
                    timeout);
        }
    }

    /**
     * Why ingestion stopped for good (the ingest thread died, or has been away from its loop for longer than
     * {@code --ingest-hold-limit}), or empty while it runs; safe from any thread.
     */
    public Optional<String> failure() {
        return failed ? Optional.of(String.valueOf(brokerProblem)) : hold.heldTooLong();
    }

    /**
     * Per namespace, the latest status snapshot: safe to read from any thread. The ingest thread publishes the
     * snapshots, so while it stays away from its loop (a long growth copy, a slow disk, or stuck) they would go on
     * saying what they said before: past {@link #AWAY} each says instead that ingestion is held up, and where.
     */
    public Map<String, NamespaceStatus> statuses() {
        Map<String, NamespaceStatus> snapshot = statuses;
        String why = hold.awayReason();
        if (why == null) {
            return snapshot;
        }
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        snapshot.forEach((namespace, status) -> out.put(namespace, status.notReadyBecause(why)));
        return out;
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
                    // Before the poll rather than after the batch, so that it also runs after a failure one
                    // partition accounts for (a damaged batch is skipped in as many failed polls as it has offsets),
                    // and so that what it throws reaches the catches below.
                    periodic();
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                    long applying = System.nanoTime();
                    batch.apply(records);
                    byTopic.afterBatch(offsets::caughtUp, positions, this::stall, (topic, why) -> {
                        try {
                            rebuildTopic(topic, why);
                        } catch (KafkaException unreachable) {
                            stall(topic, why + "; cannot rebuild now: " + unreachable.getMessage(),
                                    StalledException.PAUSE_MILLIS);
                        }
                    });
                    stuck.busyFor(System.nanoTime() - applying); // the writer's own time: no partition's fault
                    backoffMillis = FIRST_BACKOFF_MILLIS;
                } catch (InvalidOffsetException e) {
                    try {
                        rebuildOutOfRange(e.partitions());
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
            brokerProblem = "ingestion failed: " + String.valueOf(e).lines().findFirst().orElse("");
            brokerUnreachable = false;
            failed = true;
            log.error("The ingest thread failed; stopping ingestion (the store keeps serving what was published; "
                    + "the next start rebuilds)", e);
            publishStatuses();
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

    /** The broker could not do something: says so (/ready, log), then waits, longer each time up to 10 s. */
    private void retryLater(String problem, Exception logged) {
        if (logged == null) {
            log.warn("{}; retrying in {} ms", problem, backoffMillis);
        } else {
            log.warn("{}; retrying in {} ms", problem, backoffMillis, logged);
        }
        backOff(problem, false);
    }

    /** Says why namespaces are not ready (/ready, timed if Kafka is {@code unreachable}); waits longer each time. */
    private void backOff(String problem, boolean unreachable) {
        brokerProblem = problem;
        brokerUnreachable = unreachable;
        if (offsets != null) { // null until the consumer is made
            offsets.readingInterrupted();
        }
        stuck.restart(); // no poll moved anything meanwhile: that is this problem, not a partition stuck
        publishStatuses();
        try {
            stopSignal.await(backoffMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
        backoffMillis = Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
    }

    /**
     * Makes the consumer and what reads through it. On the ingest thread, so that bootstrap hosts that do not resolve
     * yet are retried here (see {@link #run}) while the writer serves what is published.
     */
    private void connect() {
        Consumer<byte[], byte[]> made = consumers.get();
        offsets = new PartitionOffsets(made, config.kafkaProperties().containsKey(ConsumerConfig.GROUP_ID_CONFIG));
        pauses = new TopicPauses(made, offsets);
        batch = new BatchApplier(made, byTopic, offsets, positions, pauses, this::stall, this::rebuildTopic, metrics,
                config.maxValueBytes(), config.applyThreads());
        unreadable = new UnreadablePartitions(made, offsets, byTopic::namespacesOf, this::stall, metrics);
        consumer = made; // stop() wakes it from now on; a stop() before this is seen by startAll
    }

    /** Discovers partitions and offsets, then lets every namespace choose between resume and rebuild. */
    private void startAll() {
        if (consumer == null) {
            connect();
            if (stopping) {
                return; // stop() came while it was being made, too early to wake it
            }
        }
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : byTopic.topics()) {
            List<TopicPartition> tps = offsets.discover(topic);
            hold.backInLoop();
            if (tps.isEmpty()) {
                retryLater("topic '" + topic + "' does not exist on " + config.bootstrapServers(), null);
                return;
            }
            offsets.setPartitions(topic, tps);
            all.addAll(tps);
        }
        consumer.assign(all);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(all, Duration.ofSeconds(10));
        hold.backInLoop();
        long endAskedAt = System.currentTimeMillis();
        Map<TopicPartition, Long> end = consumer.endOffsets(all, Duration.ofSeconds(10));
        hold.backInLoop();
        Map<String, TopicFacts.Facts> facts = topicFacts.of(byTopic.topics());
        for (String topic : byTopic.topics()) {
            TopicFacts.Facts f = facts.getOrDefault(topic, TopicFacts.Facts.UNKNOWN);
            watch.expect(topic, f.topicId());
            Map<Integer, Long> from = byTopic.start(topic, PartitionOffsets.byPartition(begin, topic),
                    PartitionOffsets.byPartition(end, topic), f.deleteRetentionMillis(), f.topicId());
            rememberRetention(topic, f);
            if (byTopic.isLive(topic)) { // resumed: its offsets are as current as its manifest says
                offsets.credit(topic, byTopic.publishedCurrentAsOfMillis(topic));
            } else { // built from the beginning, read from ends asked for just now
                offsets.restartCurrency(topic, endAskedAt);
            }
            for (TopicPartition tp : offsets.of(topic)) {
                offsets.seek(tp, from.getOrDefault(tp.partition(), begin.get(tp)));
            }
        }
        long startNanos = offsets.started(begin, end, endAskedAt);
        lastProgress = startNanos;
        lastHealth = startNanos;
        lastPartitionCheck = startNanos;
        lastStuckCheck = startNanos;
        BrokerOutage.shared().reachable(); // Kafka answered every question above
        brokerProblem = null;
        started = true;
        publishStatuses();
    }

    /**
     * Positions the broker no longer has (or none at all, after a partial attempt of this): the topic was truncated
     * past them or deleted and recreated while the writer ran. Rebuilds the namespaces of those topics from their
     * (possibly new) partitions' beginnings; other topics keep their positions, and readers keep the published
     * generations until the rebuilt ones are complete.
     */
    private void rebuildOutOfRange(Set<TopicPartition> outOfRange) {
        Set<String> topics = new TreeSet<>();
        outOfRange.forEach(tp -> topics.add(tp.topic()));
        reassign(topics);
        for (String topic : topics) {
            StringBuilder why = new StringBuilder("the broker no longer has the position of partition(s)");
            outOfRange.forEach(tp -> {
                if (tp.topic().equals(topic)) {
                    why.append(' ').append(tp.partition()).append(" (at ").append(offsets.appliedAt(tp)).append(')');
                }
            });
            why.append(": was the topic truncated or recreated?");
            rebuildTopic(topic, why.toString());
        }
    }

    /** Sets the topics' partitions as the broker lists them now, and assigns them; the others keep their positions. */
    private void reassign(Set<String> topics) {
        for (String topic : topics) {
            List<TopicPartition> tps = offsets.discover(topic);
            if (tps.isEmpty()) {
                throw new UnknownTopicOrPartitionException("topic '" + topic + "' has no partitions now");
            }
            offsets.setPartitions(topic, tps);
        }
        consumer.assign(offsets.all()); // keeps the positions of partitions that stay assigned
    }

    /**
     * A topic whose id changed was deleted and recreated, maybe while the writer was not fetching (a long pause, a
     * network partition): its positions belong to the old topic, and the new one may already hold records past them,
     * so reading on would skip its first records. Its namespace is rebuilt from the new topic's partitions; a rebuild
     * that cannot start now is tried again at the next check.
     */
    private void rebuildRecreated() {
        watch.changedIds().forEach((topic, id) -> {
            try {
                reassign(Set.of(topic));
                rebuildTopic(topic, "its topic id is now " + id + ", not " + watch.expectedId(topic)
                        + " as read so far: the topic was deleted and recreated");
            } catch (KafkaException e) {
                log.warn("Topic '{}' was recreated (id {}) but cannot be rebuilt now ({}); trying again in 5 s", topic,
                        id, e.toString());
            }
        });
    }

    /**
     * Rebuilds a topic's namespace from the beginning of all its partitions, as at a start without anything to
     * resume: caught up again once the end offsets of now are reached.
     */
    private void rebuildTopic(String topic, String why) {
        List<TopicPartition> tps = offsets.of(topic);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(10));
        long endAskedAt = System.currentTimeMillis();
        Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(10));
        log.warn("Topic '{}': {}; rebuilding namespace(s) {} from the beginning (log now {} to {})", topic, why,
                byTopic.namespacesOf(topic), PartitionOffsets.byPartition(begin, topic),
                PartitionOffsets.byPartition(end, topic));
        // The topic may be another one by now (deleted and recreated): its generations record its id of now. Asked
        // before anything is forgotten, so that a failure here leaves the topic as it was.
        TopicFacts.Facts facts = topicFacts.of(List.of(topic)).getOrDefault(topic, TopicFacts.Facts.UNKNOWN);
        String topicId = facts.topicId();
        if (facts.deleteRetentionMillis() >= 0) {
            rememberRetention(topic, facts);
        }
        offsets.forget(topic);
        unreadable.forget(topic);
        batch.forgetKeys(topic); // the recreated topic may spread keys otherwise: not a key on two partitions
        byTopic.rebuild(topic, why, PartitionOffsets.byPartition(begin, topic),
                PartitionOffsets.byPartition(end, topic), topicId, facts.deleteRetentionMillis());
        watch.expect(topic, topicId);
        offsets.readFromBeginning(begin, end, endAskedAt);
        offsets.restartCurrency(topic, endAskedAt); // only once the rebuild is under way
        pauses.lift(topic, tps);
        publishStatuses();
    }

    private void stall(String topic, String why, long pauseMillis) {
        pauses.pause(topic, why, pauseMillis);
        offsets.readingInterrupted(topic);
        byTopic.namespacesOf(topic).forEach(ns -> metrics.stalls.labelValues(ns).inc());
    }

    private void periodic() {
        long now = System.nanoTime();
        if (now - lastCheckpoint >= CHECKPOINT_NANOS) {
            lastCheckpoint = now;
            byTopic.all().forEach(s -> s.checkpoint(positions));
            pauses.resumeDue();
            publishStatuses();
        }
        if (now - lastHealth >= healthNanos) {
            lastHealth = now;
            checkBroker(now);
            offsets.commitForTooling(false);
        }
        if (now - lastPartitionCheck >= TimeUnit.MILLISECONDS.toNanos(PARTITION_CHECK_MILLIS)) {
            lastPartitionCheck = now;
            followPartitionChanges();
        }
        if (now - lastProgress >= PROGRESS_NANOS) {
            lastProgress = now;
            offsets.logProgress(now, byTopic.topics());
        }
    }

    /** Partitions added to a topic are read from their beginning; a paused topic's new ones are paused too. */
    private void followPartitionChanges() {
        Map<String, List<TopicPartition>> added = offsets.followAdded(byTopic.topics());
        if (added.isEmpty()) {
            return;
        }
        added.forEach((topic, tps) -> {
            if (pauses.isPaused(topic)) {
                consumer.pause(tps);
            }
        });
        publishStatuses();
    }

    /**
     * A cheap request to tell "nothing new" from "broker gone", and fresh end offsets for lag; with them, partitions
     * that stay put although their log goes on.
     */
    private void checkBroker(long now) {
        try {
            TopicAuthorizationException unauthorized = null;
            watch.look(byTopic.topics(), offsets.all(), offsets::latestEnd); // first: a topic gone is not asked below
            try {
                watch.unanswered(offsets.refreshEnds(watch.missingTopics(), watch.brokerAnswering()));
            } catch (TopicAuthorizationException e) {
                unauthorized = e; // the broker answered; the other topics' end offsets are refreshed
            }
            try {
                followCurrency();
                rebuildRecreated();
                reachable();
            } finally {
                if (unauthorized != null) {
                    unreadable.handle(unauthorized); // those topics pause, even when a rebuild above failed
                }
            }
        } catch (TimeoutException e) {
            BrokerOutage.shared().failed("it did not answer: " + e.getMessage()); // a WARN a minute at most
            brokerProblem = "Kafka at " + config.bootstrapServers() + " is unreachable: " + e.getMessage();
            brokerUnreachable = true;
            offsets.readingInterrupted();
        }
        checkStuck(now);
        publishStatuses();
    }

    /** After {@link #checkBroker}: partitions that stay put although their log goes on ({@link StuckPartitions}). */
    private void checkStuck(long now) {
        long previous = lastStuckCheck;
        lastStuckCheck = now;
        if (brokerProblem != null) {
            stuck.restart(); // nothing moves while the broker is gone: watch afresh once it is back
            return;
        }
        // Paused now or since the last check (a full disk retried every 2 s is resumed for a moment at a time): each
        // stays put for a reason /ready already gives.
        Set<TopicPartition> held = new java.util.HashSet<>(consumer.paused());
        byTopic.topics().stream().filter(t -> pauses.pausedSince(t, previous) || watch.problem(t) != null)
                .forEach(t -> held.addAll(offsets.of(t))); // gone or unanswered: said so already
        stuck.check(now, offsets.all(), held, consumer::position, offsets::latestEnd, watch::highWatermark,
                watch::openTransaction);
    }

    /**
     * Credits each topic with the end offsets its positions have reached since ({@link TopicCurrency}). A live topic
     * whose positions went longer than its delete.retention.ms without being current (the broker away, the topic
     * paused or behind, the process frozen) may have had deletes compacted away unread, which reading on would never
     * see: it is rebuilt, as a start after so long a stop would be. A rebuild that fails leaves the topic uncredited,
     * so the next check decides again. A gap that is the time a read from the beginning (a build or a rebuild) took
     * is not a reason to rebuild: the next read would take as long, and rebuilding would never end. It is said in a
     * WARN, with the fix (a longer delete.retention.ms), and credited; but a read held up meanwhile (the topic paused,
     * the broker away) is rebuilt once, since a read without the hold-up may be quicker (the read of that rebuild is
     * then judged as uninterrupted, whatever holds it up). Nor is a gap in which nothing was written to the topic (a
     * quiet topic, a broker away) a reason: no delete can have been missed.
     */
    private void followCurrency() {
        for (String topic : List.copyOf(byTopic.topics())) {
            long reached = offsets.reachedAsOfMillis(topic);
            long current = offsets.currentAsOfMillis(topic);
            if (reached == Positions.UNKNOWN || reached <= current) {
                continue;
            }
            long bound = Math.max(leastCurrencyBoundMillis,
                    deleteRetentionMillis.getOrDefault(topic, ResumeDecision.DEFAULT_DELETE_RETENTION_MILLIS));
            boolean tooLong = current != Positions.UNKNOWN && reached - current > bound;
            boolean live = byTopic.isLive(topic);
            if (tooLong && offsets.readingFromBeginning(topic)) {
                log.warn("Topic '{}': reading it from its beginning took {} s, longer than its delete.retention.ms "
                        + "({} ms), so deletes compacted away meanwhile may have been missed; a rebuild would take as "
                        + "long, so the writer reads on: raise the topic's delete.retention.ms above the time a build "
                        + "takes", topic, (reached - current) / 1000, bound);
                offsets.credit(topic, reached);
            } else if (tooLong && live && offsets.nothingWrittenSinceCredited(topic)) {
                log.info("Topic '{}': its positions were not current for {} s, longer than its delete.retention.ms "
                        + "({} ms), but nothing was written to it meanwhile, so no delete can have been missed: "
                        + "reading on", topic, (reached - current) / 1000, bound);
                offsets.credit(topic, reached);
            } else if (tooLong && live) {
                rebuildTopic(topic, "its positions were not current for " + (reached - current) / 1000 + " s ("
                        + Instant.ofEpochMilli(current) + " to " + Instant.ofEpochMilli(reached) + "), longer than "
                        + "its delete.retention.ms (" + bound + " ms), so deletes may have been missed");
                offsets.rebuiltForGap(topic);
            } else if (!tooLong) {
                offsets.credit(topic, reached);
            } // else: a held-up build not yet live, judged once it is
        }
    }

    /** What {@code facts} say of the topic's delete.retention.ms, a day (Kafka's default) when they cannot say. */
    private void rememberRetention(String topic, TopicFacts.Facts facts) {
        long retention = facts.deleteRetentionMillis();
        deleteRetentionMillis.put(topic, retention >= 0 ? retention : ResumeDecision.DEFAULT_DELETE_RETENTION_MILLIS);
    }

    private void reachable() {
        if (!BrokerOutage.shared().reachable() && brokerProblem != null) { // else the outage says it
            log.info("Kafka at {} is reachable again", config.bootstrapServers());
        }
        brokerProblem = null;
    }

    private void publishStatuses() {
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        for (NamespaceSink sink : byTopic.all()) {
            Map<Integer, Long> lag = started ? offsets.lag(sink.binding().topic(), watch::highWatermark)
                    : new TreeMap<>();
            long currentAsOf = started ? offsets.currentAsOfMillis(sink.binding().topic()) : Positions.UNKNOWN;
            out.put(sink.binding().namespace(), sink.status(lag, notReadyReason(sink), currentAsOf));
            metrics.stuckPartitions.labelValues(sink.binding().namespace()).set(stuck.count(sink.binding().topic()));
        }
        statuses = out;
    }

    private String notReadyReason(NamespaceSink sink) {
        String topic = sink.binding().topic();
        if (brokerProblem != null) {
            return brokerUnreachable ? BrokerOutage.shared().withDuration(brokerProblem) : brokerProblem;
        }
        String topicProblem = watch.problem(topic);
        if (topicProblem != null) {
            return topicProblem;
        }
        if (pauses != null && pauses.isPaused(topic)) {
            return "paused: " + pauses.reason(topic);
        }
        String stuckWhy = stuck.reason(topic);
        if (stuckWhy != null) {
            return "stuck: " + stuckWhy;
        }
        if (!sink.isLive()) {
            return "building a fresh generation from topic '" + topic + "'; readers see the previous one, if any";
        }
        if (!started || !offsets.caughtUp(topic)) {
            Set<Integer> added = offsets == null ? null : offsets.addedNotCaughtUp(topic);
            if (added != null) {
                return "reading partition(s) " + added + " added to topic '" + topic + "' from their beginning";
            }
            return "catching up with topic '" + topic + "'";
        }
        return null;
    }

    private void closeAll() {
        // No consumer made: no namespace was started, none has a position.
        for (NamespaceSink sink : byTopic.all()) {
            try {
                if (failed) {
                    sink.abandon();
                    continue;
                }
                sink.close(positions);
            } catch (RuntimeException e) {
                log.error("Closing namespace '{}' failed", sink.binding().namespace(), e);
            }
        }
        if (!failed && started) {
            offsets.commitForTooling(true);
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
