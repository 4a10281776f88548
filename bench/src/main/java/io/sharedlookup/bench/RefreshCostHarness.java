package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What following a namespace costs a reader JVM between lookups: the CPU time of the store's refresh thread (one per
 * store, every 20 ms by default), without or with {@code contentStamp()} asked for, which makes every refresh also sum
 * the live generation's per-segment change counters (a Druid node asks, for its cache keys). One mode per JVM, so
 * that both warm up alike; reported as CPU milliseconds per second of wall time (10 ms/s is 1 % of a core) and
 * microseconds per refresh (at the nominal 50 refreshes a second: a little fewer run, the interval being a delay
 * after each), for two phases one after the other (the refresh runs 50 times a second, so the JIT takes minutes to
 * compile it: the first phase is the slower), over a store written in a JVM of its own.
 *
 * <p>Usage: {@code RefreshCostHarness <entries> <storeDir> <seconds per phase> <without|with>}; an empty or missing
 * {@code storeDir} gets a store written first.
 */
public final class RefreshCostHarness {
    private RefreshCostHarness() {}

    public static void main(String[] args) throws Exception {
        int entries = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        long seconds = Long.parseLong(args[2]);
        boolean stamp = switch (args[3]) {
            case "with" -> true;
            case "without" -> false;
            default -> throw new IllegalArgumentException("mode '" + args[3] + "': use with or without");
        };
        if (!Files.isDirectory(dir.resolve(BenchData.NAMESPACE))) {
            Files.createDirectories(dir);
            BenchData.writeStoreInOwnJvm(dir, entries, false);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long interval = SharedLookupStore.DEFAULT_REFRESH_INTERVAL.toNanos();
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            Lookup lookup = store.lookup(BenchData.NAMESPACE);
            long refreshThread = refreshThreadId(store.directory());
            lookup.get(BenchData.key(0));
            if (stamp) {
                lookup.contentStamp(); // from now on every refresh sums the counters
            }
            double refreshesPerSecond = TimeUnit.SECONDS.toNanos(1) / (double) interval;
            System.out.printf(
                    "entries %d, refresh every %d ms, %d s per phase, %s contentStamp%n",
                    entries, TimeUnit.NANOSECONDS.toMillis(interval), seconds, args[3]);
            for (int phase = 1; phase <= 2; phase++) {
                double cpu = cpuMillisPerSecond(threads, refreshThread, seconds);
                System.out.printf(
                        "  phase %d: %.2f ms CPU/s (%.1f us per refresh)%n",
                        phase, cpu, cpu * 1000 / refreshesPerSecond);
            }
        }
    }

    /** The refresh thread's CPU time over {@code seconds} of wall time, in ms per second. */
    private static double cpuMillisPerSecond(ThreadMXBean threads, long thread, long seconds) {
        // a second to settle (the first refreshes after a change of mode, the JIT)
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        long cpuBefore = threads.getThreadCpuTime(thread);
        long wallBefore = System.nanoTime();
        LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(seconds));
        long cpu = threads.getThreadCpuTime(thread) - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        return cpu / 1e6 / (wall / 1e9);
    }

    private static long refreshThreadId(Path dir) {
        String name = "shared-lookup-refresh " + dir;
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no thread named '" + name + "'"))
                .getId();
    }
}
