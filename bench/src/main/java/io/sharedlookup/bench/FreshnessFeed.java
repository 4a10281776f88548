package io.sharedlookup.bench;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka side of {@link FreshnessHarness}, in a JVM of its own on the demo's executable jar (which holds Kafka and
 * {@link EmbeddedKafka}; the writer's jar has no broker): starts a single-node broker, creates the topic, prints {@code BOOTSTRAP <servers>}, then for
 * every {@code RATE <updates/s> <seconds>} line on stdin produces at that rate and answers
 * {@code SENT <count> <last sequence number>}.
 *
 * <p>Record {@code n} updates key {@code f<n % keys>} to {@code "<n>:<System.nanoTime() at send>"}; the reader JVM on
 * the same host reads the same monotonic clock (Linux {@code CLOCK_MONOTONIC}) to compute produce-to-visible time.
 */
public final class FreshnessFeed {
    static final String TOPIC = "fresh";
    static final int KEYS = 64;

    private FreshnessFeed() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = Files.createTempDirectory("freshness-kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dataDir)) {
            FeedTopics.createCompacted(kafka.bootstrapServers(), TOPIC, 1, Map.of());
            Map<String, Object> config = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.bootstrapServers(),
                    ProducerConfig.LINGER_MS_CONFIG,
                    0,
                    ProducerConfig.ACKS_CONFIG,
                    "all");
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                System.out.println("BOOTSTRAP " + kafka.bootstrapServers());
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                long n = 0;
                String line;
                while ((line = in.readLine()) != null && line.startsWith("RATE ")) {
                    String[] parts = line.split(" ");
                    int rate = Integer.parseInt(parts[1]);
                    double seconds = Double.parseDouble(parts[2]);
                    long count = (long) (rate * seconds);
                    long period = TimeUnit.SECONDS.toNanos(1) / rate;
                    long start = System.nanoTime();
                    for (long i = 0; i < count; i++) {
                        long due = start + i * period;
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(Math.min(wait, 200_000));
                        }
                        long seq = n++;
                        producer.send(new ProducerRecord<>(TOPIC, "f" + (seq % KEYS), seq + ":" + System.nanoTime()));
                    }
                    producer.flush();
                    System.out.println("SENT " + count + " " + (n - 1)); // and the last sequence number
                    System.out.flush();
                }
            }
        }
    }
}
