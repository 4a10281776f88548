package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** One line per interval, whatever the flood; what was left out is counted in the next line. */
class RateLimitedLogTest {
    private final Captured logger = new Captured();

    @Test
    void aFloodWithinTheIntervalLogsItsFirstLineOnly() {
        RateLimitedLog log = new RateLimitedLog(logger, 60_000);
        for (int i = 0; i < 100; i++) {
            log.warn("record {} is bad", i);
        }
        assertThat(logger.lines).containsExactly("WARN record 0 is bad");
    }

    @Test
    void theFirstLineAfterTheIntervalCountsWhatWasLeftOut() {
        RateLimitedLog log = new RateLimitedLog(logger, 100);
        int calls = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (logger.lines.size() < 2 && System.nanoTime() < deadline) { // no sleep: flooding until the interval ends
            log.error("step failed: {}", "disk full");
            calls++;
        }
        assertThat(calls).isGreaterThan(2);
        assertThat(logger.lines)
                .containsExactly(
                        "ERROR step failed: disk full",
                        "ERROR step failed: disk full (" + (calls - 2) + " similar messages suppressed)");
    }

    @Test
    void aThrowableStaysLastSoItsStackTraceIsStillPrinted() {
        RateLimitedLog log = new RateLimitedLog(logger, 100);
        IllegalStateException cause = new IllegalStateException("boom");
        int calls = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (logger.lines.size() < 2 && System.nanoTime() < deadline) {
            log.warn("cannot {}", "publish", cause);
            calls++;
        }
        assertThat(logger.lines.get(1))
                .isEqualTo("WARN cannot publish (" + (calls - 2) + " similar messages suppressed)");
        assertThat(logger.throwables).containsExactly(cause, cause);
    }

    /** Issue 40: the suppressed count rode on the next message, which may never come; the offsets were lost. */
    @Test
    void whatWasSuppressedIsSummarisedWhenNoFurtherMessageComes() {
        RateLimitedLog log = new RateLimitedLog(logger, 200);
        for (int offset = 7; offset <= 9; offset++) {
            log.warn("Skipped a record at users-0 offset {}", offset);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> logger.lines.size() == 2);
        assertThat(logger.lines)
                .containsExactly(
                        "WARN Skipped a record at users-0 offset 7",
                        "WARN 2 similar messages were suppressed (one is logged per 200 ms); the last: Skipped a record at "
                                + "users-0 offset 9");
        // Taken once: a message after the interval starts a new count.
        log.error("step failed: {}", "disk full");
        log.error("step failed: {}", "disk still full");
        await().atMost(Duration.ofSeconds(10)).until(() -> logger.lines.size() == 4);
        assertThat(logger.lines.subList(2, 4))
                .containsExactly(
                        "ERROR step failed: disk full",
                        "ERROR 1 similar message was suppressed (one is logged per 200 ms); the last: step failed: disk "
                                + "still full");
    }

    /** A logger that keeps each line it is given, formatted, with its level. */
    private static final class Captured extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;

        // slf4j's loggers are Serializable; this one never is serialized, so its captures are transient.
        // The summary thread adds lines too.
        final transient List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
        final transient List<Throwable> throwables = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(
                Level level, Marker marker, String pattern, Object[] arguments, Throwable throwable) {
            lines.add(level + " " + MessageFormatter.basicArrayFormat(pattern, arguments));
            if (throwable != null) {
                throwables.add(throwable);
            }
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }
}
