package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Druid's queries ({@link DruidQuerySetup}: groupBy and topN on a looked-up name, a filter on one name) through
 * Druid's {@code MapLookupExtractor} and through {@code sharedLookup}, for one key shape, all peers in this one JVM.
 *
 * <p>Method: after a time-based warm-up, each round runs every query once through each peer in a fresh random order
 * (the filter asks the same name of every peer in a round); per query, the figure is the median over rounds of the
 * per-round ratio to the map lookup, with a bootstrap 95 % interval ({@link PairedMedians}), beside each peer's median ms.
 *
 * <p>Why not {@link DruidQueryBenchmark}'s JMH forks: each fork measures one peer, minutes after the other, and on a
 * shared machine the forks spread more than the ratio being judged (groupBy 419.8 ± 530.3 ms vs 261.8 ± 128.4 ms in one
 * run). Here a round's queries run within about a second, so whatever the machine does falls on every peer alike, and
 * the median ignores the rounds a pause spoiled. One JVM per key shape, as JMH's forks, so no other shape has trained
 * the JIT.
 *
 * <p>Arguments: {@code <out.json> <shape> <rows> <ids> [<rounds> <warmupSeconds>]} (defaults 60 rounds after 20 s).
 * The rows are appended to {@code out.json} in JMH's JSON layout under {@link DruidQueryBenchmark}'s benchmark names
 * (so {@link ChartRenderer} draws them as before), each shared row with {@code ratio}, {@code ratioLow} and
 * {@code ratioHigh} (its ms ÷ the map's in the same round); the reverse-index filter also has {@code lead},
 * {@code leadLow} and {@code leadHigh}: the map's ms ÷ its own. Needs {@link DruidQueryBenchmark}'s JVM flags.
 */
public final class DruidQueryPairs {
    private static final String PREFIX = DruidQueryBenchmark.class.getName() + ".";
    /** Every query through every peer; {@link #MAP_PEER} names the same query through the map lookup. */
    private static final List<String> BENCHMARKS = List.of(
            "groupByMapLookup",
            "groupBySharedLookup",
            "topNMapLookup",
            "topNSharedLookup",
            "filterMapLookup",
            "filterSharedLookupReverseIndex",
            "filterSharedLookupScan");

    private static final int[] MAP_PEER = {0, 0, 2, 2, 4, 4, 4};
    private static final int FILTER_MAP = 4;
    private static final int FILTER_REVERSE_INDEX = 5;

    /** Read once at the end so the JIT cannot drop the queries' results. */
    static volatile long sink;

    private final DruidQuerySetup setup;
    private final SplittableRandom names = new SplittableRandom(11);
    private final SplittableRandom order = new SplittableRandom(3);
    private long answers;

    private DruidQueryPairs(DruidQuerySetup setup) {
        this.setup = setup;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && args.length != 6) {
            usage("expected 4 or 6 arguments, got " + args.length);
        }
        Path out = Path.of(args[0]);
        KeyShapes shape;
        try {
            shape = KeyShapes.of(args[1]);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return;
        }
        int rows = positive(args[2], "rows");
        int ids = positive(args[3], "ids");
        int rounds = args.length == 6 ? positive(args[4], "rounds") : 60;
        int warmupSeconds = args.length == 6 ? positive(args[5], "warmupSeconds") : 20;
        double loadBefore = PairedRows.load();

        try (DruidQuerySetup setup = new DruidQuerySetup(rows, ids, shape)) {
            double[][] millis = new DruidQueryPairs(setup).measure(rounds, warmupSeconds);
            ArrayNode results = PairedRows.JSON.createArrayNode();
            for (int b = 0; b < BENCHMARKS.size(); b++) {
                results.add(row(shape, rows, ids, b, millis, warmupSeconds, loadBefore));
            }
            PairedRows.append(out, results);
            System.out.println(summary(shape, rows, ids, results, loadBefore));
        }
    }

    /** Warms every query up for {@code warmupSeconds} (at least one round), then measures {@code rounds} rounds. */
    private double[][] measure(int rounds, int warmupSeconds) {
        double[][] scratch = new double[BENCHMARKS.size()][1];
        long warmEnd = System.nanoTime() + warmupSeconds * 1_000_000_000L;
        do {
            round(scratch, 0);
        } while (System.nanoTime() < warmEnd);
        double[][] millis = new double[BENCHMARKS.size()][rounds];
        for (int r = 0; r < rounds; r++) {
            round(millis, r);
        }
        sink = answers;
        return millis;
    }

    /** Each query through each peer once, in a fresh random order; the filter asks every peer the same name. */
    private void round(double[][] millis, int r) {
        int[] benchmarks = new int[BENCHMARKS.size()];
        for (int b = 0; b < benchmarks.length; b++) {
            benchmarks[b] = b;
        }
        for (int i = benchmarks.length - 1; i > 0; i--) {
            int j = order.nextInt(i + 1);
            int swap = benchmarks[i];
            benchmarks[i] = benchmarks[j];
            benchmarks[j] = swap;
        }
        String name = setup.randomName(names);
        for (int b : benchmarks) {
            long start = System.nanoTime();
            answers += query(b, name).size();
            millis[b][r] = (System.nanoTime() - start) / 1e6;
        }
    }

    private List<Object> query(int b, String name) {
        return switch (b) {
            case 0 -> setup.groupBy(setup.mapLookup);
            case 1 -> setup.groupBy(setup.sharedLookup);
            case 2 -> setup.topN(setup.mapLookup);
            case 3 -> setup.topN(setup.sharedLookup);
            case 4 -> setup.filter(setup.mapLookup, name);
            case 5 -> setup.filter(setup.sharedLookup, name);
            default -> setup.filter(setup.sharedLookupWithoutReverseIndex, name);
        };
    }

    private static ObjectNode row(
            KeyShapes shape, int rows, int ids, int b, double[][] millis, int warmupSeconds, double loadBefore) {
        ObjectNode row = PairedRows.JSON.createObjectNode();
        row.put("benchmark", PREFIX + BENCHMARKS.get(b));
        row.put("mode", "avgt");
        row.put("harness", "DruidQueryPairs");
        row.put("threads", 1);
        ObjectNode params = row.putObject("params");
        params.put("rows", Integer.toString(rows));
        params.put("ids", Integer.toString(ids));
        params.put("keyShape", shape.param);
        PairedRows.putScore(row, millis[b], "ms/op");
        if (MAP_PEER[b] != b) {
            PairedRows.putRatio(row, "ratio", millis[b], millis[MAP_PEER[b]]);
        }
        if (b == FILTER_REVERSE_INDEX) {
            PairedRows.putRatio(row, "lead", millis[FILTER_MAP], millis[b]);
        }
        row.put("rounds", millis[b].length);
        row.put("warmupSeconds", warmupSeconds);
        row.put("loadAverageBefore", loadBefore);
        return row;
    }

    /** One line for the console: each query's map figure and the shared lookup's ratio with its interval. */
    private static String summary(KeyShapes shape, int rows, int ids, ArrayNode results, double loadBefore) {
        StringBuilder line =
                new StringBuilder(String.format(Locale.ROOT, "%s, %d rows, %d ids:", shape.param, rows, ids));
        for (int b = 0; b < BENCHMARKS.size(); b++) {
            ObjectNode row = (ObjectNode) results.get(b);
            double ms = row.path("primaryMetric").path("score").asDouble();
            if (MAP_PEER[b] == b) {
                line.append(String.format(Locale.ROOT, "%n  %s %.2f ms", BENCHMARKS.get(b), ms));
            } else {
                line.append(String.format(
                        Locale.ROOT,
                        "%n  %s %.2f ms, %.3f x the map [%.3f, %.3f]",
                        BENCHMARKS.get(b),
                        ms,
                        row.path("ratio").asDouble(),
                        row.path("ratioLow").asDouble(),
                        row.path("ratioHigh").asDouble()));
            }
            if (b == FILTER_REVERSE_INDEX) {
                line.append(String.format(
                        Locale.ROOT,
                        ", lead %.1f x [%.1f, %.1f]",
                        row.path("lead").asDouble(),
                        row.path("leadLow").asDouble(),
                        row.path("leadHigh").asDouble()));
            }
        }
        return line.append(String.format(Locale.ROOT, "%n  (load average %.2f -> %.2f)", loadBefore, PairedRows.load()))
                .toString();
    }

    private static int positive(String text, String what) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // said below, with the usage
        }
        usage(what + " must be a positive whole number, got '" + text + "'");
        return 0;
    }

    private static void usage(String problem) {
        System.err.println("DruidQueryPairs: " + problem + "; usage: DruidQueryPairs <out.json> <numeric7|ascii20|uuid>"
                + " <rows> <ids> [<rounds> <warmupSeconds>]");
        System.exit(2);
    }
}
