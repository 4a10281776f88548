package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.Positions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the ingest thread knows of each partition: which partitions each topic has (discovered at start, after a
 * rebuild, and when partitions are added), where reading started, the end offsets to reach to be caught up, the
 * latest end offsets (for lag), and the next offset not yet applied. Owned by the ingest thread.
 */
final class PartitionOffsets {
    private static final Logger log = LoggerFactory.getLogger(PartitionOffsets.class);

    private final Consumer<byte[], byte[]> consumer;
    private final ToolingCommits commits;
    private final Map<String, List<TopicPartition>> partitions = new HashMap<>();
    private final Map<TopicPartition, Long> beginAtStart = new HashMap<>();
    private final Map<TopicPartition, Long> endAtStart = new HashMap<>();
    private final Map<TopicPartition, Long> latestEnd = new HashMap<>();
    /** Since when each topic's positions are known current. */
    private final TopicCurrency currency = new TopicCurrency();

    private final Set<String> caughtUpTopics = new HashSet<>();
    private final Map<String, Long> appliedSinceStart = new HashMap<>();
    /**
     * Per partition, the next offset not yet applied: what offsets stored with a generation must say. Tracked here
     * rather than asked of the consumer, whose position runs ahead by the part of a batch not applied yet (a stop or
     * a growth can come mid-batch).
     */
    private final Map<TopicPartition, Long> applied = new HashMap<>();
    /** Per topic, partitions added while running that have not reached the end offset they had when noticed. */
    private final Map<String, Set<Integer>> addedNotCaughtUp = new HashMap<>();

    private long startNanos;
    /** The health check's asking for end offsets. */
    private final EndsRefresh ends;

    PartitionOffsets(Consumer<byte[], byte[]> consumer) {
        this(consumer, true);
    }

    /** @param hasGroup whether the consumer has a {@code group.id}: only then are positions committed for tooling */
    PartitionOffsets(Consumer<byte[], byte[]> consumer, boolean hasGroup) {
        this.consumer = consumer;
        this.commits = new ToolingCommits(consumer, hasGroup);
        this.ends = new EndsRefresh(consumer, partitions::get, this::endsSeen);
    }

