package io.sharedlookup.writer.ingest;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/** A MockConsumer whose empty polls take a moment, as a real one's do, so the loop does not spin. */
final class PacedMockConsumer extends MockConsumer<byte[], byte[]> {
    PacedMockConsumer() {
        super("none"); // as ConsumerSettings: a position the broker no longer has is an error, never a reset
    }

    /** Thrown by every poll while set: a failure that keeps coming back. */
    volatile KafkaException failingEveryPoll;
    /** While set, end offsets (the health check's request) time out: the broker does not answer. */
    volatile boolean silent;
    /** End-offset requests answered, and refused while silent. */
    final AtomicInteger endOffsetsAnswered = new AtomicInteger();

    final AtomicInteger endOffsetsRefused = new AtomicInteger();

    @Override
    public synchronized Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        if (silent) {
            endOffsetsRefused.incrementAndGet();
            throw new TimeoutException("no answer in time");
        }
        endOffsetsAnswered.incrementAndGet();
        return super.endOffsets(partitions, timeout);
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        KafkaException failure = failingEveryPoll;
        if (failure != null) {
            throw failure;
        }
        ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
        if (records.isEmpty()) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return records;
    }
}
