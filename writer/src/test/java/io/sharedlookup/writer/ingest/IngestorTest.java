package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.CapturedLog;
import io.sharedlookup.writer.Http;
import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The poll loop and its recovery paths against Kafka's {@link MockConsumer}, with real namespaces in a temporary
 * store: no broker, so each path is driven exactly. The real-broker tests (WriterEndToEndTest, PartitionsAddedTest,
 * WriterCrashTest...) cover the same paths against Kafka itself.
 */
class IngestorTest {
    private static final String TOPIC = "users";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Long enough for several health checks (one every 5 s, every CHECK_MILLIS in the currency tests) when loaded. */
    private static final Duration CHECKS_WAIT = Duration.ofSeconds(60);
    /**
     * The currency tests' health check period (5 s in production: minutes of test) and retention, 3.2 periods: a gap
     * of one refused check (two periods and what the loaded machine adds) stays 1.2 periods within it, and three
     * refused checks (at least four periods: a check is never early) always exceed it.
     */
    private static final long CHECK_MILLIS = 1_500, RETENTION_MILLIS = CHECK_MILLIS * 32 / 10;

    @TempDir
    Path store;

    private final WriterMetrics metrics = new WriterMetrics();
    private PacedMockConsumer consumer = new PacedMockConsumer();
    private final List<NamespaceIngest> namespaces = new ArrayList<>();
    private Ingestor ingestor;
    private int stuckAfterSeconds = WriterConfig.DEFAULT_STUCK_AFTER_SECONDS;
    private int ingestHoldLimitSeconds = WriterConfig.DEFAULT_INGEST_HOLD_LIMIT_SECONDS;

    @AfterEach
    void stop() throws Exception {
        if (ingestor != null) {
            ingestor.stop(Duration.ofSeconds(5));
        }
    }

    private Ingestor start() throws Exception {
        return start(() -> consumer);
    }

    private Ingestor start(Supplier<Consumer<byte[], byte[]>> consumers) throws Exception {
        return start(consumers, Ingestor.AWAY);
    }

    private TopicFacts topicFacts = topics -> Map.of();
    private long leastCurrencyBoundMillis = -1;
    /** The health check's period when positive (5 s otherwise, as in production). */
    private long healthMillis = -1;

    private Ingestor start(Supplier<Consumer<byte[], byte[]>> consumers, Duration away) throws Exception {
        WriterConfig config = WriterConfig.builder("mock:9092", store)
                .topics(List.of(new TopicBinding(TOPIC, TOPIC)))
                .httpPort(0)
                .stuckAfterSeconds(stuckAfterSeconds)
                .ingestHoldLimitSeconds(ingestHoldLimitSeconds)
                .build();
        NamespaceDirectory writer = NamespaceDirectory.open(new StoreLayout(store), TOPIC, StorePermissions.DEFAULT);
        namespaces.add(new NamespaceIngest(new TopicBinding(TOPIC, TOPIC), writer, metrics, Map.of()));
        ingestor = new Ingestor(config, namespaces, metrics, consumers, topicFacts, away);
        if (leastCurrencyBoundMillis > 0) {
            ingestor.leastCurrencyBoundMillis = leastCurrencyBoundMillis;
        }
        if (healthMillis > 0) {
            ingestor.healthNanos = TimeUnit.MILLISECONDS.toNanos(healthMillis);
        }
        ingestor.start();
        return ingestor;
    }

    /** The topic has the partitions of {@code beginning}, with these log start and end offsets; then starts. */
    private void startReading(Map<TopicPartition, Long> beginning, Map<TopicPartition, Long> end) throws Exception {
        partitions(beginning.keySet());
        consumer.updateBeginningOffsets(beginning);
        consumer.updateEndOffsets(end);
        start();
    }

    private void partitions(Collection<TopicPartition> tps) {
        List<PartitionInfo> infos = new ArrayList<>();
        for (TopicPartition tp : tps) {
            infos.add(new PartitionInfo(tp.topic(), tp.partition(), null, null, null));
        }
        infos.sort(Comparator.comparingInt(PartitionInfo::partition));
        consumer.updatePartitions(TOPIC, infos);
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, String key, String value) {
        return new ConsumerRecord<>(
                tp.topic(),
                tp.partition(),
                offset,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Starts (statuses say held up after 1 s), lets one record be read, then holds the ingest thread in its next poll,
     * as a volume that does not answer would, until the returned latch opens.
     */
    private java.util.concurrent.CountDownLatch startThenHoldTheIngestThread() throws Exception {
        partitions(List.of(P0));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 1L));
        start(() -> consumer, Duration.ofSeconds(1));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        atNextPoll(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return release;
    }

    private void atNextPoll(Runnable task) {
        consumer.schedulePollTask(task);
    }

    private NamespaceStatus status() {
        return ingestor.statuses().get(TOPIC);
    }

    private String lookup(String key) {
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            return reader.lookup(TOPIC).get(key);
        }
    }

