package io.sharedlookup.druid.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/** DruidClusterIT's small helpers: waiting for a condition with a diagnosis on failure, SQL literals, timings. */
final class Checks {
    private Checks() {
    }

    static void awaitOrFail(String what, Duration atMost, Callable<Boolean> condition, Supplier<String> diagnosis) {
        awaitOrFail(what, atMost, Duration.ofMillis(250), condition, diagnosis);
    }

    static void awaitOrFail(String what, Duration atMost, Duration pollInterval, Callable<Boolean> condition,
                            Supplier<String> diagnosis) {
        try {
            await(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(pollInterval).until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + ": not within " + atMost + "\n" + diagnosis.get(), e);
        }
    }

    static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }
}
