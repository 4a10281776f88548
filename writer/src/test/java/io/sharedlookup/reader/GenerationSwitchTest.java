package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads reading while generations are switched under them: every answer comes from some published generation
 * (never a torn or unmapped one), and every replaced generation is unmapped once the calls on it have returned.
 */
class GenerationSwitchTest {
    private static final int KEYS = 500;

    @TempDir
    Path store;

    @Test
    void readersRacingGenerationSwitchesSeeWholeGenerationsAndOldOnesGetReleased() throws Exception {
        try (TestStores.Published published = TestStores.publish(store, "users", content(1));
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .refreshInterval(Duration.ofMillis(1))
                        .open()) {
            Lookup users = s.lookup("users");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong lookups = new AtomicLong();
            ConcurrentLinkedQueue<String> bad = new ConcurrentLinkedQueue<>();
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                Thread reader = new Thread(() -> {
                    StringBuilder key = new StringBuilder();
                    StringBuilder value = new StringBuilder();
                    try {
                        for (int i = seed; !stop.get(); i += 7) {
                            int k = i % KEYS;
                            key.setLength(0);
                            key.append("k").append(k);
                            if (!users.getInto(key, value) || !value.toString().startsWith("v" + k + "@")) {
                                bad.add(key + " -> " + value);
                            }
                            lookups.incrementAndGet();
                        }
                    } catch (Throwable e) { // a lookup racing a switch that throws is as wrong as a torn value
                        bad.add("reader " + seed + " failed at " + key + ": " + e);
                    }
                });
                reader.start();
                readers.add(reader);
            }
            List<Path> replaced = new ArrayList<>();
            for (int generation = 2; generation <= 12; generation++) {
                replaced.add(published.generation.file());
                published.republish(content(generation));
                long g = generation;
                await().atMost(Duration.ofSeconds(5)).until(() -> users.generation() == g);
                // some lookups on each new generation before the next switch
                long before = lookups.get();
                await().atMost(Duration.ofSeconds(5)).until(() -> lookups.get() >= before + 2_000 || !bad.isEmpty());
            }
            stop.set(true);
            for (Thread reader : readers) {
                reader.join(30_000);
            }
            assertThat(bad).isEmpty();
            assertThat(lookups.get()).isGreaterThan(1000);
            for (Path file : replaced) {
                await().atMost(Duration.ofSeconds(5)).until(() -> SharedLookupStoreTest.unmappedAfterGc(file));
            }
            assertThat(mapped(published.generation.file())).isTrue();
        }
    }

    private static Map<String, String> content(int round) {
        Map<String, String> content = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            content.put("k" + i, "v" + i + "@" + round);
        }
        return content;
    }

    private static boolean mapped(Path file) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .anyMatch(l -> l.endsWith(file.toAbsolutePath().toString())
                        || l.endsWith(file.toAbsolutePath() + " (deleted)"));
    }
}
