package io.sharedlookup.bench;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker and producer of the scale part ({@link ScaleHarness}), in a JVM of its own on the demo's jar (which holds
 * Kafka and {@link EmbeddedKafka}): starts a single-node broker with its data in {@code <data dir>}, creates the
 * compacted topic {@value BootstrapFeed#TOPIC} with {@value #PARTITIONS} partitions, produces {@code records}
 * {@link ScaleData} records with a fast producer, prints
 * {@code SCALE <servers> <records> <produce ms> <key bytes> <value bytes>}, then serves commands on stdin:
 * {@code PRODUCE <first> <count>} produces keys {@code first .. first+count-1} and prints
 * {@code PRODUCED <count> <ms>}. Stdin closed: the broker stops (the harness deletes its data with the rest of its
 * working directory).
 *
 * <p>The topic is named as the bootstrap part's, so that the bare consumer ({@link BootstrapFeed} {@code --consume})
 * and the reader programs run on it unchanged. It is compacted, as reference data is, with a week's
 * {@code min.compaction.lag.ms}: every key is distinct, so the cleaner would only rewrite the log while the writer
 * reads it, CPU taken from the two cores the measurement shares.
 *
 * <p>Usage: {@code ScaleFeed <data dir> <records>}.
 */
public final class ScaleFeed {
    static final int PARTITIONS = 6;

    private ScaleFeed() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = Files.createDirectories(Path.of(args[0]));
        long records = Long.parseLong(args[1]);
        // 1 GiB segments: a 100M-record log in 16 MiB segments (the demo's) would be ~500 files of logs and indexes.
        try (EmbeddedKafka kafka =
                EmbeddedKafka.start(dataDir, Map.of("log.segment.bytes", Integer.toString(1 << 30)))) {
            FeedTopics.createCompacted(
                    kafka.bootstrapServers(),
                    BootstrapFeed.TOPIC,
                    PARTITIONS,
                    Map.of("min.compaction.lag.ms", Long.toString(TimeUnit.DAYS.toMillis(7))));
            // The fast producer the issue asks for: large batches, lz4, the leader's acknowledgement only.
            Map<String, Object> config = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.bootstrapServers(),
                    ProducerConfig.LINGER_MS_CONFIG,
                    50,
                    ProducerConfig.BATCH_SIZE_CONFIG,
                    1 << 20,
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "lz4",
                    ProducerConfig.ACKS_CONFIG,
                    "1",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    false,
                    ProducerConfig.BUFFER_MEMORY_CONFIG,
                    128L << 20);
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
                long start = System.nanoTime();
                long[] bytes = produce(producer, 0, records);
                System.out.println("SCALE " + kafka.bootstrapServers() + " " + records + " "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " " + bytes[0] + " " + bytes[1]);
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    String[] command = line.trim().split(" ");
                    if (command[0].equals("PRODUCE")) {
                        long t0 = System.nanoTime();
                        long count = Long.parseLong(command[2]);
                        produce(producer, Long.parseLong(command[1]), count);
                        System.out.println(
                                "PRODUCED " + count + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
                        System.out.flush();
                    }
                }
            }
        }
    }

    /** Produces keys {@code first ..} and waits for every acknowledgement; returns the key and value bytes sent. */
    private static long[] produce(KafkaProducer<byte[], byte[]> producer, long first, long count) {
        AtomicLong failed = new AtomicLong();
        AtomicReference<Exception> firstFailure = new AtomicReference<>();
        Callback callback = (metadata, e) -> {
            if (e != null) {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, e);
            }
        };
        long keyBytes = 0;
        long valueBytes = 0;
        for (long i = first; i < first + count; i++) {
            byte[] key = ScaleData.keyBytes(i);
            byte[] value = ScaleData.valueBytes(i);
            keyBytes += key.length;
            valueBytes += value.length;
            producer.send(new ProducerRecord<>(BootstrapFeed.TOPIC, key, value), callback);
        }
        producer.flush();
        if (failed.get() > 0) {
            throw new IllegalStateException(
                    failed.get() + " of " + count + " records were not acknowledged", firstFailure.get());
        }
        return new long[] {keyBytes, valueBytes};
    }
}
