package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One cell of the lookup matrix (a key shape, a value size, an entry count): reader-lib's {@code getInto(ValueBuffer)}
 * and {@code getAllInto} (batches of {@value #BATCH}) beside {@code ConcurrentHashMap.get}, all three in this one JVM,
 * in short windows of random hits alternated in random order.
 *
 * <p>Why not JMH forks, as {@link LookupBenchmark} runs the other peers: the matrix's figures are ratios to the map,
 * and on this kind of machine the speed of memory moves between forks by more than the ratios being judged (the map
 * alone measured 472-751 ns/op across forks of one quiet session). Here each triple of windows runs within a few tens
 * of milliseconds, so whatever the machine does falls on all three; the figure reported is the median of the per-triple
 * ratios with a bootstrap 95 % interval ({@link PairedMedians}). One JVM per cell, as JMH's forks, so that no other
 * shape's keys have trained the JIT.
 *
 * <p>Everything else is {@link LookupBenchmark}'s: the store the writer filled from a real broker
 * ({@link LookupStores}, cached), the map built from key strings of its own, keys made as a query passes them
 * ({@link KeyPool}: own chars, no cached hash; the map gets {@code toString()} of a {@code StringBuilder} key).
 * Allocation per lookup is measured on the measuring thread ({@code ThreadMXBean}), the figure JMH's gc profiler gives.
 *
 * <p>Arguments: {@code <out.json> <shape> <valueBytes> <entries> [<triples> <window> <warmupSeconds>]}. The rows are
 * appended to {@code out.json} in JMH's JSON layout (so {@link LookupMatrixReport} and {@link ChartRenderer} read both),
 * with the paired ratio and its interval in {@code ratio}, {@code ratioLow} and {@code ratioHigh}. Needs
 * {@code --add-opens=java.base/java.lang=ALL-UNNAMED} ({@link KeyPool}).
 */
public final class LookupMatrixPairs {
    static final int BATCH = LookupBenchmark.BATCH;
    private static final String PREFIX = LookupBenchmark.class.getName() + ".";
    private static final String[] BENCHMARKS = {
        LookupMatrixReport.MAP, "sharedLookupGetIntoValueBuffer", "sharedLookupGetAllIntoBatchOf8"
    };
    private static final ObjectMapper JSON = PairedRows.JSON;

    private final Map<String, String> map;
    private final Lookup lookup;
    private final KeyPool keys;
    private final SplittableRandom random = new SplittableRandom(7);
    private final ValueBuffer value = new ValueBuffer();
    private final CharSequence[] batchKeys = new CharSequence[BATCH];
    private final ValueBuffer[] batchValues = new ValueBuffer[BATCH];

    private LookupMatrixPairs(Map<String, String> map, Lookup lookup, KeyPool keys) {
        this.map = map;
        this.lookup = lookup;
        this.keys = keys;
        for (int i = 0; i < BATCH; i++) {
            batchValues[i] = new ValueBuffer();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 7) {
            System.err.println("usage: LookupMatrixPairs <out.json> <shape> <valueBytes> <entries> "
                    + "[<triples> <window> <warmupSeconds>]");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        KeyShapes shape = KeyShapes.of(args[1]);
        int valueBytes = Integer.parseInt(args[2]);
        int entries = Integer.parseInt(args[3]);
        int triples = args.length == 7 ? Integer.parseInt(args[4]) : 120;
        int window = args.length == 7 ? Integer.parseInt(args[5]) : 50_000;
        int warmupSeconds = args.length == 7 ? Integer.parseInt(args[6]) : 20;
        double loadBefore = PairedRows.load();

        Path dir = LookupStores.store(shape, valueBytes, entries);
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            Lookup lookup = store.lookup(BenchData.NAMESPACE);
            if (lookup.size() != entries) {
                throw new IllegalStateException("the store " + dir + " holds " + lookup.size() + " entries, expected "
                        + entries + ": delete it so that the next run writes it again");
            }
            LookupMatrixPairs cell = new LookupMatrixPairs(
                    LookupBenchmark.heapCopy(shape, valueBytes, entries), lookup, new KeyPool(shape, entries));
            Windows measured = cell.measure(triples, window, warmupSeconds);
            double[][] nanos = measured.nanos();
            ArrayNode rows = JSON.createArrayNode();
            for (int b = 0; b < BENCHMARKS.length; b++) {
                rows.add(row(shape, valueBytes, entries, b, nanos, measured.bytes()[b], window, loadBefore));
            }
            PairedRows.append(out, rows);
            System.out.printf(
                    Locale.ROOT,
                    "%s %d B %d entries: map %.0f ns, getInto %.2f x, getAllInto %.2f x " + "(load %.2f -> %.2f)%n",
                    shape.param,
                    valueBytes,
                    entries,
                    PairedMedians.median(nanos[0]),
                    rows.get(1).path("ratio").asDouble(),
                    rows.get(2).path("ratio").asDouble(),
                    loadBefore,
                    PairedRows.load());
        }
    }

    /** Per benchmark and window: nanoseconds and bytes allocated per lookup. */
    private record Windows(double[][] nanos, double[][] bytes) {}

    /** Read once at the end so the JIT cannot drop the lookups' results. */
    static volatile long sink;

    /** Warms all three up, then {@code triples} rounds of one window each, in a fresh random order every round. */
    private Windows measure(int triples, int window, int warmupSeconds) {
        long hits = 0;
        long warmEnd = System.nanoTime() + warmupSeconds * 1_000_000_000L;
        do {
            for (int b = 0; b < BENCHMARKS.length; b++) {
                hits += window(b, window);
            }
        } while (System.nanoTime() < warmEnd);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SplittableRandom order = new SplittableRandom(3);
        double[][] nanos = new double[BENCHMARKS.length][triples];
        double[][] bytes = new double[BENCHMARKS.length][triples];
        int[] benchmarks = {0, 1, 2};
        for (int t = 0; t < triples; t++) {
            for (int i = benchmarks.length - 1; i > 0; i--) {
                int j = order.nextInt(i + 1);
                int swap = benchmarks[i];
                benchmarks[i] = benchmarks[j];
                benchmarks[j] = swap;
            }
            for (int b : benchmarks) {
                long allocated = threads.getCurrentThreadAllocatedBytes();
                long start = System.nanoTime();
                hits += window(b, window);
                nanos[b][t] = (System.nanoTime() - start) / (double) window;
                bytes[b][t] = (threads.getCurrentThreadAllocatedBytes() - allocated) / (double) window;
            }
        }
        sink = hits;
        return new Windows(nanos, bytes);
    }

    /** {@code n} random hits through benchmark {@code b}; each form has its own loop so the JIT compiles it alone. */
    private long window(int b, int n) {
        return switch (b) {
            case 0 -> mapWindow(n);
            case 1 -> getIntoWindow(n);
            default -> batchWindow(n);
        };
    }

    private long mapWindow(int n) {
        long hits = 0;
        for (int i = 0; i < n; i++) {
            if (map.get(KeyPool.asString(keys.next(random))) != null) {
                hits++;
            }
        }
        return hits;
    }

    private long getIntoWindow(int n) {
        long hits = 0;
        for (int i = 0; i < n; i++) {
            if (lookup.getInto(keys.next(random), value)) {
                hits++;
            }
        }
        return hits;
    }

    private long batchWindow(int n) {
        long hits = 0;
        for (int i = 0; i < n; i += BATCH) {
            for (int j = 0; j < BATCH; j++) {
                batchKeys[j] = keys.next(random);
            }
            hits += lookup.getAllInto(batchKeys, batchValues, BATCH);
        }
        return hits;
    }

    private static ObjectNode row(
            KeyShapes shape,
            int valueBytes,
            int entries,
            int b,
            double[][] nanos,
            double[] bytes,
            int window,
            double loadBefore) {
        ObjectNode row = JSON.createObjectNode();
        row.put("benchmark", PREFIX + BENCHMARKS[b]);
        row.put("mode", "avgt");
        row.put("harness", "LookupMatrixPairs");
        row.put("threads", 1);
        ObjectNode params = row.putObject("params");
        params.put("entries", Integer.toString(entries));
        params.put("shape", shape.param);
        params.put("valueBytes", Integer.toString(valueBytes));
        PairedRows.putScore(row, nanos[b], "ns/op");
        row.putObject("secondaryMetrics")
                .putObject("gc.alloc.rate.norm")
                .put("score", PairedMedians.median(bytes))
                .put("scoreUnit", "B/op");
        if (b > 0) {
            PairedRows.putRatio(row, "ratio", nanos[b], nanos[0]);
        }
        row.put("windows", nanos[b].length);
        row.put("window", window);
        row.put("loadAverageBefore", loadBefore);
        return row;
    }
}
