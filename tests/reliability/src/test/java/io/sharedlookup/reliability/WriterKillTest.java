package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario a: the writer is killed with SIGKILL at a random (seeded) moment while it builds a generation from the
 * topic (bootstrap) and while it applies a steady stream of updates. After each restart the store must equal the
 * topic's latest value per key, as read by an independent consumer. Figures: rebuild time (restart → ready) and
 * the time until the store equals the topic.
 *
 * <p>Full form only ({@code tests/reliability/run}). The default build keeps the kills in the writer's
 * {@code WriterCrashTest.killedDuringBootstrapAndSteadyUpdatesThenRestartedConverges}: ten kills alternating between
 * bootstrap (at a seeded 0-1.5 s after {@code new generation}, at least three of them before a generation was
 * published) and steady updates with tombstones, then one restart that must rebuild and converge to the topic, and a
 * clean stop after which the next writer resumes. What only this full form checks: that the store equals the topic
 * after <em>every</em> restart (20 of them), not only after the last kill, and the rebuild and convergence figures.
 */
@EnabledIfSystemProperty(
        named = "reliability.full",
        matches = "true",
        disabledReason = "full form only (tests/reliability/run); the default build runs WriterCrashTest's kills")
@Timeout(value = 40, unit = java.util.concurrent.TimeUnit.MINUTES)
class WriterKillTest {
    private static final long SEED = 0xA1L;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    @Test
    void killedAtRandomMomentsTheRestartedWriterConvergesToTheTopic() throws Exception {
        int trials = 20; // full form only: the short form's kills are WriterCrashTest's
        String topic = "kill";
        broker.createTopic(topic, 3);
        Random random = new Random(SEED);
        // Enough history that a rebuild takes a few seconds, so that bootstrap kills land inside it.
        for (int i = 0; i < 100_000; i++) {
            broker.send(topic, "k" + (i % 10_000), "initial-" + i);
        }
        broker.flush();
        Path store = Stores.temp("kill-");
        List<String> failures = new ArrayList<>();
        long worstRebuild = 0;
        long worstConverge = 0;
        for (int trial = 0; trial < trials; trial++) {
            boolean bootstrap = trial % 2 == 0;
            long killDelay = bootstrap ? random.nextInt(1500) : 200 + random.nextInt(2000);
            SeededUpdates updater = new SeededUpdates(broker, topic, new Random(SEED + trial));
            updater.start();
            try (WriterProcess victim = Children.writer("kill-victim-" + trial, broker.bootstrap(), store, topic)) {
                if (bootstrap) {
                    victim.jvm.awaitLine(Duration.ofSeconds(60), l -> l.contains("new generation"));
                } else {
                    victim.awaitReady(Duration.ofSeconds(120));
                }
                // The moment is chosen by the seed, not by what the writer is doing.
                LockSupport.parkNanos(Duration.ofMillis(killDelay).toNanos());
                victim.kill();
            } finally {
                updater.stopAndJoin();
            }
            long restart = System.nanoTime();
            try (WriterProcess next = Children.writer("kill-restart-" + trial, broker.bootstrap(), store, topic)) {
                next.awaitReady(Duration.ofSeconds(120));
                long rebuilt = System.nanoTime();
                worstRebuild = Math.max(worstRebuild, (rebuilt - restart) / 1_000_000);
                Map<String, String> expected = broker.latest(topic);
                AtomicReference<String> lastDiff = new AtomicReference<>();
                try {
                    await("store equals the topic")
                            .atMost(Duration.ofSeconds(60))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> {
                                lastDiff.set(Contents.diff(Stores.dump(store, topic), expected));
                                return lastDiff.get() == null;
                            });
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    failures.add("trial " + trial + (bootstrap ? " (bootstrap)" : " (steady)") + ": " + lastDiff.get());
                }
                worstConverge = Math.max(worstConverge, (System.nanoTime() - restart) / 1_000_000);
                if (trial == trials - 1) {
                    assertThat(next.jvm.printed(l -> l.contains("did not stop cleanly")))
                            .as("the restart after a kill rebuilds")
                            .isTrue();
                    assertThat(next.jvm.terminate(Duration.ofSeconds(15)))
                            .as("exit code after SIGTERM")
                            .isIn(0, 143);
                }
            }
        }
        // After the last clean stop the next writer resumes instead of rebuilding.
        long restart = System.nanoTime();
        long resumeMillis;
        try (WriterProcess resumed = Children.writer("kill-resume", broker.bootstrap(), store, topic)) {
            resumed.awaitReady(Duration.ofSeconds(60));
            resumeMillis = (System.nanoTime() - restart) / 1_000_000;
            assertThat(resumed.jvm.printed(l -> l.contains("resuming generation")))
                    .isTrue();
            assertThat(Contents.diff(Stores.dump(store, topic), broker.latest(topic)))
                    .isNull();
        }
        Suite.figures(
                "a-writer-kill",
                "writer kill -9 during bootstrap and steady updates",
                SEED,
                trials,
                failures.size(),
                worstConverge,
                -1,
                "worst restart->ready (rebuild) " + worstRebuild + " ms; restart->store equals topic "
                        + worstConverge + " ms; resume after clean stop " + resumeMillis + " ms; 10,000 keys, "
                        + "100,000-record history");
        assertThat(failures).isEmpty();
    }
}
