package io.sharedlookup.writer.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupStatus;
import io.sharedlookup.reader.LookupStatus.WriterState;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.WriterMain;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real writer in its own JVM, a real broker, and a reader in this JVM: the reader tells a live writer (paused for
 * under a second included) from one stopped or killed, by the heartbeat in the store, and lookups keep answering.
 */
class WriterLivenessTest {
    private static final Path LOGS = Path.of("target", "child-logs");
    private static final int KEYS = 200;

    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static WriterProcess writer(String topic, Path store) throws Exception {
        kafka.createTopic(topic, 1);
        for (int i = 0; i < KEYS; i++) {
            kafka.send(topic, "k" + i, "v" + i);
        }
        kafka.flush();
        WriterProcess w = WriterProcess.start(
                args -> ChildJvm.start(topic, LOGS, WriterMain.class, args), kafka.bootstrap(), store, topic);
        w.awaitReady(Duration.ofSeconds(90));
        return w;
    }

    private static void assertAnswers(Lookup lookup) {
        for (int i = 0; i < KEYS; i += 7) {
            assertThat(lookup.get("k" + i)).isEqualTo("v" + i);
        }
    }

    @Test
    void aKilledWriterLooksDeadWithinTwoSecondsAndLookupsKeepAnswering() throws Exception {
        Path store = TestKafka.tempStore();
        WriterProcess w = writer("killed", store);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            Lookup lookup = reader.lookup("killed");
            await().atMost(Duration.ofSeconds(5)).until(() -> lookup.status().writerAlive());
            LookupStatus alive = lookup.status();
            assertThat(alive.writerLastSeen()).isNotNull();
            assertThat(alive.currentAsOf()).isNotNull().isBefore(Instant.now().plusSeconds(1));
            assertThat(alive.lagRecords()).isGreaterThanOrEqualTo(-1);

            w.jvm.kill(); // SIGKILL; returns once the process is gone
            long killed = System.nanoTime();
            await().atMost(Duration.ofSeconds(3))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> lookup.status().writer() == WriterState.NOT_ALIVE);
            long millis = (System.nanoTime() - killed) / 1_000_000;
            assertThat(millis).as("ms from kill -9 to not alive").isLessThan(2_000);
            assertThat(lookup.status().writerLastSeen()).isNotNull();
            assertAnswers(lookup);
        } finally {
            w.close();
        }
    }

    @Test
    void aWriterPausedUnderASecondStaysAliveAndOneStoppedForFiveSecondsIsNotAliveThenBack() throws Exception {
        Path store = TestKafka.tempStore();
        WriterProcess w = writer("paused", store);
        try (SharedLookupStore reader = SharedLookupStore.open(store)) {
            Lookup lookup = reader.lookup("paused");
            await().atMost(Duration.ofSeconds(5)).until(() -> lookup.status().writerAlive());

            List<WriterState> during = new ArrayList<>();
            signal("STOP", w.jvm.pid());
            long stopped = System.nanoTime();
            try {
                while (System.nanoTime() - stopped < 800_000_000L) { // the pause itself: 0.8 s of looking
                    during.add(lookup.status().writer());
                    assertAnswers(lookup);
                }
            } finally {
                signal("CONT", w.jvm.pid());
            }
            assertThat(during).isNotEmpty().containsOnly(WriterState.ALIVE);

            signal("STOP", w.jvm.pid());
            stopped = System.nanoTime();
            try {
                await().atMost(Duration.ofSeconds(3))
                        .pollInterval(Duration.ofMillis(10))
                        .until(() -> lookup.status().writer() == WriterState.NOT_ALIVE);
                assertThat((System.nanoTime() - stopped) / 1_000_000)
                        .as("ms to not alive")
                        .isLessThan(2_000);
                assertAnswers(lookup);
                during.clear();
                while (System.nanoTime() - stopped < 5_000_000_000L) { // the rest of the 5 s stop
                    during.add(lookup.status().writer());
                    LockSupport.parkNanos(50_000_000L); // pacing the looks, not synchronisation
                }
                assertThat(during).isNotEmpty().containsOnly(WriterState.NOT_ALIVE);
            } finally {
                signal("CONT", w.jvm.pid());
            }
            await().atMost(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> lookup.status().writerAlive());
            assertAnswers(lookup);
        } finally {
            w.close();
        }
    }

    private static void signal(String name, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, pid).isZero();
    }
}
