package io.sharedlookup.writer.ingest;

import io.sharedlookup.internal.store.RateLimitedLog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topics whose namespace could not take a record: their partitions are paused in the consumer until the time the
 * namespace asked for ({@link System#nanoTime}), then resumed, and the record is read again. Owned by the ingest
 * thread.
 */
final class TopicPauses {
    private static final Logger log = LoggerFactory.getLogger(TopicPauses.class);

    private final Consumer<byte[], byte[]> consumer;
    private final PartitionOffsets offsets;
    /** Paused topics, and until when ({@link System#nanoTime}). */
    private final Map<String, Long> pausedUntil = new HashMap<>();
    /** The last reason each topic was paused for, so that the same stall again is not an ERROR each time. */
    private final Map<String, String> lastStall = new HashMap<>();

    private final RateLimitedLog repeatedStalls = new RateLimitedLog(log, 60_000);
    /** When each topic was last paused ({@link System#nanoTime}). */
    private final Map<String, Long> lastPausedAt = new HashMap<>();

    TopicPauses(Consumer<byte[], byte[]> consumer, PartitionOffsets offsets) {
        this.consumer = consumer;
        this.offsets = offsets;
    }

    /**
     * Pauses the topic's partitions for {@code pauseMillis}: its namespace cannot take records, or one of its
     * partitions cannot be read ({@code why}).
     */
    void pause(String topic, String why, long pauseMillis) {
        // The first stall for a reason is an ERROR; the same one again (a disk still full, retried every few
        // seconds) is a rate-limited WARN, and the stall counter says how often.
        if (Objects.equals(why, lastStall.put(topic, why))) {
            repeatedStalls.warn("Pausing topic '{}' for {} ms again: {}", topic, pauseMillis, why);
        } else {
            log.error("Pausing topic '{}' for {} ms: {}", topic, pauseMillis, why);
        }
        consumer.pause(offsets.of(topic));
        long now = System.nanoTime();
        pausedUntil.put(topic, now + pauseMillis * 1_000_000L);
        lastPausedAt.put(topic, now);
    }

    boolean isPaused(String topic) {
        return pausedUntil.containsKey(topic);
    }

    /** Whether the topic is paused now or was paused at {@code nanos} ({@link System#nanoTime}) or later. */
    boolean pausedSince(String topic, long nanos) {
        Long at = lastPausedAt.get(topic);
        return isPaused(topic) || at != null && at - nanos >= 0;
    }

    /** Why the topic was last paused; null once it took records again. */
    String reason(String topic) {
        return lastStall.get(topic);
    }

    /** The topic took records again: a later stall is news. */
    void takingRecords(String topic) {
        lastStall.remove(topic);
    }

    /** Resumes the topics whose pause is over. */
    void resumeDue() {
        long now = System.nanoTime();
        pausedUntil.entrySet().removeIf(e -> {
            if (now - e.getValue() >= 0) {
                consumer.resume(offsets.of(e.getKey()));
                return true;
            }
            return false;
        });
    }

    /** Ends the topic's pause now, if it has one, resuming {@code tps} (a rebuild reads it again from the start). */
    void lift(String topic, List<TopicPartition> tps) {
        if (pausedUntil.remove(topic) != null) {
            consumer.resume(tps);
        }
    }
}
