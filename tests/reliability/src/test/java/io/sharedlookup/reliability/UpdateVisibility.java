package io.sharedlookup.reliability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How soon each reader saw each update of the saturated-host scenario: from the times the producer sent updates, the
 * windows the writer was frozen, and each reader's first-seen times (nanoTime, one host). Three views:
 * <ul>
 *   <li>{@link #sentToSeen()}: send to each reader's sight, frozen time excluded — what the scenario bounds;</li>
 *   <li>{@link #sentToFirstSeen()}: send to the first reader's sight — the broker's and the writer's share (apply
 *       comes before any sight);</li>
 *   <li>{@link #firstSeenToSeen()}: the first reader's sight to each other's, frozen time excluded — the readers' own
 *       share (waiting on a segment, waiting for a core).</li>
 * </ul>
 */
final class UpdateVisibility {
    /** Time the writer was frozen: from just before SIGSTOP to just after SIGCONT returned. */
    record Stop(long fromNanos, long toNanos) {
        long overlap(long from, long to) {
            return Math.max(0, Math.min(to, toNanos) - Math.max(from, fromNanos));
        }
    }

    private final long[] sentNanos;
    private final int first;
    private final List<Stop> stops;
    private final List<long[]> seen = new ArrayList<>();

    /** Updates {@code first .. sentNanos.length} are measured (the earlier ones are the initial fill). */
    UpdateVisibility(long[] sentNanos, int first, List<Stop> stops) {
        this.sentNanos = sentNanos;
        this.first = first;
        this.stops = List.copyOf(stops);
    }

    /** One reader's first-seen times, by update number (shorter when it did not see them all). */
    void add(long[] readerSeen) {
        seen.add(readerSeen);
    }

    int updates() {
        return sentNanos.length - first;
    }

    /** (update, reader) pairs never seen. */
    int unseen() {
        int out = 0;
        for (long[] s : seen) {
            out += Math.max(0, sentNanos.length - Math.max(first, s.length));
        }
        return out;
    }

    private long running(long from, long to) {
        long d = to - from;
        for (Stop s : stops) {
            d -= s.overlap(from, to);
        }
        return d;
    }

    private long firstSeen(int u) {
        long min = Long.MAX_VALUE;
        for (long[] s : seen) {
            if (u < s.length && s[u] - min < 0) {
                min = s[u];
            }
        }
        return min;
    }

    /** Per (update, reader): send to sight, the writer's frozen time excluded; sorted. */
    long[] sentToSeen() {
        return each((u, s) -> running(sentNanos[u], s[u]));
    }

    /** Per update: send to the first reader's sight, the writer's frozen time excluded; sorted. */
    long[] sentToFirstSeen() {
        long[] out = new long[updates()];
        for (int u = first; u < sentNanos.length; u++) {
            long f = firstSeen(u);
            out[u - first] = f == Long.MAX_VALUE ? Long.MAX_VALUE : running(sentNanos[u], f);
        }
        Arrays.sort(out);
        return out;
    }

    /**
     * Per (update, reader): the first reader's sight to this reader's, the writer's frozen time excluded (a reader
     * waiting on a segment the frozen writer left mid-change sees nothing else meanwhile); sorted.
     */
    long[] firstSeenToSeen() {
        long[] firsts = new long[sentNanos.length];
        for (int u = first; u < sentNanos.length; u++) {
            firsts[u] = firstSeen(u);
        }
        return each((u, s) -> running(firsts[u], s[u]));
    }

    private interface Delay {
        long of(int update, long[] readerSeen);
    }

    private long[] each(Delay delay) {
        long[] out = new long[updates() * seen.size() - unseen()];
        int i = 0;
        for (long[] s : seen) {
            for (int u = first; u < Math.min(s.length, sentNanos.length); u++) {
                out[i++] = delay.of(u, s);
            }
        }
        Arrays.sort(out);
        return out;
    }

    /** How many of the sorted delays are over {@code millis}. */
    static int over(long[] sorted, long millis) {
        int n = 0;
        for (int i = sorted.length - 1; i >= 0 && sorted[i] > millis * 1_000_000L; i--) {
            n++;
        }
        return n;
    }

    /** "p50 … ms, p99 … ms, max … ms" of sorted delays. */
    static String describe(long[] sorted) {
        return String.format(
                Locale.ROOT,
                "p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                percentile(sorted, 0.50),
                percentile(sorted, 0.99),
                percentile(sorted, 1.0));
    }

    /** The {@code p} quantile in milliseconds (nearest rank); -1 for none. */
    static double percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        long v = sorted[(int) Math.max(0, Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1))];
        return v == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : v / 1e6;
    }
}
