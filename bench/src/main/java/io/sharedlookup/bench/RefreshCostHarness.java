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
 * store, every 20 ms by default), without and then with {@code contentStamp()} asked for, which makes every refresh
 * also sum the live generation's per-segment change counters (a Druid node asks, for its cache keys). Reported as CPU
 * milliseconds per second of wall time (so 10 ms/s is 1 % of a core) and microseconds per refresh, in the same JVM,
 * two phases of each mode one after the other, over a store written in a JVM of its own.
 *
 * <p>Usage: {@code RefreshCostHarness <entries> <storeDir> [seconds per phase, default 20]}; an empty or missing
 * {@code storeDir} gets a store written first.
 */
public final class RefreshCostHarness {
    private RefreshCostHarness() {
    }

    public static void main(String[] args) throws Exception {
        int entries = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 20;
        if (!Files.isDirectory(dir.resolve(BenchData.NAMESPACE))) {
            Files.createDirectories(dir);
            BenchData.writeStoreInOwnJvm(dir, entries, false);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long interval = SharedLookupStore.DEFAULT_REFRESH_INTERVAL.toNanos();
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            Lookup lookup = store.lookup(BenchData.NAMESPACE);
            long refreshThread = refreshThreadId(dir);
            lookup.get(BenchData.key(0));
            double refreshesPerSecond = TimeUnit.SECONDS.toNanos(1) / (double) interval;
            System.out.printf("entries %d, refresh every %d ms, %d s per phase%n", entries,
                    TimeUnit.NANOSECONDS.toMillis(interval), seconds);
            // Twice each: at 50 refreshes a second the refresh code takes minutes to be compiled, so the first
            // phase of each mode shows it interpreted, the second closer to compiled.
            for (int phase = 0; phase < 4; phase++) {
                if (phase == 2) {
                    lookup.contentStamp(); // from now on every refresh sums the counters
                }
                double cpu = cpuMillisPerSecond(threads, refreshThread, seconds);
                System.out.printf("  %s contentStamp, phase %d: %.2f ms CPU/s (%.1f us per refresh)%n",
                        phase < 2 ? "without" : "with   ", phase % 2 + 1, cpu, cpu * 1000 / refreshesPerSecond);
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
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no thread named '" + name + "'")).getId();
    }
}
