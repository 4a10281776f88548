package io.sharedlookup.druid.cluster;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/** DruidClusterIT's small helpers: waiting for a condition with a diagnosis on failure, SQL literals, timings. */
final class Checks {
    private Checks() {}

    static void awaitOrFail(String what, Duration atMost, Callable<Boolean> condition, Supplier<String> diagnosis) {
        awaitOrFail(what, atMost, Duration.ofMillis(250), condition, diagnosis);
    }

    static void awaitOrFail(
            String what,
            Duration atMost,
            Duration pollInterval,
            Callable<Boolean> condition,
            Supplier<String> diagnosis) {
        try {
            await(what)
                    .atMost(atMost)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(pollInterval)
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + ": not within " + atMost + "\n" + diagnosis.get(), e);
        }
    }

    /**
     * {@link #awaitOrFail}, but when {@code condition} has not held within {@code first}, reports
     * {@code onSlow} (what the nodes are doing) and waits on, up to {@code atMost} in all: for a wait that is known to
     * stall now and then, so that the stall is seen and diagnosed without failing the run. (Loading lookups: a node
     * has twice started one sharedLookup of a batch and the others only a minute later, cause not found yet.)
     */
    static void awaitReportingStalls(
            String what,
            Duration first,
            Duration atMost,
            Callable<Boolean> condition,
            Supplier<String> diagnosis,
            Consumer<String> onSlow,
            Supplier<String> slowState) {
        try {
            await(what)
                    .atMost(first)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(250))
                    .until(condition);
        } catch (ConditionTimeoutException e) {
            onSlow.accept(what + ": not within " + first + ", waiting up to " + atMost + "; " + slowState.get());
            awaitOrFail(what, atMost.minus(first), condition, diagnosis);
        }
    }

    static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }
}
