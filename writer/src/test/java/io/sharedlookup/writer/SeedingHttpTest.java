package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.Ports;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --seed} copies and checks whole snapshots before ingestion starts, which for a large store takes minutes: HTTP
 * must answer meanwhile, or a liveness probe restarts the writer, which seeds again, for ever. The seeding here is the
 * real one, of a real snapshot, held at its start until the test has looked.
 */
class SeedingHttpTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static void awaitReady(int port) {
        await("writer ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(port, "/ready").statusCode() == 200);
    }

    @Test
    void whileSeedingHealthAnswers200SeedingAndReady503WithTheReason() throws Exception {
        kafka.createTopic("seed-http", 1);
        for (int i = 0; i < 10; i++) {
            kafka.send("seed-http", "k" + i, "v" + i);
        }
        kafka.flush();
        Path peer = TestKafka.tempStore();
        List<TopicBinding> topics = List.of(new TopicBinding("seed-http", "seed-http"));
        try (WriterApp app = WriterApp.start(
                WriterConfig.builder(kafka.bootstrap(), peer)
                        .topics(topics)
                        .httpPort(0)
                        .build(),
                new PrintStream(new ByteArrayOutputStream()))) {
            awaitReady(app.httpPort());
        }
        Path snapshot = TestKafka.tempStore().resolve("snapshot");
        Snapshots.take(peer, "seed-http", snapshot, StorePermissions.DEFAULT);

        int port = Ports.freePort();
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(topics)
                .httpPort(port)
                .seed(Optional.of(snapshot))
                .build();
        CountDownLatch seedingBegan = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        Seeding.Seeder heldUp = (dir, writer, binding, attributes) -> {
            seedingBegan.countDown();
            try {
                goOn.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            WriterApp.seed(dir, writer, binding, attributes);
        };
        CompletableFuture<WriterApp> starting = CompletableFuture.supplyAsync(() -> {
            try {
                return WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()), heldUp);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(seedingBegan.await(60, TimeUnit.SECONDS))
                    .as("seeding began")
                    .isTrue();
            HttpResponse<String> health = Http.get(port, "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("seeding namespace 'seed-http' from snapshot");
            HttpResponse<String> ready = Http.get(port, "/ready");
            assertThat(ready.statusCode()).isEqualTo(503);
            assertThat(ready.body()).contains("seed-http", "seeding namespace");
        } finally {
            goOn.countDown();
        }
        try (WriterApp app = starting.get(60, TimeUnit.SECONDS)) {
            awaitReady(port);
            assertThat(Http.get(port, "/health").body()).isEqualTo("ok\n");
            assertThat(Http.metric(
                            Http.get(port, "/metrics").body(),
                            "sharedlookup_writer_resumes_total{namespace=\"seed-http\"}"))
                    .as("seeded, then resumed")
                    .isEqualTo(1);
        }
    }
}
