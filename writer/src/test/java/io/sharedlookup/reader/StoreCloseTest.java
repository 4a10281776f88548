package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.testing.TestStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Closing a store while its refresh thread is reading a manifest is a normal stop, not a failure to follow the
 * writer: it must log nothing (issue #13: after close() the refresh thread logged a warning about the interrupted read).
 */
class StoreCloseTest {
    @TempDir
    Path store;

    @Test
    void close_whileTheRefreshThreadReadsTheManifest_logsNoWarning() throws Exception {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(LiveLookup.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        SplittableRandom random = new SplittableRandom(11);
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada"))) {
            // The writer publishes new generations all along, so closes also land while a refresh maps one.
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread writer = new Thread(() -> {
                for (int g = 0; !stop.get(); g++) {
                    try {
                        published.republish(Map.of("1", "Ada " + g));
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            }, "republisher");
            writer.start();
            for (int i = 0; i < 1000; i++) {
                SharedLookupStore s = SharedLookupStore.builder(store).refreshInterval(Duration.ofMillis(1)).open();
                s.lookup("users");
                long until = System.nanoTime() + random.nextLong(1_500_000); // close at a random point of a refresh
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                s.close();
            }
            stop.set(true);
            writer.join();
        } finally {
            logger.detachAppender(appender);
        }
        // (A reader that falls two generations behind within milliseconds may rightly warn that a file is gone: the
        // republisher here is that fast. Only warnings caused by the close itself are wrong.)
        assertThat(appender.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                .extracting(ILoggingEvent::getFormattedMessage)
                .filteredOn(m -> m.contains("Interrupt")).isEmpty();
    }
}
