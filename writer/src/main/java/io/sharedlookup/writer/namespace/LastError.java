package io.sharedlookup.writer.namespace;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A namespace's last error as {@code /namespaces} shows it ({@code lastError}), and whether its topic is paused
 * because of it (state {@code STALLED}). A stall's message shows while the stall lasts; otherwise the error of the
 * step that failed most recently among those still failing (a checkpoint, a publish, growth), so that one step
 * succeeding does not hide another that still fails.
 */
final class LastError {
    /**
     * The step key growth reports under: its failure ends when a bigger generation is switched to, or when growth is
     * no longer needed and its retry time has passed.
     */
    static final String GROWTH = "growth";

    /** Steps failing now, by key, the most recent failure last. */
    private final Map<String, String> failingSteps = new LinkedHashMap<>();
    /**
     * The stall's message while the namespace waits for what its topic was paused for (past the pause too, until
     * {@link #stallOver}); null when no stall is on.
     */
    private String stall;

    private long stalledUntilNanos;

    /** The stall's message while one is on, else the error of the step that failed most recently of those failing. */
    String get() {
        if (stall != null) {
            return stall;
        }
        String latest = null;
        for (String error : failingSteps.values()) {
            latest = error;
        }
        return latest;
    }

    void clear() {
        failingSteps.clear();
        stall = null;
    }

    /**
     * Step {@code step} failed with {@code error}: shown unless a stall is, whose message says what to do about the
     * cause they most likely share (a full volume refuses the manifest and the bigger generation too). Only a new
     * stall replaces a stall's message, so that it does not alternate with a step's every time that step is retried.
     */
    void stepFailed(String step, String error) {
        failingSteps.remove(step); // re-inserted last: the most recent
        failingSteps.put(step, error);
    }

    /**
     * Step {@code step} succeeded: its error is over, and another step's that still fails shows instead. A stall's
     * message still shows meanwhile: it is over only when what the stall waited for is done ({@link #stallOver}).
     */
    void stepSucceeded(String step) {
        failingSteps.remove(step);
    }

    /** The namespace cannot take the record now: the topic pauses, and the status says STALLED meanwhile. */
    Applied.Stalled stall(String error, long retryMillis) {
        stall = error;
        stalledUntilNanos = System.nanoTime() + retryMillis * 1_000_000L;
        return new Applied.Stalled(error, retryMillis);
    }

    /**
     * What the topic was paused for was done (a record stored, a key removed, the generation the records wait for
     * created): the error that paused it, if any, is over; a step still failing shows instead.
     */
    void stallOver() {
        stall = null;
    }

    /** Step {@code step}'s error while it fails, else null. */
    String failing(String step) {
        return failingSteps.get(step);
    }

    /**
     * What {@code /namespaces} shows, {@code growthWaits} saying whether growth waits for its retry time (the state is
     * then STALLED): a stall's message until what it waited for is done, past its pause too; else, while growth
     * waits, growth's failure, which says why; else {@link #get()}.
     */
    String shown(boolean growthWaits) {
        String growth = failingSteps.get(GROWTH);
        return stall == null && growthWaits && growth != null ? growth : get();
    }

    /** Whether the topic is still paused for a stall at {@code nowNanos}. */
    boolean stalledAt(long nowNanos) {
        return stall != null && nowNanos - stalledUntilNanos < 0;
    }
}
