package io.sharedlookup.bench;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.LongBinaryOperator;

/**
 * Two reader-lib versions side by side in one JVM, over one store: does a change make lookups slower?
 *
 * <p>Why not two JMH runs: on a shared or virtual machine the speed of memory moves by tens of percent between forks
 * and minutes (a {@code ConcurrentHashMap} at 1M entries measured 472-751 ns/op across forks of one session), far
 * above the few percent a change should be held to. Here both readers run in the same process, in short windows of
 * lookups alternated in random order, so that whatever the machine does falls on both alike, and the result is the
 * median of the paired ratios with a bootstrap interval. What remains is the JIT: two compilations of the same code
 * can differ by several percent (an A/A run shows how much), so run it a few times in both orders
 * ({@code bench/reader-ab} does) and trust only a difference that holds in all of them.
 *
 * <p>Arguments: {@code <storeDir> <namespace> <entries> <classPathFirst> <classPathSecond> <pairs> <window> <keyShape>}.
 * Each class path holds this module's classes (for {@link ReaderVersionDriver}), one reader-lib version and slf4j-api.
 * Keys are {@link KeyShapes}' ids of that shape, so the store must be one {@link BenchData} wrote with it (both readers
 * get the same key objects, so a cached hash favours neither). Prints one line per lookup form: second ÷ first.
 */
public final class ReaderVersions {
    private static final long WARMUP_NANOS = 40_000_000_000L;

    private ReaderVersions() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 8) {
            System.err.println("usage: ReaderVersions <storeDir> <namespace> <entries> <classPathFirst> "
                    + "<classPathSecond> <pairs> <window> <keyShape>");
            System.exit(2);
        }
        int entries = Integer.parseInt(args[2]);
        int pairs = Integer.parseInt(args[5]);
        long window = Long.parseLong(args[6]);
        KeyShapes shape = KeyShapes.of(args[7]);
        String[] keys = new String[entries];
        for (int i = 0; i < entries; i++) {
            keys[i] = shape.key(i);
        }
        LongBinaryOperator[] readers = {load(args[3], args[0], args[1], keys), load(args[4], args[0], args[1], keys)};
        long sink = 0;
        long warmEnd = System.nanoTime() + WARMUP_NANOS;
        while (System.nanoTime() < warmEnd) {
            for (int mode = 0; mode < 2; mode++) {
                sink += readers[0].applyAsLong(mode, window) + readers[1].applyAsLong(mode, window);
            }
        }
        SplittableRandom order = new SplittableRandom(3);
        for (int mode = 0; mode < 2; mode++) {
            double[] ratios = new double[pairs];
            double[] first = new double[pairs];
            double[] second = new double[pairs];
            for (int p = 0; p < pairs; p++) {
                double[] nanosPerOp = new double[2];
                for (int r : order.nextBoolean() ? new int[] {0, 1} : new int[] {1, 0}) {
                    long start = System.nanoTime();
                    sink += readers[r].applyAsLong(mode, window);
                    nanosPerOp[r] = (System.nanoTime() - start) / (double) window;
                }
                first[p] = nanosPerOp[0];
                second[p] = nanosPerOp[1];
                ratios[p] = nanosPerOp[1] / nanosPerOp[0];
            }
            double[] interval = PairedMedians.interval(ratios);
            System.out.printf(
                    Locale.ROOT,
                    "%s: second/first %.3f (95%% interval %.3f-%.3f); first %.1f ns/op, "
                            + "second %.1f ns/op (medians of %d pairs of %d lookups)%n",
                    mode == 0 ? "getInto" : "getAllInto",
                    PairedMedians.median(ratios),
                    interval[0],
                    interval[1],
                    PairedMedians.median(first),
                    PairedMedians.median(second),
                    pairs,
                    window);
        }
        System.out.println("(checksum " + sink + ")");
    }

    /** A {@link ReaderVersionDriver} bound to the reader-lib on {@code classPath}, in a loader of its own. */
    private static LongBinaryOperator load(String classPath, String storeDir, String namespace, String[] keys)
            throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath.split(":")) {
            urls.add(Path.of(entry).toUri().toURL());
        }
        // The platform loader as parent: this JVM's own reader-lib (on the application class path) must stay unseen.
        ClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        return (LongBinaryOperator) loader.loadClass(ReaderVersionDriver.class.getName())
                .getConstructor(String.class, String.class, String[].class)
                .newInstance(storeDir, namespace, keys);
    }
}