    /** The topic's partitions as the broker lists them now; empty when it does not know the topic. */
    List<TopicPartition> discover(String topic) {
        List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(10));
        return infos == null
                ? List.of()
                : infos.stream()
                        .map(i -> new TopicPartition(topic, i.partition()))
                        .toList();
    }

    /** Sets the topic's partitions (the consumer's assignment is {@link #all()}, assigned by the caller). */
    void setPartitions(String topic, List<TopicPartition> tps) {
        partitions.put(topic, tps);
    }

    List<TopicPartition> of(String topic) {
        return partitions.get(topic);
    }

    Collection<TopicPartition> all() {
        List<TopicPartition> all = new ArrayList<>();
        partitions.values().forEach(all::addAll);
        return all;
    }

    /** Moves the consumer to {@code offset}, everything before it being applied (a resume or a fresh start). */
    void seek(TopicPartition tp, long offset) {
        consumer.seek(tp, offset);
        applied.put(tp, offset);
    }

    /**
     * Reading starts now from {@code begin} towards {@code end}, which the broker gave at {@code endAskedAtMillis};
     * returns the start time ({@link System#nanoTime}).
     */
    long started(Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end, long endAskedAtMillis) {
        beginAtStart.putAll(begin);
        endAtStart.putAll(end);
        endsSeen(end, endAskedAtMillis);
        startNanos = System.nanoTime();
        return startNanos;
    }

    /**
     * Seeks each partition of {@code begin} to its offset there and records the offsets against which it is caught
     * up again ({@code end}): for a rebuilt topic and for partitions added to a topic.
     */
    void readFromBeginning(Map<TopicPartition, Long> begin, Map<TopicPartition, Long> end, long endAskedAtMillis) {
        begin.forEach(this::seek);
        beginAtStart.putAll(begin);
        endAtStart.putAll(end);
        endsSeen(end, endAskedAtMillis);
    }

    private void endsSeen(Map<TopicPartition, Long> ends, long askedAtMillis) {
        latestEnd.putAll(ends);
        currency.answered(ends, askedAtMillis);
    }

    /** Forgets what was applied from the topic and that it was caught up: it is read again from its beginning. */
    void forget(String topic) {
        applied.keySet().removeIf(tp -> tp.topic().equals(topic));
        caughtUpTopics.remove(topic);
        addedNotCaughtUp.remove(topic);
    }

    /** Per partition of the topic, the next offset not yet applied. */
    Map<Integer, Long> positionsOf(String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        for (TopicPartition tp : partitions.getOrDefault(topic, List.of())) {
            Long next = applied.get(tp);
            if (next != null) {
                out.put(tp.partition(), next);
            }
        }
        return out;
    }

    /**
     * Since when the topic's positions are known current ({@link TopicCurrency}): what {@link #credit} last recorded,
     * {@link Positions#UNKNOWN} before.
     */
    long currentAsOfMillis(String topic) {
        return currency.currentAsOf(topic);
    }

    /** The latest moment the topic's positions are current as of, by the answers kept; not yet credited. */
    long reachedAsOfMillis(String topic) {
        return currency.reached(partitions.getOrDefault(topic, List.of()), applied::get);
    }

    /** Records that the topic's positions are known current as of {@code asOfMillis}. */
    void credit(String topic, long asOfMillis) {
        currency.credit(topic, partitions.getOrDefault(topic, List.of()), asOfMillis);
    }

    /** Whether nothing was written to the topic since it was last credited ({@link TopicCurrency}). */
    boolean nothingWrittenSinceCredited(String topic) {
        return currency.nothingWrittenSinceCredited(partitions.getOrDefault(topic, List.of()));
    }

    /** Whether the topic's gap is a read from its beginning (see {@link TopicCurrency#readingFromBeginning}). */
    boolean readingFromBeginning(String topic) {
        return currency.readingFromBeginning(topic);
    }

    /** The topic is rebuilt because its positions were not current for too long. */
    void rebuiltForGap(String topic) {
        currency.rebuiltForGap(topic);
    }

    /** The topic's reading was held up: see {@link TopicCurrency#interrupted}. */
    void readingInterrupted(String topic) {
        currency.interrupted(topic);
    }

    /** Every topic's reading was held up (the broker away). */
    void readingInterrupted() {
        currency.allInterrupted();
    }

    /** The topic is read again from its beginning, from ends asked for at {@code askedAtMillis}. */
    void restartCurrency(String topic, long askedAtMillis) {
        currency.restart(topic, partitions.getOrDefault(topic, List.of()), askedAtMillis);
    }

    /** The record before {@code next} was applied (or skipped as bad). */
    void applied(TopicPartition tp, long next) {
        applied.put(tp, next);
    }

    /** Everything before the consumer's position is applied: it may be past the last record (markers, gaps). */
    void appliedUpToPosition(TopicPartition tp) {
        applied.put(tp, Math.max(applied.get(tp), consumer.position(tp)));
    }

    boolean isTracked(TopicPartition tp) {
        return applied.containsKey(tp);
    }

    /** The next offset not yet applied, null when the partition is not read. */
    Long appliedAt(TopicPartition tp) {
        return applied.get(tp);
    }

    void countApplied(String topic, long records) {
        if (records > 0) {
            appliedSinceStart.merge(topic, records, Long::sum);
        }
    }

    /** Caught up once the position reached the end offset captured at start on every partition; then it stays so. */
    boolean caughtUp(String topic) {
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
            log.info(
                    "Topic '{}' caught up with the end offsets captured at start after {} s",
                    topic,
                    String.format("%.1f", (System.nanoTime() - startNanos) / 1e9));
        } else {
            log.info("Topic '{}' caught up with its added partition(s) {}", topic, added);
        }
        return true;
    }

    /** Partitions added to the topic while running and not caught up yet; null when none. */
    Set<Integer> addedNotCaughtUp(String topic) {
        return addedNotCaughtUp.get(topic);
    }

    /**
     * Asks the broker for fresh end offsets (for lag and currency); a cheap request that fails when the broker is
     * gone. One topic (deleted, or its leader gone) is enough to hold up a call for all, so a topic that does not
     * answer is then asked alone, with a short timeout, until it answers again, and the others are refreshed and
     * credited meanwhile; the ingest thread is held at most about {@link EndsRefresh#CHECK_BUDGET}.
     *
     * @param skip      topics not asked at all (known not to exist): they would only hold the call up
     * @param eachAlone whether to ask each topic alone when the call for all is not answered: pointless when the
     *                  broker answers nothing else either (then it is only more time away from the read loop)
     * @return the topics asked that did not answer (the others were refreshed)
     * @throws TimeoutException                    when no topic answered: the broker is unreachable
     * @throws TopicAuthorizationException naming the topics the writer may no longer describe, after refreshing the
     *                                     others
     */
    Set<String> refreshEnds(Set<String> skip, boolean eachAlone) {
        return ends.refresh(partitions.keySet(), skip, eachAlone);
    }

    /** The partition's end offset last seen, or -1 when none was. */
    long latestEnd(TopicPartition tp) {
        return latestEnd.getOrDefault(tp, -1L);
    }

    /**
     * Per partition of the topic, the end offset last seen minus the position. The end is the high watermark when
     * known: the consumer's end offset is the last stable offset ({@code read_committed}), and records behind an open
     * transaction are not read yet either.
     *
     * @param highWatermark per partition, its high watermark, or -1 when not known
     */
    Map<Integer, Long> lag(String topic, ToLongFunction<TopicPartition> highWatermark) {
        Map<Integer, Long> lag = new TreeMap<>();
        for (TopicPartition tp : partitions.get(topic)) {
            long end = Math.max(latestEnd.get(tp), highWatermark.applyAsLong(tp));
            lag.put(tp.partition(), Math.max(0, end - consumer.position(tp)));
        }
        return lag;
    }

    /**
     * Assigns partitions that appeared in the consumer's metadata since they were last compared, each from its
     * beginning: records produced to a topic's new partitions must reach readers like any others. Reads only cached
     * metadata (refreshed by poll every {@value ConsumerSettings#METADATA_MAX_AGE_MS} ms); asks the broker for
     * offsets only when a partition was added. A topic missing from the metadata (deleted, or being recreated) is
     * left to the out-of-range handling.
     *
     * @return per topic, the partitions added; empty when none (or their offsets are not available yet)
     */
    Map<String, List<TopicPartition>> followAdded(Collection<String> topics) {
        Map<String, List<TopicPartition>> added = new LinkedHashMap<>();
        for (String topic : topics) {
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
            return added;
        }
        List<TopicPartition> fresh = new ArrayList<>();
        added.values().forEach(fresh::addAll);
        Map<TopicPartition, Long> begin;
        Map<TopicPartition, Long> end;
        long endAskedAt;
        try {
            begin = consumer.beginningOffsets(fresh, Duration.ofSeconds(5));
            endAskedAt = System.currentTimeMillis();
            end = consumer.endOffsets(fresh, Duration.ofSeconds(5));
        } catch (TimeoutException e) {
            log.warn(
                    "Partitions {} were added but their offsets are not available yet ({}); retrying in {} ms",
                    fresh,
                    e.getMessage(),
                    PartitionCheck.PERIOD_MILLIS);
            return Map.of();
        }
        added.forEach((topic, tps) -> {
            List<TopicPartition> all = new ArrayList<>(partitions.get(topic));
            all.addAll(tps);
            all.sort(Comparator.comparingInt(TopicPartition::partition));
            partitions.put(topic, all);
        });
        // assign() keeps the positions of partitions that stay assigned: only the new ones start anywhere.
        consumer.assign(all());
        readFromBeginning(begin, end, endAskedAt);
        added.forEach((topic, tps) -> {
            Set<Integer> numbers = addedNotCaughtUp.computeIfAbsent(topic, t -> new TreeSet<>());
            tps.forEach(tp -> numbers.add(tp.partition()));
            // Not caught up (nor ready) again until the new partitions reach the end offsets they have now.
            caughtUpTopics.remove(topic);
            log.info(
                    "Topic '{}': partition(s) {} were added; reading them from their beginning (log {} to {}); "
                            + "now {} partitions",
                    topic,
                    numbers,
                    byPartition(begin, topic),
                    byPartition(end, topic),
                    partitions.get(topic).size());
        });
        return added;
    }

    /**
     * With a {@code group.id}, commits the applied positions to the consumer group, for broker tooling only
     * ({@link ToolingCommits}); never read back.
     */
    void commitForTooling(boolean atStop) {
        commits.commit(applied, atStop);
    }

    /** Logs, for each topic not caught up yet, how far it got towards the end offsets captured at start. */
    void logProgress(long now, Collection<String> topics) {
        double seconds = (now - startNanos) / 1e9;
        for (String topic : topics) {
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
            long appliedCount = appliedSinceStart.getOrDefault(topic, 0L);
            double rate = seconds > 0 ? appliedCount / seconds : 0;
            double percent = target == 0 ? 100 : 100.0 * done / target;
            String eta = rate > 0 ? Math.round((target - done) / rate) + " s" : "unknown";
            log.info(
                    "Topic '{}': {} records read ({}/s), {}% of {} at start, ETA {}",
                    topic, appliedCount, Math.round(rate), String.format("%.1f", percent), target, eta);
        }
    }

    /** The offsets of {@code topic}'s partitions, by partition number. */
    static Map<Integer, Long> byPartition(Map<TopicPartition, Long> offsets, String topic) {
        Map<Integer, Long> out = new TreeMap<>();
        offsets.forEach((tp, o) -> {
            if (tp.topic().equals(topic)) {
                out.put(tp.partition(), o);
            }
        });
        return out;
    }
}
