package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.CapturedLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a store while its refresh thread is reading a manifest is a normal stop, not a failure to follow the
 * writer: it must log nothing (issue #13: after close() the refresh thread logged a warning about the interrupted read).
 */
class StoreCloseTest {
    @TempDir
    Path store;

    @Test
    void close_whileTheRefreshThreadReadsTheManifest_logsNoWarning() throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        List<String> warnings;
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"));
                CapturedLog log = CapturedLog.of(LiveLookup.class)) {
            // The writer publishes new generations all along, so closes also land while a refresh maps one.
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong republished = new AtomicLong();
            AtomicReference<Throwable> republishFailed = new AtomicReference<>();
            Thread writer = new Thread(
                    () -> {
                        try {
                            for (int g = 0; !stop.get(); g++) {
                                published.republish(Map.of("1", "Ada " + g));
                                republished.incrementAndGet();
                            }
                        } catch (Throwable e) {
                            republishFailed.set(e);
                        }
                    },
                    "republisher");
            writer.start();
            try {
                for (int i = 0; i < 1000; i++) {
                    SharedLookupStore s = SharedLookupStore.builder(store)
                            .refreshInterval(Duration.ofMillis(1))
                            .open();
                    s.lookup("users");
                    long until = System.nanoTime() + random.nextLong(1_500_000); // close at a random point of a refresh
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    s.close();
                }
            } finally {
                stop.set(true);
                writer.join(30_000);
            }
            assertThat(republishFailed.get()).as("the republisher's failure").isNull();
            assertThat(republished.get())
                    .as("generations published while stores closed")
                    .isGreaterThan(10);
            warnings = log.warnings();
        }
        // (A reader that falls two generations behind within milliseconds may rightly warn that a file is gone: the
        // republisher here is that fast. Only warnings caused by the close itself are wrong.)
        assertThat(warnings)
                .noneMatch(m -> m.contains("Interrupt")
                        || m.contains("ClosedChannel")
                        || m.contains("AsynchronousClose")
                        || m.contains("is closed"));
    }
}
