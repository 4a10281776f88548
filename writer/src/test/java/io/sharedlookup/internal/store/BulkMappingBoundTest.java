package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupTimeoutException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lookup that needs an extra tier bulk mapped first waits for that at most the store's lock timeout: a mapping that
 * hangs (a hung network file system) fails those lookups within the bound, and holds up no other generation.
 */
class BulkMappingBoundTest {
    private static final Duration LOCK_TIMEOUT = Duration.ofMillis(200);

    @TempDir
    Path store;

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void unhang() {
        release.countDown();
        TierBulks.beforeMapping = file -> {};
    }

    @Test
    void aBulkMappingThatHangs_failsItsLookupsWithinTheBound_andOtherGenerationsAreUnaffected() throws Exception {
        Map<String, String> content = new LinkedHashMap<>();
        for (int i = 0; i < 2_500; i++) {
            content.put("key-" + i, "value " + i);
        }
        try (NamespaceDirectory slowWriter = publishWithExtraTiers("slow", content);
                NamespaceDirectory fastWriter = publishWithExtraTiers("fast", content);
                SharedLookupStore s = SharedLookupStore.builder(store)
                        .lockTimeout(LOCK_TIMEOUT)
                        .open()) {
            Path slowDir = store.resolve("slow");
            TierBulks.beforeMapping = file -> {
                if (file.startsWith(slowDir)) {
                    try {
                        release.await(30, TimeUnit.SECONDS); // bounded: a thread left hanging ends with the test
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
            Lookup slow = s.lookup("slow");
            Lookup fast = s.lookup("fast");

            // in another thread: the code before the fix waited for the mapping for ever
            CompletableFuture<long[]> slowLookups = CompletableFuture.supplyAsync(() -> {
                ValueBuffer value = new ValueBuffer();
                long[] failedAfterMillis = new long[2];
                int failed = 0;
                for (String key : content.keySet()) {
                    long start = System.nanoTime();
                    try {
                        if (!slow.getInto(key, value) || !value.toString().equals(content.get(key))) {
                            throw new AssertionError(key + " read as " + value);
                        }
                    } catch (LookupTimeoutException e) {
                        failedAfterMillis[failed++] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                        assertThat(value.found()).isFalse();
                        assertThat(value.length())
                                .as("the previous key's value is not left")
                                .isZero();
                        assertThat(e.getMessage()).contains("slow").contains("lock timeout");
                        if (failed == failedAfterMillis.length) {
                            return failedAfterMillis;
                        }
                    }
                }
                throw new AssertionError("no key of 'slow' needed an extra tier bulk");
            });
            long[] failedAfterMillis = slowLookups.get(10, TimeUnit.SECONDS);
            for (long ms : failedAfterMillis) {
                assertThat(ms)
                        .as("ms until a lookup waiting for the hung mapping failed")
                        .isBetween(LOCK_TIMEOUT.toMillis() - 1, 5_000L);
            }

            // the other generation maps its bulks and answers every key while the first one's mapping still hangs
            CompletableFuture<Void> fastLookups = CompletableFuture.runAsync(
                    () -> content.forEach((k, v) -> assertThat(fast.get(k)).isEqualTo(v)));
            fastLookups.get(10, TimeUnit.SECONDS);

            release.countDown(); // the mapping ends: later lookups use it
            await().atMost(Duration.ofSeconds(10))
                    .ignoreExceptions()
                    .untilAsserted(() ->
                            content.forEach((k, v) -> assertThat(slow.get(k)).isEqualTo(v)));
        }
    }

    /** A generation with far too few entries for its content, so that segments overflow into extra tier bulks. */
    private NamespaceDirectory publishWithExtraTiers(String namespace, Map<String, String> content) throws Exception {
        NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
        try (GenerationFile generation = writer.createGeneration(new GenerationSizing(1024, 4, 4, 8.0), false)) {
            content.forEach((k, v) -> generation.put(k, v, TestStores.TIMEOUT));
            assertThat(Files.size(generation.file()))
                    .as("extra tier bulks were added")
                    .isGreaterThan(
                            generation.layout().baseSize() + generation.layout().tierBulkSize());
            writer.publish(generation, "topic", Map.of(0, (long) content.size()), true, Map.of());
        }
        return writer;
    }
}
