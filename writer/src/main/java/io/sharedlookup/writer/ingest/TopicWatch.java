package io.sharedlookup.writer.ingest;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the health check learns of each topic through the admin client, besides the end offsets the consumer reads up
 * to: whether the topic still exists, its topic id (a topic deleted and recreated under the same name has a new one,
 * and reading on from the old positions would skip its first records), each partition's high watermark (records
 * behind an open transaction are past the last stable offset a {@code read_committed} consumer sees, but are lag all
 * the same) and, for a partition held back that way, the open transaction holding it.
 *
 * <p>The ingest thread never waits long for it: each look is sent asynchronously with the writer's one admin client
 * ({@link BrokerAdmin}), waited for at most {@value #WAIT_MILLIS} ms, and otherwise read at a later check, a new look
 * being sent only once the last is answered (each request fails by itself within
 * {@value BrokerAdmin#REQUEST_TIMEOUT_MS} ms). An answer for one topic never depends on another's. Owned by the
 * ingest thread.
 */
final class TopicWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TopicWatch.class);
    /** How long a health check waits for the look it sent before reading it at a later check. */
    static final long WAIT_MILLIS = 500;

    /** One look: the requests sent, and the number of looks sent before it and it. */
    private record Look(
            long number,
            Map<String, KafkaFuture<TopicDescription>> topics,
            Map<TopicPartition, KafkaFuture<ListOffsetsResultInfo>> highWatermarks,
            Map<TopicPartition, KafkaFuture<PartitionProducerState>> producers) {
        KafkaFuture<Void> all() {
            List<KafkaFuture<?>> all = new ArrayList<>(topics.values());
            all.addAll(highWatermarks.values());
            all.addAll(producers.values());
            return KafkaFuture.allOf(all.toArray(KafkaFuture[]::new));
        }
    }

    /** Null: nothing is watched (unit tests whose consumer is Kafka's MockConsumer). */
    private final BrokerAdmin admin;

    private final String bootstrap;
    private Look pending;
    private long looksSent;
    private final Set<String> missing = new HashSet<>();
    /** Whether the last look read had any topic described: the broker answers. */
    private boolean answering;

    private final Set<String> unanswered = new HashSet<>();
    private final Map<String, String> expectedIds = new HashMap<>();
    /** Per topic, how many looks had been sent when its id was last set: only later looks can tell it changed. */
    private final Map<String, Long> expectedAfter = new HashMap<>();

    private final Map<String, String> changedIds = new HashMap<>();
    private final Map<TopicPartition, Long> highWatermarks = new HashMap<>();
    private final Map<TopicPartition, String> openTransactions = new HashMap<>();

    /** @param admin the writer's admin client, or null to watch nothing */
    TopicWatch(BrokerAdmin admin, String bootstrap) {
        this.admin = admin;
        this.bootstrap = bootstrap;
    }

    /**
     * Reads the last look if it is answered (sending a new one first when none is under way, and waiting at most
     * {@value #WAIT_MILLIS} ms for it).
     *
     * @param lastStable per partition, the last stable offset last seen (the consumer's end offset): a partition whose
     *                   high watermark is beyond it is held back by an open transaction, which the next look names
     */
    void look(
            Collection<String> topics,
            Collection<TopicPartition> partitions,
            ToLongFunction<TopicPartition> lastStable) {
        if (admin == null) {
            return;
        }
        if (pending == null) {
            pending = send(topics, partitions, lastStable);
            if (pending == null) {
                return;
            }
        }
        try {
            pending.all().get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            return; // read at a later check
        } catch (ExecutionException e) {
            // one of them failed: each is read by itself below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        read(pending);
        pending = null;
        if (partitions.stream().anyMatch(tp -> heldBack(tp, lastStable) && !openTransactions.containsKey(tp))) {
            pending = send(topics, partitions, lastStable); // name the transaction by the next check, not the one after
        }
    }

    /** Whether the partition's high watermark is past its last stable offset: an open transaction holds it back. */
    private boolean heldBack(TopicPartition tp, ToLongFunction<TopicPartition> lastStable) {
        long stable = lastStable.applyAsLong(tp);
        return stable >= 0 && highWatermark(tp) > stable;
    }

    private Look send(
            Collection<String> topics,
            Collection<TopicPartition> partitions,
            ToLongFunction<TopicPartition> lastStable) {
        Admin client = admin.get();
        if (client == null) {
            return null;
        }
        try {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            List<TopicPartition> held = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                if (missing.contains(tp.topic())) {
                    continue; // asked again once the topic exists (the admin client logs each such ask at ERROR)
                }
                latest.put(tp, OffsetSpec.latest());
                if (heldBack(tp, lastStable)) {
                    held.add(tp);
                }
            }
            Map<TopicPartition, KafkaFuture<ListOffsetsResultInfo>> ends = new HashMap<>();
            if (!latest.isEmpty()) {
                var result = client.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED));
                latest.keySet().forEach(tp -> ends.put(tp, result.partitionResult(tp)));
            }
            Map<TopicPartition, KafkaFuture<PartitionProducerState>> producers = new HashMap<>();
            if (!held.isEmpty()) {
                var result = client.describeProducers(held);
                held.forEach(tp -> producers.put(tp, result.partitionResult(tp)));
            }
            return new Look(++looksSent, client.describeTopics(topics).topicNameValues(), ends, producers);
        } catch (KafkaException e) {
            log.debug("Cannot look at the topics now: {}", e.toString());
            return null;
        }
    }

    private void read(Look look) {
        answering = look.topics().values().stream().anyMatch(f -> failure(f) == null);
        look.topics().forEach((topic, future) -> {
            Throwable failure = failure(future);
            if (failure == null) {
                missing.remove(topic);
                Uuid id = value(future).topicId();
                if (id != null && !Uuid.ZERO_UUID.equals(id)) { // zero: a broker before 2.8
                    idAnswered(topic, id.toString(), look.number());
                }
            } else if (failure instanceof UnknownTopicOrPartitionException) {
                if (missing.add(topic)) {
                    log.warn(
                            "Topic '{}' does not exist on Kafka at {} any more; its namespace keeps serving what it "
                                    + "last published, and is rebuilt if the topic is recreated",
                            topic,
                            bootstrap);
                }
            }
        });
        look.highWatermarks().forEach((tp, future) -> {
            if (failure(future) == null) {
                highWatermarks.put(tp, value(future).offset());
            } else {
                highWatermarks.remove(tp);
            }
        });
        openTransactions.keySet().removeIf(tp -> !look.producers().containsKey(tp));
        look.producers().forEach((tp, future) -> {
            String open =
                    failure(future) == null ? openTransaction(value(future).activeProducers()) : null;
            if (open == null) {
                openTransactions.remove(tp);
            } else {
                openTransactions.put(tp, open);
            }
        });
    }

    private void idAnswered(String topic, String id, long lookNumber) {
        if (lookNumber <= expectedAfter.getOrDefault(topic, 0L)) {
            return; // sent before the id was last set: it may be the topic's id of before
        }
        String expected = expectedIds.get(topic);
        if (expected == null) {
            expectedIds.put(topic, id); // not known at start: the first answer is the topic read since
        } else if (!expected.equals(id)) {
            changedIds.put(topic, id);
        }
    }

    /** The open transaction that started first, described; null when none is open. */
    private static String openTransaction(List<ProducerState> producers) {
        return producers.stream()
                .filter(p -> p.currentTransactionStartOffset().isPresent())
                .min(Comparator.comparingLong(
                        p -> p.currentTransactionStartOffset().getAsLong()))
                .map(p -> "open transaction of producer id " + p.producerId() + " (epoch " + p.producerEpoch()
                        + "), started at offset "
                        + p.currentTransactionStartOffset().getAsLong() + ", last written "
                        + Instant.ofEpochMilli(p.lastTimestamp()))
                .orElse(null);
    }

    /** The value of a future that succeeded ({@link #failure} null). */
    private static <T> T value(KafkaFuture<T> future) {
        try {
            return future.getNow(null);
        } catch (ExecutionException | InterruptedException e) {
            throw new IllegalStateException("read a future that failed", e); // never: read only after failure()
        }
    }

    /** The future's failure, unwrapped; null when it succeeded or is not done (then it is read as not answered). */
    private static Throwable failure(KafkaFuture<?> future) {
        if (!future.isDone()) {
            return new KafkaException("not answered");
        }
        try {
            future.getNow(null);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException | RuntimeException e) {
            return e;
        }
    }

    /**
     * The topic's id is {@code id} (read at start or for a rebuild), or unknown (null: the next answer is taken as
     * it); answers to looks sent before are not compared with it.
     */
    void expect(String topic, String id) {
        if (id == null) {
            expectedIds.remove(topic);
        } else {
            expectedIds.put(topic, id);
        }
        expectedAfter.put(topic, looksSent);
        changedIds.remove(topic);
    }

    /** The id the topic is read with ({@link #expect}), or null when not known. */
    String expectedId(String topic) {
        return expectedIds.get(topic);
    }

    /** Per topic whose id is not the one it is read with (deleted and recreated), its id now. */
    Map<String, String> changedIds() {
        return Map.copyOf(changedIds);
    }

    /** Whether the broker described any topic at the last look read; true before any (nothing says otherwise). */
    boolean brokerAnswering() {
        return answering || admin == null || looksSent == 0;
    }

    /** Topics the broker said do not exist at the last look. */
    Set<String> missingTopics() {
        return Set.copyOf(missing);
    }

    /** The topics whose end offsets the broker did not answer at the last health check (see PartitionOffsets). */
    void unanswered(Set<String> topics) {
        unanswered.clear();
        unanswered.addAll(topics);
    }

    /** Why the topic cannot be followed now, for {@code /ready}; null when nothing is known against it. */
    String problem(String topic) {
        if (missing.contains(topic)) {
            return "topic '" + topic + "' does not exist on Kafka at " + bootstrap + " (deleted?); its namespace "
                    + "serves what it last published: recreate the topic (the namespace is then rebuilt from it), or "
                    + "remove it from --topic";
        }
        if (unanswered.contains(topic)) {
            return "Kafka at " + bootstrap + " did not answer the end offsets of topic '" + topic + "' at the last "
                    + "health check (is its partition leader available?); asking it alone again every 5 s";
        }
        return null;
    }

    /** The partition's high watermark at the last look (records behind an open transaction included); -1 unknown. */
    long highWatermark(TopicPartition tp) {
        return highWatermarks.getOrDefault(tp, -1L);
    }

    /** The open transaction holding the partition back at the last look, described; null when none is known. */
    String openTransaction(TopicPartition tp) {
        return openTransactions.get(tp);
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
    }
}
