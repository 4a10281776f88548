package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code getInto}, into a {@code StringBuilder} and into a {@code ValueBuffer}, against {@code ConcurrentHashMap.get}
 * in one JVM, interleaved in rounds and timed in the thread's own CPU time ({@link ThreadMXBean}), so that time the
 * thread spends descheduled by other work on a shared machine does not count. Ratios from here move far less with
 * the machine's load than JMH's wall-clock figures; JMH ({@link LookupBenchmark}) remains the reference.
 *
 * <p>All three look up the same random sequence of keys, each key a {@code String} created apart from the map's own
 * (distinct key instances, as keys arriving from elsewhere are). Usage:
 * {@code java -Xmx6g -cp "$BENCH_CP" io.sharedlookup.bench.LookupCpuTimeHarness <entries> <storeDir> [rounds] [ms]
 * [chained]}: the store is written into {@code storeDir} unless it already holds the namespace (so a 10M store is
 * written once). With {@code chained}, each call's key depends on the previous call's result (one bit of the value's
 * length), so the processor cannot overlap one call's cache misses with the next call's: latency rather than
 * throughput. Only then is the answer read: reading the length of the {@code String} the map returns touches that
 * object, a cache miss JMH's {@code Blackhole} does not pay (it made the map 50 ns slower at 1M entries).
 */
public final class LookupCpuTimeHarness {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static boolean chained;

    private LookupCpuTimeHarness() {}

    public static void main(String[] args) throws Exception {
        int entries = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        long roundNanos = (args.length > 3 ? Long.parseLong(args[3]) : 1500) * 1_000_000L;
        chained = args.length > 4 && args[4].equals("chained");
        if (!Files.exists(dir.resolve(BenchData.NAMESPACE).resolve("manifest.properties"))) {
            Files.createDirectories(dir);
            BenchData.writeStoreInOwnJvm(dir, entries, false);
        }
        String[] keys = new String[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = BenchData.key(i);
        }
        Map<String, String> map = LookupBenchmark.heapCopy(entries);
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            Lookup lookup = store.lookup(BenchData.NAMESPACE);
            StringBuilder out = new StringBuilder(64);
            ValueBuffer value = new ValueBuffer();
            double[] shared = new double[rounds];
            double[] buffered = new double[rounds];
            double[] heap = new double[rounds];
            for (int round = -1; round < rounds; round++) { // round -1 warms all three up
                double s = timeGetInto(lookup, keys, out, roundNanos);
                double b = timeGetIntoBuffer(lookup, keys, value, roundNanos);
                double h = timeMap(map, keys, roundNanos);
                if (round >= 0) {
                    shared[round] = s;
                    buffered[round] = b;
                    heap[round] = h;
                    System.out.printf(
                            "round %d: getInto %.0f ns, getInto(ValueBuffer) %.0f ns, "
                                    + "ConcurrentHashMap.get %.0f ns, ratios %.2f and %.2f%n",
                            round, s, b, h, s / h, b / h);
                }
            }
            double[] bufferRatios = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                bufferRatios[i] = buffered[i] / heap[i];
            }
            System.out.printf(
                    "getInto(ValueBuffer) median %.0f ns (best %.0f), ratio median %.2f (range %.2f-%.2f)%n",
                    median(buffered), min(buffered), median(bufferRatios), min(bufferRatios), max(bufferRatios));
            double[] ratios = new double[rounds];
            for (int i = 0; i < rounds; i++) {
                ratios[i] = shared[i] / heap[i];
            }
            System.out.printf(
                    "%d entries%s, %d rounds: getInto median %.0f ns (best %.0f), ConcurrentHashMap.get median "
                            + "%.0f ns (best %.0f), ratio median %.2f (range %.2f-%.2f)%n",
                    entries,
                    chained ? " chained" : "",
                    rounds,
                    median(shared),
                    min(shared),
                    median(heap),
                    min(heap),
                    median(ratios),
                    min(ratios),
                    max(ratios));
        }
    }

    private static double timeGetInto(Lookup lookup, String[] keys, StringBuilder out, long roundNanos) {
        SplittableRandom random = new SplittableRandom(7);
        boolean chain = chained;
        long calls = 0;
        long misses = 0;
        int previous = 0;
        long start = THREADS.getCurrentThreadCpuTime();
        long now;
        do {
            for (int i = 0; i < 10_000; i++) {
                int index = random.nextInt(keys.length);
                if (chain) {
                    index = Math.max(0, index - (previous & 1));
                }
                if (!lookup.getInto(keys[index], out)) {
                    misses++;
                }
                if (chain) {
                    previous = out.length();
                }
            }
            calls += 10_000;
            now = THREADS.getCurrentThreadCpuTime();
        } while (now - start < roundNanos);
        if (misses != 0) {
            throw new IllegalStateException(misses + " keys not found");
        }
        return (double) (now - start) / calls;
    }

    private static double timeGetIntoBuffer(Lookup lookup, String[] keys, ValueBuffer out, long roundNanos) {
        SplittableRandom random = new SplittableRandom(7);
        boolean chain = chained;
        long calls = 0;
        long misses = 0;
        int previous = 0;
        long start = THREADS.getCurrentThreadCpuTime();
        long now;
        do {
            for (int i = 0; i < 10_000; i++) {
                int index = random.nextInt(keys.length);
                if (chain) {
                    index = Math.max(0, index - (previous & 1));
                }
                if (!lookup.getInto(keys[index], out)) {
                    misses++;
                }
                if (chain) {
                    previous = out.length();
                }
            }
            calls += 10_000;
            now = THREADS.getCurrentThreadCpuTime();
        } while (now - start < roundNanos);
        if (misses != 0) {
            throw new IllegalStateException(misses + " keys not found");
        }
        return (double) (now - start) / calls;
    }

    private static double timeMap(Map<String, String> map, String[] keys, long roundNanos) {
        SplittableRandom random = new SplittableRandom(7);
        boolean chain = chained;
        long calls = 0;
        long misses = 0;
        int previous = 0;
        long start = THREADS.getCurrentThreadCpuTime();
        long now;
        do {
            for (int i = 0; i < 10_000; i++) {
                int index = random.nextInt(keys.length);
                if (chain) {
                    index = Math.max(0, index - (previous & 1));
                }
                String value = map.get(keys[index]);
                if (value == null) {
                    misses++;
                } else if (chain) {
                    previous = value.length();
                }
            }
            calls += 10_000;
            now = THREADS.getCurrentThreadCpuTime();
        } while (now - start < roundNanos);
        if (misses != 0) {
            throw new IllegalStateException(misses + " keys not found");
        }
        return (double) (now - start) / calls;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    private static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }
}