    private double rebuilds() {
        return counter("rebuilds");
    }

    private double counter(String name) {
        return Http.metric(
                new String(metrics.scrape(), StandardCharsets.UTF_8),
                "sharedlookup_writer_" + name + "_total{namespace=\"users\"}");
    }

    /**
     * Polls that keep failing (an error no partition accounts for alone) hold every position still: that is reported
     * as the error it is, never as partitions stuck on a damaged log, however long it lasts. With a health check due
     * at every failed poll (the back-off grows 0.5, 1, 2, 4 s), the checks at 1.5 and 3.5 s are 2 s apart, enough for
     * a 1 s bound to report the lagging partition stuck: 6 s covers them.
     */
    @Test
    void pollsThatKeepFailing_areReportedAsTheirErrorNotAsStuckPartitions() throws Exception {
        stuckAfterSeconds = 1;
        healthMillis = 250;
        consumer.failingEveryPoll = new KafkaException("Something the broker keeps answering");
        startReading(Map.of(P0, 0L), Map.of(P0, 5L));
        await().atMost(WAIT)
                .until(() -> String.valueOf(status().notReadyReason()).contains("keeps answering"));
        await().during(Duration.ofSeconds(6))
                .atMost(Duration.ofSeconds(12))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> !String.valueOf(status().notReadyReason()).startsWith("stuck:")
                        && Http.metric(
                                        new String(metrics.scrape(), StandardCharsets.UTF_8),
                                        "sharedlookup_writer_stuck_partitions{namespace=\"users\"}")
                                == 0);
        consumer.failingEveryPoll = null;
        atNextPoll(() -> {
            for (int i = 0; i < 5; i++) {
                consumer.addRecord(record(P0, i, "k" + i, "v" + i));
            }
        });
        await().atMost(WAIT).until(() -> status().ready());
    }

    /**
     * The ingest thread publishes the statuses: held up away from its loop, it would leave them saying "ready" for as
     * long as it is held. Past the bound they say it is held up, and where.
     */
    @Test
    void statuses_whileTheIngestThreadIsHeldUp_sayWhereAndRecoverAfter() throws Exception {
        java.util.concurrent.CountDownLatch release = startThenHoldTheIngestThread();
        try {
            await().atMost(WAIT).until(() -> !status().ready());
            assertThat(status().notReadyReason())
                    .startsWith("ingestion has not come back to its loop for ")
                    .contains("Unsafe.park, called from io.sharedlookup.writer.ingest.IngestorTest");
        } finally {
            release.countDown();
        }
        await().atMost(WAIT).until(() -> status().ready());
    }

    /**
     * Held up for good (a deadlock, a volume that never answers), ingestion needs a restart: past
     * {@code --ingest-hold-limit} it is reported as failed, which {@code /health} answers with 503. Before, {@code
     * /health} stayed 200 for as long as the thread was held, and only a human could notice and restart.
     */
    @Test
    void failure_whileTheIngestThreadIsHeldUpPastTheHoldLimit_saysWhereAndClearsWhenItComesBack() throws Exception {
        ingestHoldLimitSeconds = 3;
        java.util.concurrent.CountDownLatch release = startThenHoldTheIngestThread();
        ListAppender<ILoggingEvent> log = ingestorLog();
        try {
            // Not ready from the first bound on (1 s here); failed from the hold limit on, and not before: the hold
            // the failure names when it is first seen is at least the limit.
            await().atMost(WAIT).until(() -> !status().ready());
            await().atMost(WAIT).until(() -> ingestor.failure().isPresent());
            String failure = ingestor.failure().orElseThrow();
            assertThat(failure)
                    .startsWith("ingestion has not come back to its loop for ")
                    .contains("over --ingest-hold-limit (3 s)")
                    .contains("Unsafe.park, called from io.sharedlookup.writer.ingest.IngestorTest");
            assertThat(Long.parseLong(
                            failure.replaceFirst("^ingestion has not come back to its loop for (\\d+) s.*$", "$1")))
                    .isGreaterThanOrEqualTo(3);
            assertThat(ingestor.failure()).as("asked again").isPresent();
        } finally {
            release.countDown();
        }
        try {
            await().atMost(WAIT).until(() -> ingestor.failure().isEmpty() && status().ready());
            await().atMost(WAIT)
                    .until(() ->
                            !logged(log, "Ingestion is back in its loop after ").isEmpty());
        } finally {
            ingestorLogger().detachAppender(log);
        }
        assertThat(logged(log, ""))
                .filteredOn(e -> e.getLevel() == Level.ERROR)
                .as("one ERROR for the hold, however often asked")
                .hasSize(1);
        assertThat(logged(log, "Ingestion is back in its loop after ")).hasSize(1);
    }

    /**
     * Where nothing polls {@code /health} (no liveness probe), a hold past the limit is still logged: before, the
     * ERROR came only from a {@code /health} request, so such a writer said nothing until the thread came back.
     */
    @Test
    void aHoldPastTheLimitIsLoggedWhereNothingAsksForHealth() throws Exception {
        ingestHoldLimitSeconds = 3;
        java.util.concurrent.CountDownLatch release = startThenHoldTheIngestThread();
        ListAppender<ILoggingEvent> log = ingestorLog();
        try {
            await().atMost(WAIT)
                    .until(() -> !logged(log, "ingestion has not come back to its loop for ")
                            .isEmpty());
            assertThat(logged(log, "ingestion has not come back to its loop for "))
                    .singleElement()
                    .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR))
                    .satisfies(e -> assertThat(e.getFormattedMessage()).contains("over --ingest-hold-limit (3 s)"));
        } finally {
            release.countDown();
        }
        try {
            await().atMost(WAIT)
                    .until(() ->
                            !logged(log, "Ingestion is back in its loop after ").isEmpty());
        } finally {
            ingestorLogger().detachAppender(log);
        }
    }

    /** {@code --ingest-hold-limit 0}: a held thread is left to a human, however long it is held. */
    @Test
    void aHoldLimitOfZeroNeverFailsTheWriter() throws Exception {
        ingestHoldLimitSeconds = 0;
        java.util.concurrent.CountDownLatch release = startThenHoldTheIngestThread();
        try {
            await().atMost(WAIT).until(() -> !status().ready()); // held past the 1 s bound of these tests
            assertThat(ingestor.failure()).isEmpty();
        } finally {
            release.countDown();
        }
        await().atMost(WAIT).until(() -> status().ready());
    }

    /** What the ingestor logs from now on, until {@code ingestorLogger().detachAppender} is called with it. */
    private static ListAppender<ILoggingEvent> ingestorLog() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        ingestorLogger().addAppender(log);
        return log;
    }

    private static Logger ingestorLogger() {
        return (Logger) LoggerFactory.getLogger(Ingestor.class);
    }

    /** The hold watch's threads alive in this JVM. */
    private static Set<Thread> watchThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("shared-lookup-ingest-watch") && t.isAlive())
                .collect(Collectors.toSet());
    }

    /** The events {@code log} holds whose message starts with {@code prefix}; read under the appender's own lock. */
    private static List<ILoggingEvent> logged(ListAppender<ILoggingEvent> log, String prefix) {
        synchronized (log) {
            return log.list.stream()
                    .filter(e -> e.getFormattedMessage().startsWith(prefix))
                    .toList();
        }
    }

    @Test
    void pollLoop_recordsOfEveryPartition_reachReadersOnceCaughtUpAndTheStopIsClean() throws Exception {
        Set<Thread> othersWatches = watchThreads(); // left by other tests' writers, if any
        startReading(Map.of(P0, 0L, P1, 0L), Map.of(P0, 4L, P1, 2L));
        atNextPoll(() -> {
            consumer.addRecord(record(P0, 0, "1", "Alice"));
            consumer.addRecord(record(P0, 1, "2", "Bob"));
            consumer.addRecord(record(P0, 2, "1", null)); // tombstone
            consumer.addRecord(record(P0, 3, null, "no key")); // skipped and counted
            consumer.addRecord(
                    new ConsumerRecord<>(TOPIC, 1, 0, "3".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC3
                    })); // not UTF-8: skipped and counted
            consumer.addRecord(record(P1, 1, "4", "Dana"));
        });

        await().atMost(WAIT).until(() -> status().ready());
        assertThat(status().state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(status().entries()).isEqualTo(2);
        assertThat(lookup("2")).isEqualTo("Bob");
        assertThat(lookup("4")).isEqualTo("Dana");
        assertThat(lookup("1")).isNull();
        assertThat(lookup("3")).isNull();

        assertThat(othersWatches.containsAll(watchThreads()))
                .as("this ingestor's hold watch runs")
                .isFalse();
        ingestor.stop(Duration.ofSeconds(5));
        assertThat(consumer.closed()).isTrue();
        await().atMost(WAIT).until(() -> othersWatches.containsAll(watchThreads())); // it ends with the ingestor
        try (NamespaceDirectory after =
                NamespaceDirectory.open(new StoreLayout(store), TOPIC, StorePermissions.DEFAULT)) {
            assertThat(after.canResume()).isTrue();
            assertThat(after.published().orElseThrow().offsets()).isEqualTo(Map.of(0, 4L, 1, 2L));
        }
    }

    /** A liveness probe must see a writer whose ingest thread died: {@code /health} reports this failure. */
    @Test
    void anIngestThreadThatDies_reportsItsFailure() throws Exception {
        startReading(Map.of(P0, 0L), Map.of(P0, 1L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());
        assertThat(ingestor.failure()).isEmpty();

        atNextPoll(() -> {
            throw new IllegalStateException("a defect in the ingest thread");
        });
        await().atMost(WAIT).until(() -> ingestor.failure().isPresent());
        assertThat(ingestor.failure().orElseThrow())
                .contains("ingestion failed")
                .contains("a defect in the ingest thread");
        assertThat(lookup("1")).as("readers keep what was published").isEqualTo("Alice");
    }

    @Test
    void startAll_topicMissingAtFirst_retriesUntilItExists() throws Exception {
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 1L));
        start();
        await().atMost(WAIT)
                .until(() ->
                        String.valueOf(status().notReadyReason()).equals("topic 'users' does not exist on mock:9092"));

        partitions(List.of(P0));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());
        assertThat(lookup("1")).isEqualTo("Alice");
    }

    /**
     * During an outage (declared by Kafka's client or a timeout), a problem that is not one is told as it is, without
     * how long Kafka has been unreachable; and the start that then succeeds ends the outage, as Kafka answered it.
     */
    @Test
    void startAll_duringAnOutage_aMissingTopicIsToldAsItIs_andTheStartEndsTheOutage() throws Exception {
        BrokerOutage.shared().failed("the test's broker did not answer");
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 1L));
        start();
        await().atMost(WAIT)
                .until(() -> String.valueOf(status().notReadyReason()).startsWith("topic"));
        assertThat(status().notReadyReason()).isEqualTo("topic 'users' does not exist on mock:9092");

        Thread.sleep(2_100); // no condition to await: an outage ends only 2 s after its last failure (BrokerOutage)
        partitions(List.of(P0));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready()); // the health check, which also ends it, is 5 s away
        assertThat(BrokerOutage.shared().withDuration("a problem"))
                .as("the outage ended")
                .isEqualTo("a problem");
    }

    /** Kafka not answering the poll is an outage: /ready says how long it has lasted. */
    @Test
    void pollsTimingOut_areToldWithHowLongKafkaHasBeenUnreachable() throws Exception {
        consumer.failingEveryPoll = new org.apache.kafka.common.errors.TimeoutException("no answer in 1 s");
        startReading(Map.of(P0, 0L), Map.of(P0, 0L));
        await().atMost(WAIT)
                .until(() -> String.valueOf(status().notReadyReason())
                        .matches("Kafka at mock:9092 did not answer: no answer in 1 s \\(unreachable for \\d+ s\\)"));
        consumer.failingEveryPoll = null;
    }

    /** Kafka's client builds no consumer before a bootstrap host resolves: asked again, as a broker not answering. */
    @Test
    void startAll_bootstrapHostsNotResolvingYet_saysSoWarnsOnceAndRetriesUntilTheyDo() throws Exception {
        partitions(List.of(P0));
        consumer.updateBeginningOffsets(Map.of(P0, 0L));
        consumer.updateEndOffsets(Map.of(P0, 1L));
        AtomicInteger attempts = new AtomicInteger();
        AtomicBoolean resolves = new AtomicBoolean();
        ListAppender<ILoggingEvent> log = ingestorLog();
        try {
            start(() -> {
                attempts.incrementAndGet();
                if (!resolves.get()) {
                    throw new UnresolvedBootstrapException("mock:9092");
                }
                return consumer;
            });
            await().atMost(WAIT).until(() -> attempts.get() >= 3);
            assertThat(status().notReadyReason())
                    .isEqualTo("Kafka bootstrap host(s) mock:9092 do not resolve (yet); retrying");

            resolves.set(true);
            atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
            await().atMost(WAIT).until(() -> status().ready());
            assertThat(lookup("1")).isEqualTo("Alice");
        } finally {
            ingestorLogger().detachAppender(log);
        }
        assertThat(log.list)
                .filteredOn(e -> e.getFormattedMessage().contains("do not resolve"))
                .singleElement()
                .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage)
                .isEqualTo("Kafka bootstrap host(s) mock:9092 do not "
                        + "resolve (yet); serving the last published store and retrying");
    }

    @Test
    void poll_positionNoLongerOnTheBroker_rebuildsTheNamespaceFromTheNewBeginning() throws Exception {
        startReading(Map.of(P0, 0L), Map.of(P0, 2L));
        atNextPoll(() -> {
            consumer.addRecord(record(P0, 0, "1", "Alice"));
            consumer.addRecord(record(P0, 1, "2", "Bob"));
        });
        await().atMost(WAIT).until(() -> status().ready());
        assertThat(rebuilds()).isEqualTo(1);

        // Truncated past the writer's position (or recreated): the next poll fails with OffsetOutOfRangeException.
        atNextPoll(() -> {
            consumer.updateBeginningOffsets(Map.of(P0, 10L));
            consumer.updateEndOffsets(Map.of(P0, 12L));
            consumer.addRecord(record(P0, 10, "1", "Alicia"));
            consumer.addRecord(record(P0, 11, "9", "Zoe"));
        });

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(rebuilds()).isEqualTo(2);
            assertThat(status().ready()).isTrue();
            assertThat(lookup("9")).isEqualTo("Zoe");
        });
        assertThat(lookup("1")).isEqualTo("Alicia");
        assertThat(lookup("2")).isNull(); // only in the records the broker no longer has
        assertThat(consumer.position(P0)).isEqualTo(12);
    }

    /**
     * A topic recreated with more partitions spreads its keys anew: after the rebuild a key read from another
     * partition than before is no producer's fault, so it is not counted as a key on two partitions. A key that then
     * moves again is.
     */
    @Test
    void rebuild_ofATopicRecreatedWithMorePartitions_forgetsWhichPartitionEachKeyCameFrom() throws Exception {
        startReading(Map.of(P0, 0L), Map.of(P0, 1L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());

        // Recreated with two partitions: the next poll finds the position gone and rebuilds from the new topic.
        atNextPoll(() -> {
            partitions(List.of(P0, P1));
            consumer.updateBeginningOffsets(Map.of(P0, 10L, P1, 0L));
            consumer.updateEndOffsets(Map.of(P0, 11L, P1, 1L));
            consumer.addRecord(record(P0, 10, "2", "Bob")); // MockConsumer finds a position gone only with records
        });
        await().atMost(WAIT)
                .until(() -> rebuilds() == 2 && consumer.assignment().contains(P1));
        atNextPoll(() -> consumer.addRecord(record(P1, 0, "1", "Alicia")));
        await().atMost(WAIT).until(() -> "Alicia".equals(lookup("1")) && status().ready());
        assertThat(counter("keys_on_several_partitions"))
                .as("key 1 on P0 of the old topic, P1 of the new")
                .isZero();

        atNextPoll(() -> {
            consumer.updateEndOffsets(Map.of(P0, 12L, P1, 1L));
            consumer.addRecord(record(P0, 11, "1", "Alison"));
        });
        await().atMost(WAIT).until(() -> "Alison".equals(lookup("1")));
        assertThat(counter("keys_on_several_partitions"))
                .as("then on P0 of the same topic")
                .isEqualTo(1);
    }

    @Test
    void poll_brokerDoesNotAnswer_backsOffSaysSoAndCarriesOn() throws Exception {
        healthMillis = 500; // the health check clears the outage: 5 s in production
        startReading(Map.of(P0, 0L), Map.of(P0, 1L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());

        consumer.setPollException(new TimeoutException("no answer in time"));
        await().atMost(WAIT)
                .until(() -> String.valueOf(status().notReadyReason())
                        .startsWith("Kafka at mock:9092 did not answer: no answer in time"));
        atNextPoll(() -> consumer.addRecord(record(P0, 1, "2", "Bob")));

        // The loop polls again after its backoff; the next health check finds the broker answering again.
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(status().ready()).isTrue();
            assertThat(lookup("2")).isEqualTo("Bob");
        });
        assertThat(rebuilds())
                .as("seconds away: well within the topic's delete.retention.ms")
                .isEqualTo(1);
    }

    /**
     * A resumed topic is current (updated.at) only once it reaches the log's end again: stopped before that, it keeps
     * the time it had, so that the next start measures the offsets' true age against delete.retention.ms. (A stop
     * used to stamp the stop's time on offsets of any age.)
     */
    @Test
    void stop_beforeAResumedTopicCaughtUp_keepsHowCurrentItsOffsetsWere() throws Exception {
        startReading(Map.of(P0, 0L), Map.of(P0, 1L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());
        ingestor.stop(Duration.ofSeconds(5));
        Manifest first = Manifest.read(new StoreLayout(store).manifest(TOPIC));
        assertThat(first.writerState()).isEqualTo(Manifest.WriterState.CLOSED);
        assertThat(first.offsets()).isEqualTo(Map.of(0, 1L));

        // Records came meanwhile; the restarted writer resumes, and stops before it has read them.
        consumer = new PacedMockConsumer();
        namespaces.clear();
        startReading(Map.of(P0, 0L), Map.of(P0, 5L));
        await().atMost(WAIT)
                .until(() ->
                        Manifest.read(new StoreLayout(store).manifest(TOPIC)).writerState()
                                == Manifest.WriterState.OPEN);
        ingestor.stop(Duration.ofSeconds(5));
        ingestor = null;
        Manifest second = Manifest.read(new StoreLayout(store).manifest(TOPIC));
        assertThat(second.writerState()).isEqualTo(Manifest.WriterState.CLOSED);
        assertThat(second.offsets()).isEqualTo(Map.of(0, 1L));
        assertThat(second.updatedAtMillis()).as("how current the offsets are").isEqualTo(first.updatedAtMillis());
    }

    /**
     * Deletes compacted away while the writer could not reach the broker would never be read by reading on from its
     * positions: back after longer than the topic's delete.retention.ms, it rebuilds, as a start after so long a stop
     * does — unless nothing was written to the topic meanwhile. Here the retention, and the least bound, are 4.8 s,
     * with a health check every 1.5 s: one refused check (about 3 s from one answer to the next) stays within it,
     * three refused checks (at least 6 s) do not.
     */
    @Test
    void healthCheck_positionsNotCurrentForLongerThanTheDeleteRetention_rebuildsUnlessNothingWasWritten()
            throws Exception {
        currencyTest();
        startReading(Map.of(P0, 0L), Map.of(P0, 1L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());
        awaitHealthChecksAnswered(2);
        assertThat(rebuilds())
                .as("health checks 1.5 s apart: current all along")
                .isEqualTo(1);

        writtenWhileTheBrokerIsAway(1, "2", "Bob");
        brokerSilentFor(1);
        awaitHealthChecksAnswered(2);
        assertThat(rebuilds())
                .as("one refused check: away for less than the retention")
                .isEqualTo(1);

        brokerSilentFor(3);
        awaitHealthChecksAnswered(2);
        assertThat(rebuilds())
                .as("away for longer, but nothing was written meanwhile")
                .isEqualTo(1);

        writtenWhileTheBrokerIsAway(2, "3", "Cleo");
        brokerSilentFor(3);
        await().atMost(WAIT).until(() -> rebuilds() == 2);
        // the rebuild reads the topic from its beginning again (a MockConsumer hands out only records added since)
        atNextPoll(() -> {
            consumer.addRecord(record(P0, 0, "1", "Alice"));
            consumer.addRecord(record(P0, 1, "2", "Bob"));
            consumer.addRecord(record(P0, 2, "3", "Cleo"));
        });
        await().atMost(WAIT).until(() -> status().ready());
        awaitHealthChecksAnswered(3);
        assertThat(rebuilds()).as("once").isEqualTo(2);
        assertThat(lookup("1")).isEqualTo("Alice");
        assertThat(lookup("3")).isEqualTo("Cleo");
    }

    /**
     * A build from the topic's beginning that takes longer than its delete.retention.ms ends current as of when it
     * began: a rebuild for that gap would take as long again, and so on for ever. It is credited (and said in a
     * WARN), not rebuilt. Here the build's last record comes over 6.75 s (4.5 health checks) after the build began.
     */
    @Test
    void healthCheck_aBuildSlowerThanTheDeleteRetention_isNotRebuiltOverAndOver() throws Exception {
        currencyTest();
        try (CapturedLog log = CapturedLog.of(Ingestor.class)) {
            slowBuild(false);
            awaitHealthChecksAnswered(3);
            assertThat(rebuilds()).as("the build alone").isEqualTo(1);
            assertThat(log.warnings()).anySatisfy(w -> assertThat(w).contains("reading it from its beginning took"));
            assertThat(lookup("2")).isEqualTo("Bob");
        }
    }

    /**
     * A build held up by the broker's absence may have missed deletes that a build without the hold-up would not:
     * once it is live and longer than the retention behind, it is rebuilt, once.
     */
    @Test
    void healthCheck_aBuildHeldUpByAnOutageAndSlowerThanTheDeleteRetention_isRebuiltOnce() throws Exception {
        currencyTest();
        slowBuild(true);
        await().atMost(WAIT).until(() -> rebuilds() == 2);
        atNextPoll(
                () -> { // read again from the beginning, without a hold-up
                    consumer.addRecord(record(P0, 0, "1", "Alice"));
                    consumer.addRecord(record(P0, 1, "2", "Bob"));
                });
        await().atMost(WAIT).until(() -> status().ready());
        awaitHealthChecksAnswered(3);
        assertThat(rebuilds()).as("once").isEqualTo(2);
        assertThat(lookup("2")).isEqualTo("Bob");
    }

    /**
     * Starts a build of two records whose last comes over 4.5 health checks (6.75 s) after the build began (with one
     * health check refused meanwhile when {@code outage}), and waits until it is published.
     */
    private void slowBuild(boolean outage) throws Exception {
        long began = System.nanoTime();
        startReading(Map.of(P0, 0L), Map.of(P0, 2L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        if (outage) {
            // under way first: a refusal of the start's own request would only make the start try again
            await().atMost(WAIT).until(() -> consumer.endOffsetsAnswered.get() >= 1);
            brokerSilentFor(1);
        }
        // 4.5 health check periods, in ns: 1.3 periods over the retention, for the start's own delay under load
        long over = 45 * CHECK_MILLIS * 100_000L;
        await().atMost(CHECKS_WAIT).until(() -> System.nanoTime() - began > over);
        assertThat(status().ready()).as("still building").isFalse();
        atNextPoll(() -> consumer.addRecord(record(P0, 1, "2", "Bob")));
        // published; a rebuild that follows at once may end "ready" before it is seen
        await().atMost(WAIT).until(() -> status().ready() || rebuilds() > 1);
    }

    /** A topic whose delete.retention.ms, and the least bound, are RETENTION_MILLIS; a health check every CHECK_MILLIS. */
    private void currencyTest() {
        topicFacts = topics -> Map.of(TOPIC, new TopicFacts.Facts(RETENTION_MILLIS, "topic-id"));
        leastCurrencyBoundMillis = RETENTION_MILLIS;
        healthMillis = CHECK_MILLIS;
    }

    /** The record at {@code offset} is written while the broker does not answer health checks (see brokerSilentFor). */
    private void writtenWhileTheBrokerIsAway(long offset, String key, String value) {
        consumer.silent = true;
        consumer.updateEndOffsets(Map.of(P0, offset + 1));
        atNextPoll(() -> consumer.addRecord(record(P0, offset, key, value)));
    }

    /** Waits until {@code count} more health checks have had their answer. */
    private void awaitHealthChecksAnswered(int count) {
        int answered = consumer.endOffsetsAnswered.get();
        await().atMost(CHECKS_WAIT).until(() -> consumer.endOffsetsAnswered.get() >= answered + count);
    }

    /** The broker leaves {@code count} health checks unanswered, then answers again. */
    private void brokerSilentFor(int count) {
        int refused = consumer.endOffsetsRefused.get();
        consumer.silent = true;
        await().atMost(CHECKS_WAIT).until(() -> consumer.endOffsetsRefused.get() >= refused + count);
        consumer.silent = false;
    }

    @Test
    void afterBatch_namespaceCannotTakeRecords_pausesItsTopicAndSaysWhy() throws Exception {
        startReading(Map.of(P0, 0L, P1, 0L), Map.of(P0, 1L, P1, 0L));
        atNextPoll(() -> {
            // The namespace directory vanishes (as good as a file system refusing new files): no generation.
            TempTrees.delete(new StoreLayout(store).namespaceDir(TOPIC));
            consumer.addRecord(record(P0, 0, "1", "Alice"));
        });

        await().atMost(WAIT).until(() -> consumer.paused().containsAll(List.of(P0, P1)));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(status().state()).isEqualTo(NamespaceStatus.State.STALLED);
            assertThat(status().lastError()).contains("cannot create a generation");
            assertThat(status().notReadyReason()).startsWith("paused: ");
        });
    }

    /**
     * A partition whose next record cannot be read for a reason other than damage (a codec the JVM cannot load):
     * nothing is skipped; its topic is paused, so the one consumer's other topics flow on, and read again later.
     */
    @Test
    void poll_aPartitionUnreadableForAnotherReason_pausesItsTopicAndSkipsNothing() throws Exception {
        startReading(Map.of(P0, 0L, P1, 0L), Map.of(P0, 1L, P1, 0L));
        atNextPoll(() -> consumer.addRecord(record(P0, 0, "1", "Alice")));
        await().atMost(WAIT).until(() -> status().ready());

        consumer.setPollException(new KafkaException(
                "Received exception when fetching the next record from users-1. "
                        + "If needed, please seek past the record to continue consumption.",
                new KafkaException("Unable to decompress: zstd-jni could not be loaded")));
        await().atMost(WAIT).until(() -> consumer.paused().containsAll(List.of(P0, P1)));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(status().ready()).isFalse();
            assertThat(status().notReadyReason())
                    .isEqualTo("paused: cannot read partition 1 at offset 0: Unable to "
                            + "decompress: zstd-jni could not be loaded");
        });
        assertThat(consumer.position(P1)).as("nothing skipped").isZero();
        assertThat(Http.metric(
                        new String(metrics.scrape(), StandardCharsets.UTF_8),
                        "sharedlookup_writer_corrupt_records_total{namespace=\"users\"}"))
                .isZero();
    }

    /**
     * A start on a full volume after a clean stop resumes the published generation, but cannot rewrite its manifest
     * to say open; the first change must wait until it can (a kill after the change would otherwise find "closed"
     * over a changed file, and the next start would resume it). The topic stalls visibly, readers keep exactly what
     * was published, and once there is room the record and the one after it arrive without a restart.
     */
    @Test
    void aResumedGenerationWhoseManifestCannotBeMarkedOpenStallsVisiblyAndRecovers() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        // What a writer that applied offsets 0 and 1 and stopped cleanly leaves.
        Map<Integer, Long> upTo2 = Map.of(0, 2L);
        NamespaceIngest earlier = new NamespaceIngest(
                new TopicBinding(TOPIC, TOPIC),
                NamespaceDirectory.open(layout, TOPIC, StorePermissions.DEFAULT),
                new WriterMetrics(),
                Map.of());
        earlier.start(Map.of(0, 0L), upTo2, -1, null);
        earlier.apply("1", "Alice", topic -> upTo2);
        earlier.apply("2", "Bob", topic -> upTo2);
        earlier.afterBatch(true, topic -> upTo2);
        earlier.close(topic -> upTo2);
        Manifest published = Manifest.read(layout.manifest(TOPIC));
        assertThat(published.writerState()).isEqualTo(Manifest.WriterState.CLOSED);

        List<ConsumerRecord<byte[], byte[]>> next = List.of(record(P0, 2, "3", "Carol"), record(P0, 3, "1", "Alicia"));
        AtomicBoolean stillFull = new AtomicBoolean(true);
        // No file may grow past 16 bytes (as on a full disk): no manifest can be written.
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(16)) {
            startReading(Map.of(P0, 0L), Map.of(P0, 4L));
            // As a broker would, the records are there at every read, so every retry after a pause stalls again
            // (Kafka's MockConsumer hands out each record it is given once only).
            atNextPoll(new Runnable() {
                @Override
                public void run() {
                    next.forEach(consumer::addRecord);
                    if (stillFull.get()) {
                        atNextPoll(this);
                    }
                }
            });
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(counter("stalls")).isGreaterThanOrEqualTo(1);
                assertThat(status().state()).isEqualTo(NamespaceStatus.State.STALLED);
                assertThat(status().notReadyReason())
                        .startsWith("paused: cannot mark the manifest open before " + "changing the resumed generation")
                        .contains("free disk space");
            });
            assertThat(counter("resumes")).as("resumed, not rebuilt").isEqualTo(1);
            assertThat(counter("rebuilds")).isZero();
            // The stall's message, not the checkpoint's, which cannot write the manifest either (every 250 ms): the
            // stall's says what to do.
            assertThat(status().lastError())
                    .startsWith("cannot mark the manifest open before changing the resumed " + "generation")
                    .contains("free disk space");
            assertThat(TestStores.contents(store, TOPIC))
                    .as("readers keep what was published")
                    .isEqualTo(Map.of("1", "Alice", "2", "Bob"));
            assertThat(Manifest.read(layout.manifest(TOPIC)))
                    .as("still closed over an unchanged file")
                    .isEqualTo(published);
        }

        // Room again. The records are given once more, for the read that follows the last pause.
        stillFull.set(false);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(status().ready()).isTrue();
            assertThat(TestStores.contents(store, TOPIC)).isEqualTo(Map.of("1", "Alicia", "2", "Bob", "3", "Carol"));
        });
        NamespaceStatus recovered = status();
        assertThat(recovered.state()).isEqualTo(NamespaceStatus.State.LIVE);
        assertThat(recovered.lastError()).isNull();
        assertThat(recovered.generation()).as("still the resumed generation").isEqualTo(published.generation());
        double stallsAtRecovery = counter("stalls");
        await().atMost(WAIT).untilAsserted(() -> {
            Manifest now = Manifest.read(layout.manifest(TOPIC));
            assertThat(now.writerState()).isEqualTo(Manifest.WriterState.OPEN);
            assertThat(now.offsets()).isEqualTo(Map.of(0, 4L));
        });
        assertThat(counter("stalls")).as("no stall after the recovery").isEqualTo(stallsAtRecovery);
    }
}
