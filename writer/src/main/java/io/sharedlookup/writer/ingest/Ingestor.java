package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.WriterConfig;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceSink;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.Positions;
import io.sharedlookup.writer.namespace.RebuildNeededException;
import io.sharedlookup.writer.namespace.RecordSkippedException;
import io.sharedlookup.writer.namespace.StalledException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one consumer of all configured topics and the thread that owns every {@link NamespaceSink}: assigns all
 * partitions (no consumer group), decodes and applies records, tracks catching up against the end offsets captured
 * at start, checkpoints, watches the broker and publishes status snapshots for HTTP.
 *
 * <p>Partitions added to a topic while the writer runs are followed: the consumer refreshes its metadata every
 * {@value #METADATA_MAX_AGE_MS} ms (unless {@code metadata.max.age.ms} is set), the ingest thread compares each
 * topic's partitions with that cached metadata every {@value #PARTITION_CHECK_MILLIS} ms (no request to the broker,
 * so the poll loop is not slowed), and a new partition is assigned from its beginning. Until it has reached the end
 * offset it had when it was noticed, its namespace is not ready and its manifest says not caught up.
 */
public final class Ingestor {
    private static final Logger log = LoggerFactory.getLogger(Ingestor.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final long CHECKPOINT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long HEALTH_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How often the consumer refreshes topic metadata, so that partitions added to a topic are noticed. */
    static final int METADATA_MAX_AGE_MS = 5_000;
    /** How often the partitions in the consumer's cached metadata are compared with the assigned ones. */
    static final long PARTITION_CHECK_MILLIS = 1_000;
    private static final long MAX_BACKOFF_MILLIS = 10_000;

    private final WriterConfig config;
    private final Map<String, NamespaceSink> byTopic = new LinkedHashMap<>();
    private final WriterMetrics metrics;
    private final RecordDecoder decoder;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final RateLimitedLog badRecords = new RateLimitedLog(log, 5_000);
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean stopping;
    private boolean failed;
    private volatile Map<String, NamespaceStatus> statuses = Map.of();
    private volatile String brokerProblem = "not connected to Kafka yet";

    // Owned by the ingest thread.
    private boolean started;
    private final Map<String, List<TopicPartition>> partitions = new HashMap<>();
    private final Map<TopicPartition, Long> beginAtStart = new HashMap<>();
    private final Map<TopicPartition, Long> endAtStart = new HashMap<>();
    private final Map<TopicPartition, Long> latestEnd = new HashMap<>();
    private final Set<String> caughtUpTopics = new HashSet<>();
    /** Topics paused because their namespace could not take a record, and until when ({@link System#nanoTime}). */
    private final Map<String, Long> pausedUntil = new HashMap<>();
    /** The last reason each topic was paused for, so that the same stall again is not an ERROR each time. */
    private final Map<String, String> lastStall = new HashMap<>();
    private final RateLimitedLog repeatedStalls = new RateLimitedLog(log, 60_000);
    private final Map<String, Long> appliedSinceStart = new HashMap<>();
    /**
     * Per partition, the next offset not yet applied: what offsets stored with a generation must say. Tracked here
     * rather than asked of the consumer, whose position runs ahead by the part of a batch not applied yet (a stop or
     * a growth can come mid-batch).
     */
    private final Map<TopicPartition, Long> applied = new HashMap<>();
    private long startNanos;
    private long lastCheckpoint;
    private long lastHealth;
    private long lastProgress;
    private long lastPartitionCheck;
    /** Per topic, partitions added while running that have not reached the end offset they had when noticed. */
    private final Map<String, Set<Integer>> addedNotCaughtUp = new HashMap<>();
    private long backoffMillis = 500;

    public Ingestor(WriterConfig config, List<NamespaceSink> sinks, WriterMetrics metrics) {
        this.config = config;
        this.metrics = metrics;
        this.decoder = new RecordDecoder(config.valueField());
        sinks.forEach(s -> byTopic.put(s.binding().topic(), s));
        this.consumer = new KafkaConsumer<>(consumerProperties(config));
        this.thread = new Thread(this::run, "shared-lookup-ingest");
        publishStatuses();
    }

    public static Properties consumerProperties(WriterConfig config) {
        Properties p = new Properties();
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "shared-lookup-writer");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Never create a mistyped topic by reading it.
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
        // Every position is set explicitly (resume or beginning). A position the broker no longer has must not be
        // reset silently: "earliest" would replay a recreated topic over stale keys, or skip deletes after
        // truncation. With "none" the poll fails with OffsetOutOfRangeException and the namespace is rebuilt.
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "10000");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        // The sidecar heap is 64 MB: Kafka's default 50 MB fetch would not fit. 8 MB still keeps up with 10k+/s.
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(8 << 20));
        // Kafka's default (5 min) would leave partitions added to a topic unread that long; one metadata request
        // every 5 s is negligible. The refresh happens inside poll(), without blocking it.
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, Integer.toString(METADATA_MAX_AGE_MS));
        p.putAll(config.kafkaProperties());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        // Decoding is ours, so that a bad record is counted and skipped instead of failing the poll.
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    public void start() {
        thread.start();
    }

    /** Stops polling, closes every namespace cleanly and waits for that, at most {@code timeout}. */
    public void stop(Duration timeout) throws InterruptedException {
        stopping = true;
        stopSignal.countDown();
        consumer.wakeup();
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            log.warn("The ingest thread did not stop within {}; namespaces it still holds will be rebuilt next start",
                    timeout);
        }
    }

    public Map<String, NamespaceStatus> statuses() {
        return statuses;
    }

    private void run() {
        try {
            while (!stopping) {
                try {
                    if (!started) {
                        startAll();
                        continue;
                    }
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                    applyBatch(records);
                    Positions positions = this::positionsOf;
                    for (NamespaceSink sink : byTopic.values()) {
                        try {
                            sink.afterBatch(caughtUp(sink.binding().topic()), positions);
                        } catch (StalledException e) {
                            stall(sink.binding().topic(), e.getMessage(), e.retryMillis());
                        }
                    }
                    periodic();
                    backoffMillis = 500;
                } catch (InvalidOffsetException e) {
                    try {
                        rebuildOutOfRange(e.partitions());
                    } catch (KafkaException again) {
                        // Positions unchanged: the next poll reports the same partitions and this is retried.
                        brokerProblem = "cannot rebuild after offsets went out of range: " + again;
                        log.warn("{}; retrying in {} ms", brokerProblem, backoffMillis);
                        publishStatuses();
                        backoff();
                    }
                } catch (WakeupException e) {
                    // stop() woke us up; the loop condition ends it
                } catch (TimeoutException e) {
                    brokerProblem = "Kafka at " + config.bootstrapServers() + " did not answer: " + e.getMessage();
                    log.warn("{}; retrying in {} ms", brokerProblem, backoffMillis);
                    publishStatuses();
                    backoff();
                } catch (KafkaException e) {
                    brokerProblem = "Kafka error: " + e;
                    log.warn("{}; retrying in {} ms", brokerProblem, backoffMillis, e);
                    publishStatuses();
                    backoff();
                }
            }
        } catch (RuntimeException | Error e) {
            // Possibly mid-update (for example Chronicle's own exit hook closed a map under us during shutdown):
            // the files must not be marked cleanly closed, so the next start rebuilds instead of resuming.
            failed = true;
            log.error("The ingest thread failed; stopping ingestion (the store keeps serving what was published; "
                    + "the next start rebuilds)", e);
            brokerProblem = "ingestion failed: " + e;
            publishStatuses();
        } finally {
            closeAll();
        }
    }

    private void backoff() {
        try {
            stopSignal.await(backoffMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
        backoffMillis = Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
    }

    /** Discovers partitions and offsets, then lets every namespace choose between resume and rebuild. */
    private void startAll() {
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : byTopic.keySet()) {
            List<TopicPartition> tps = partitionsOf(topic);
            if (tps.isEmpty()) {
                brokerProblem = "topic '" + topic + "' does not exist on " + config.bootstrapServers();
                log.warn("{}; retrying in {} ms", brokerProblem, backoffMillis);
                publishStatuses();
                backoff();
                return;
            }
            partitions.put(topic, tps);
            all.addAll(tps);
        }
        consumer.assign(all);
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(all, Duration.ofSeconds(10));
        Map<TopicPartition, Long> end = consumer.endOffsets(all, Duration.ofSeconds(10));
        Map<String, Long> retention = deleteRetention();
        for (Map.Entry<String, NamespaceSink> e : byTopic.entrySet()) {
            String topic = e.getKey();
            Map<Integer, Long> from = e.getValue().start(byPartition(begin, topic), byPartition(end, topic),
                    retention.getOrDefault(topic, -1L));
            for (TopicPartition tp : partitions.get(topic)) {
                long offset = from.getOrDefault(tp.partition(), begin.get(tp));
                consumer.seek(tp, offset);
                applied.put(tp, offset);
            }
        }
        beginAtStart.putAll(begin);
        endAtStart.putAll(end);
        latestEnd.putAll(end);
        startNanos = System.nanoTime();
        lastProgress = startNanos;
        lastHealth = startNanos;
        lastPartitionCheck = startNanos;
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
        for (String topic : topics) {
            List<TopicPartition> tps = partitionsOf(topic);
            if (tps.isEmpty()) {
                throw new UnknownTopicOrPartitionException("topic '" + topic + "' has no partitions now");
            }
            partitions.put(topic, tps);
        }
        // assign() keeps the positions of partitions that stay assigned: only these topics move.
        consumer.assign(allPartitions());
        for (String topic : topics) {
            StringBuilder why = new StringBuilder("the broker no longer has the position of partition(s)");
            outOfRange.forEach(tp -> {
                if (tp.topic().equals(topic)) {
                    why.append(' ').append(tp.partition()).append(" (at ").append(applied.get(tp)).append(')');
                }
            });
            why.append(": was the topic truncated or recreated?");
            rebuildTopic(topic, why.toString(), partitions.get(topic));
        }
    }

    /**
     * Rebuilds a topic's namespace from the beginning of {@code tps} (all its partitions), as at a start without
     * anything to resume: caught up again once the end offsets of now are reached.
     */
    private void rebuildTopic(String topic, String why, List<TopicPartition> tps) {
        Map<TopicPartition, Long> begin = consumer.beginningOffsets(tps, Duration.ofSeconds(10));
        Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(10));
        log.warn("Topic '{}': {}; rebuilding its namespace from the beginning (log now {} to {})", topic, why,
                byPartition(begin, topic), byPartition(end, topic));
        applied.keySet().removeIf(tp -> tp.topic().equals(topic));
        byTopic.get(topic).rebuild(why, byPartition(begin, topic), byPartition(end, topic));
        readFromBeginning(begin, end);
        caughtUpTopics.remove(topic);
        addedNotCaughtUp.remove(topic);
        if (pausedUntil.remove(topic) != null) {
            consumer.resume(tps);
        }
        publishStatuses();
    }

    /**
     * Seeks each partition of {@code begin} to its offset there and records the offsets against which it is caught
     * up again ({@code end}): for a rebuilt topic and for partitions added to a topic.
     */
    private void readFromBeginning(Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end) {
        begin.forEach((tp, offset) -> {
            consumer.seek(tp, offset);
            applied.put(tp, offset);
        });
        beginAtStart.putAll(begin);
        endAtStart.putAll(end);
        latestEnd.putAll(end);
    }

    /** The topic's partitions as the broker lists them now; empty when it does not know the topic. */
    private List<TopicPartition> partitionsOf(String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
        return infos == null ? List.of() : infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
    }

    /**
     * Assigns partitions that appeared in the consumer's metadata since they were last compared, each from its
     * beginning: records produced to a topic's new partitions must reach readers like any others. Reads only cached
     * metadata (refreshed by poll every {@value #METADATA_MAX_AGE_MS} ms); asks the broker for offsets only when a
     * partition was added. A topic missing from the metadata (deleted, or being recreated) is left to the
     * out-of-range handling.
     */
    private void followPartitionChanges() {
        Map<String, List<TopicPartition>> added = new LinkedHashMap<>();
        for (String topic : byTopic.keySet()) {
            List<PartitionInfo> infos;
            try {
                // Answered from the cached metadata when it has the topic; Duration.ZERO never waits otherwise.
                infos = consumer.partitionsFor(topic, Duration.ZERO);
            } catch (TimeoutException | UnknownTopicOrPartitionException e) {
                continue;
            }
            if (infos == null) {
                continue;
            }
            Set<TopicPartition> known = new HashSet<>(partitions.getOrDefault(topic, List.of()));
            List<TopicPartition> fresh = new ArrayList<>();
            for (PartitionInfo info : infos) {
                TopicPartition tp = new TopicPartition(topic, info.partition());
                if (!known.contains(tp)) {
                    fresh.add(tp);
                }
            }
            if (!fresh.isEmpty()) {
                added.put(topic, fresh);
            }
        }
        if (added.isEmpty()) {
            return;
        }
        List<TopicPartition> fresh = new ArrayList<>();
        added.values().forEach(fresh::addAll);
        Map<TopicPartition, Long> begin;
        Map<TopicPartition, Long> end;
        try {
            begin = consumer.beginningOffsets(fresh, Duration.ofSeconds(5));
            end = consumer.endOffsets(fresh, Duration.ofSeconds(5));
        } catch (TimeoutException e) {
            log.warn("Partitions {} were added but their offsets are not available yet ({}); retrying in {} ms",
                    fresh, e.getMessage(), PARTITION_CHECK_MILLIS);
            return;
        }
        added.forEach((topic, tps) -> {
            List<TopicPartition> all = new ArrayList<>(partitions.get(topic));
            all.addAll(tps);
            all.sort(java.util.Comparator.comparingInt(TopicPartition::partition));
            partitions.put(topic, all);
        });
        // assign() keeps the positions of partitions that stay assigned: only the new ones start anywhere.
        consumer.assign(allPartitions());
        readFromBeginning(begin, end);
        added.forEach((topic, tps) -> {
            if (pausedUntil.containsKey(topic)) {
                consumer.pause(tps);
            }
            Set<Integer> numbers = addedNotCaughtUp.computeIfAbsent(topic, t -> new TreeSet<>());
            tps.forEach(tp -> numbers.add(tp.partition()));
            // Not caught up (nor ready) again until the new partitions reach the end offsets they have now.
            caughtUpTopics.remove(topic);
            log.info("Topic '{}': partition(s) {} were added; reading them from their beginning (log {} to {}); "
                    + "now {} partitions", topic, numbers, byPartition(begin, topic), byPartition(end, topic),
                    partitions.get(topic).size());
        });
        publishStatuses();
    }

    /** The topics' delete.retention.ms: resuming from offsets older than that could miss deletes. */
    private Map<String, Long> deleteRetention() {
        Map<String, Long> out = new HashMap<>();
        Properties props = new Properties();
        props.putAll(config.kafkaProperties());
        props.put("bootstrap.servers", config.bootstrapServers());
        props.put("client.id", "shared-lookup-writer-admin");
        try (Admin admin = Admin.create(props)) {
            List<ConfigResource> resources = byTopic.keySet().stream()
                    .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(10, TimeUnit.SECONDS);
            configs.forEach((r, c) -> {
                ConfigEntry entry = c.get("delete.retention.ms");
                if (entry != null && entry.value() != null) {
                    out.put(r.name(), Long.parseLong(entry.value()));
                }
            });
        } catch (Exception e) {
            log.warn("Cannot read delete.retention.ms of the topics ({}); resuming without that check", e.toString());
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return out;
    }

    private static Map<Integer, Long> byPartition(Map<TopicPartition, Long> offsets, String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        offsets.forEach((tp, o) -> {
            if (tp.topic().equals(topic)) {
                out.put(tp.partition(), o);
            }
        });
        return out;
    }

    private void applyBatch(ConsumerRecords<byte[], byte[]> records) {
        Positions positions = this::positionsOf;
        Set<String> stalledNow = new HashSet<>();
        Set<String> rebuiltNow = new HashSet<>();
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
            String topic = tp.topic();
            if (rebuiltNow.contains(topic)) {
                continue; // every partition of it was just sent back to its beginning
            }
            if (stalledNow.contains(topic)) {
                consumer.seek(tp, list.get(0).offset());
                continue;
            }
            NamespaceSink sink = byTopic.get(topic);
            boolean whole = true;
            for (ConsumerRecord<byte[], byte[]> r : list) {
                try {
                    applyRecord(sink, r, positions);
                } catch (StalledException e) {
                    // Not applied: read it again once the namespace can take it.
                    consumer.seek(tp, r.offset());
                    stalledNow.add(topic);
                    stall(topic, e.getMessage(), e.retryMillis());
                    whole = false;
                    break;
                } catch (RebuildNeededException e) {
                    // Not applied: the topic is read again from its beginning, or from here if that cannot start.
                    whole = false;
                    try {
                        rebuildTopic(topic, e.getMessage(), partitions.get(topic));
                        rebuiltNow.add(topic);
                    } catch (KafkaException unreachable) {
                        consumer.seek(tp, r.offset());
                        stalledNow.add(topic);
                        stall(topic, e.getMessage() + "; cannot rebuild now: " + unreachable.getMessage(),
                                StalledException.PAUSE_MILLIS);
                    }
                    break;
                }
                applied.put(tp, r.offset() + 1);
            }
            if (whole) {
                // The consumer's position may be past the last record (transaction markers, compaction gaps).
                applied.put(tp, Math.max(applied.get(tp), consumer.position(tp)));
                lastStall.remove(topic); // taking records again: a later stall is news
            }
        }
        // Partitions without records in this batch may still have moved past markers; everything before is applied.
        for (TopicPartition tp : consumer.assignment()) {
            if (!stalledNow.contains(tp.topic()) && !pausedUntil.containsKey(tp.topic()) && applied.containsKey(tp)) {
                applied.put(tp, Math.max(applied.get(tp), consumer.position(tp)));
            }
        }
    }

    /** Decodes and applies one record; problems with the record itself are counted, logged and skipped. */
    private void applyRecord(NamespaceSink sink, ConsumerRecord<byte[], byte[]> r, Positions positions) {
        String ns = sink.binding().namespace();
        String topic = r.topic();
        metrics.records.labelValues(ns).inc();
        try {
            if (r.key() == null) {
                metrics.nullKeys.labelValues(ns).inc();
                badRecords.warn("Skipped a record with a null key at {}-{} offset {}", topic, r.partition(),
                        r.offset());
                return;
            }
            String key = decoder.key(r.key());
            String value = null;
            if (r.value() == null) {
                metrics.tombstones.labelValues(ns).inc();
            } else if (r.value().length > config.maxValueBytes()) {
                metrics.oversize.labelValues(ns).inc();
                badRecords.warn("Skipped a value of {} bytes (over --max-value-bytes {}) at {}-{} offset {}",
                        r.value().length, config.maxValueBytes(), topic, r.partition(), r.offset());
                return;
            } else {
                value = decoder.value(r.value());
            }
            sink.apply(key, value, positions);
            appliedSinceStart.merge(topic, 1L, Long::sum);
        } catch (RecordDecoder.DecodeException e) {
            metrics.decodeErrors.labelValues(ns).inc();
            badRecords.warn("Skipped a record that cannot be decoded at {}-{} offset {}: {}", topic,
                    r.partition(), r.offset(), e.getMessage());
        } catch (RecordSkippedException e) {
            badRecords.warn("Skipped a record at {}-{} offset {}: {}", topic, r.partition(), r.offset(),
                    e.getMessage());
        }
    }

    private void stall(String topic, String why, long pauseMillis) {
        // The first stall for a reason is an ERROR; the same one again (a disk still full, retried every few
        // seconds) is a rate-limited WARN, and the stall counter says how often.
        if (java.util.Objects.equals(why, lastStall.put(topic, why))) {
            repeatedStalls.warn("Namespace of topic '{}' still cannot take more records ({}); pausing its partitions "
                    + "for {} ms again", topic, why, pauseMillis);
        } else {
            log.error("Namespace of topic '{}' cannot take more records now ({}); pausing its partitions for {} ms",
                    topic, why, pauseMillis);
        }
        metrics.stalls.labelValues(byTopic.get(topic).binding().namespace()).inc();
        consumer.pause(partitions.get(topic));
        pausedUntil.put(topic, System.nanoTime() + pauseMillis * 1_000_000L);
    }

    private Map<Integer, Long> positionsOf(String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        for (TopicPartition tp : partitions.getOrDefault(topic, List.of())) {
            Long next = applied.get(tp);
            if (next != null) {
                out.put(tp.partition(), next);
            }
        }
        return out;
    }

    /** Caught up once the position reached the end offset captured at start on every partition; then it stays so. */
    private boolean caughtUp(String topic) {
        if (caughtUpTopics.contains(topic)) {
            return true;
        }
        for (TopicPartition tp : partitions.get(topic)) {
            if (consumer.position(tp) < endAtStart.get(tp)) {
                return false;
            }
        }
        caughtUpTopics.add(topic);
        Set<Integer> added = addedNotCaughtUp.remove(topic);
        if (added == null) {
            log.info("Topic '{}' caught up with the end offsets captured at start after {} s", topic,
                    String.format("%.1f", (System.nanoTime() - startNanos) / 1e9));
        } else {
            log.info("Topic '{}' caught up with its added partition(s) {}", topic, added);
        }
        return true;
    }

    private void periodic() {
        long now = System.nanoTime();
        if (now - lastCheckpoint >= CHECKPOINT_NANOS) {
            lastCheckpoint = now;
            Positions positions = this::positionsOf;
            byTopic.values().forEach(s -> s.checkpoint(positions));
            resumePaused();
            publishStatuses();
        }
        if (now - lastHealth >= HEALTH_NANOS) {
            lastHealth = now;
            checkBroker();
            commitForTooling(false);
        }
        if (now - lastPartitionCheck >= TimeUnit.MILLISECONDS.toNanos(PARTITION_CHECK_MILLIS)) {
            lastPartitionCheck = now;
            followPartitionChanges();
        }
        if (now - lastProgress >= PROGRESS_NANOS) {
            lastProgress = now;
            logProgress(now);
        }
    }

    private void resumePaused() {
        long now = System.nanoTime();
        pausedUntil.entrySet().removeIf(e -> {
            if (now - e.getValue() >= 0) {
                consumer.resume(partitions.get(e.getKey()));
                return true;
            }
            return false;
        });
    }

    /** A cheap request to tell "nothing new" from "broker gone", and fresh end offsets for lag. */
    private void checkBroker() {
        try {
            latestEnd.putAll(consumer.endOffsets(allPartitions(), Duration.ofSeconds(3)));
            if (brokerProblem != null) {
                log.info("Kafka at {} is reachable again", config.bootstrapServers());
            }
            brokerProblem = null;
        } catch (TimeoutException e) {
            if (brokerProblem == null) {
                log.warn("Kafka at {} is unreachable; serving the last published store and reconnecting",
                        config.bootstrapServers());
            }
            brokerProblem = "Kafka at " + config.bootstrapServers() + " is unreachable: " + e.getMessage();
        }
        publishStatuses();
    }

    /**
     * With a {@code group.id}, commits the applied positions to the group every few seconds and at a clean stop, so
     * broker tooling ({@code kafka-consumer-groups --describe}) shows the writer and its lag. Never read back: the
     * offsets stored with each generation are what the writer resumes from.
     */
    private void commitForTooling(boolean atStop) {
        if (!config.kafkaProperties().containsKey(ConsumerConfig.GROUP_ID_CONFIG) || applied.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        applied.forEach((tp, next) -> offsets.put(tp, new OffsetAndMetadata(next)));
        try {
            if (atStop) {
                consumer.commitSync(offsets, Duration.ofSeconds(2));
            } else {
                consumer.commitAsync(offsets, (done, e) -> {
                    if (e != null) {
                        log.debug("Committing positions to the consumer group failed (for tooling only): {}",
                                e.toString());
                    }
                });
            }
        } catch (KafkaException e) {
            log.debug("Committing positions to the consumer group failed (for tooling only): {}", e.toString());
        }
    }

    private Collection<TopicPartition> allPartitions() {
        List<TopicPartition> all = new ArrayList<>();
        partitions.values().forEach(all::addAll);
        return all;
    }

    private void logProgress(long now) {
        double seconds = (now - startNanos) / 1e9;
        for (String topic : byTopic.keySet()) {
            if (caughtUpTopics.contains(topic)) {
                continue;
            }
            long target = 0;
            long done = 0;
            for (TopicPartition tp : partitions.get(topic)) {
                long begin = beginAtStart.get(tp);
                target += Math.max(0, endAtStart.get(tp) - begin);
                done += Math.max(0, Math.min(consumer.position(tp), endAtStart.get(tp)) - begin);
            }
            long applied = appliedSinceStart.getOrDefault(topic, 0L);
            double rate = seconds > 0 ? applied / seconds : 0;
            double percent = target == 0 ? 100 : 100.0 * done / target;
            String eta = rate > 0 ? Math.round((target - done) / rate) + " s" : "unknown";
            log.info("Topic '{}': {} records read ({}/s), {}% of {} at start, ETA {}", topic, applied,
                    Math.round(rate), String.format("%.1f", percent), target, eta);
        }
    }

    private void publishStatuses() {
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        for (NamespaceSink sink : byTopic.values()) {
            String topic = sink.binding().topic();
            Map<Integer, Long> lag = new TreeMap<>();
            if (started) {
                for (TopicPartition tp : partitions.get(topic)) {
                    lag.put(tp.partition(), Math.max(0, latestEnd.get(tp) - consumer.position(tp)));
                }
            }
            out.put(sink.binding().namespace(), sink.status(lag, notReadyReason(sink)));
        }
        statuses = out;
    }

    private String notReadyReason(NamespaceSink sink) {
        String topic = sink.binding().topic();
        if (brokerProblem != null) {
            return brokerProblem;
        }
        if (pausedUntil.containsKey(topic)) {
            return "paused: the namespace cannot take more records now (see lastError)";
        }
        if (!sink.isLive()) {
            return "building a fresh generation from topic '" + topic + "'; readers see the previous one, if any";
        }
        if (!started || !caughtUp(topic)) {
            Set<Integer> added = addedNotCaughtUp.get(topic);
            if (added != null) {
                return "reading partition(s) " + added + " added to topic '" + topic + "' from their beginning";
            }
            return "catching up with topic '" + topic + "'";
        }
        return null;
    }

    private void closeAll() {
        Positions positions = this::positionsOf;
        for (NamespaceSink sink : byTopic.values()) {
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
            commitForTooling(true);
        }
        try {
            consumer.close(Duration.ofSeconds(1));
        } catch (RuntimeException e) {
            log.debug("Consumer close failed", e);
        }
        log.info("Ingestion stopped");
    }
}
