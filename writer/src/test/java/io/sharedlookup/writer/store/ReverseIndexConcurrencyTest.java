package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * During growth the background copy and the ingest thread both write the new generation, so both update its reverse
 * index at once (issue #13 item 4: a shared buffer and an unsynchronised read-modify-write gave wrong key lists and
 * exceptions). Two threads put disjoint keys sharing values; afterwards every value's key list must be exact.
 */
class ReverseIndexConcurrencyTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);
    private static final int KEYS_PER_THREAD = 3000;
    private static final int VALUES = 200; // 30 keys per value: well under the index's "scan" limit

    @TempDir
    Path dir;

    @Test
    void reverseIndex_updatedFromTwoThreads_listsExactlyTheKeysOfEachValue() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (GenerationFile g = GenerationFile.create(
                file, GenerationSizing.forExpected(2 * KEYS_PER_THREAD, 5, 4), StorePermissions.DEFAULT, true)) {
            ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (String prefix : List.of("a", "b")) {
                threads.add(new Thread(
                        () -> {
                            try {
                                start.await();
                                for (int i = 0; i < KEYS_PER_THREAD; i++) {
                                    g.put(prefix + i, "v" + (i % VALUES), TIMEOUT);
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        },
                        "writer-" + prefix));
            }
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(errors).isEmpty();
            Map<String, List<String>> expected = new HashMap<>();
            for (String prefix : List.of("a", "b")) {
                for (int i = 0; i < KEYS_PER_THREAD; i++) {
                    expected.computeIfAbsent("v" + (i % VALUES), v -> new ArrayList<>())
                            .add(prefix + i);
                }
            }
            for (Map.Entry<String, List<String>> e : expected.entrySet()) {
                assertThat(g.keysOf(e.getKey(), TIMEOUT))
                        .as("keys of %s", e.getKey())
                        .hasValueSatisfying(keys -> assertThat(keys).containsExactlyInAnyOrderElementsOf(e.getValue()));
            }
        }
    }
}
