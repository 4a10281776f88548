package io.sharedlookup.reliability;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupTimeoutException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * A reader JVM for the fault scenarios: looks up random keys {@code k0..k<keys-1>} of a namespace as fast as it can
 * (allocation-free {@code getInto}), and prints
 * <ul>
 *   <li>{@code READY} once the namespace is open;</li>
 *   <li>{@code PROBE <value>} whenever the value of key {@code probe} changes (freshness);</li>
 *   <li>{@code STATS lookups=… timeouts=… maxMillis=… generation=…} every 100 ms, maxMillis being the slowest
 *       call of the last 100 ms window.</li>
 * </ul>
 * Arguments: storeDir namespace keys lockTimeoutMillis seed.
 */
public final class ReaderMain {
    public static void main(String[] args) throws Exception {
        Path storeDir = Path.of(args[0]);
        String namespace = args[1];
        int keys = Integer.parseInt(args[2]);
        long lockTimeoutMillis = Long.parseLong(args[3]);
        SplittableRandom random = new SplittableRandom(Long.parseLong(args[4]));
        StringBuilder key = new StringBuilder();
        StringBuilder value = new StringBuilder();
        StringBuilder probe = new StringBuilder();
        String lastProbe = null;
        long lookups = 0;
        long timeouts = 0;
        long windowMax = 0;
        try (SharedLookupStore store = SharedLookupStore.builder(storeDir)
                .lockTimeout(Duration.ofMillis(lockTimeoutMillis)).open()) {
            Lookup lookup = store.lookup(namespace);
            System.out.println("READY generation=" + lookup.generation());
            long nextReport = System.nanoTime();
            for (;;) {
                key.setLength(0);
                key.append('k').append(random.nextInt(keys));
                long t0 = System.nanoTime();
                try {
                    lookup.getInto(key, value);
                } catch (LookupTimeoutException e) {
                    timeouts++;
                }
                long took = System.nanoTime() - t0;
                windowMax = Math.max(windowMax, took);
                lookups++;
                if (lookups % 1_000 == 0) {
                    try {
                        if (lookup.getInto("probe", probe) && !probe.toString().equals(lastProbe)) {
                            lastProbe = probe.toString();
                            System.out.println("PROBE " + lastProbe);
                        }
                    } catch (LookupTimeoutException e) {
                        timeouts++;
                    }
                    Thread.sleep(1); // several readers and a writer share two cores
                }
                if (t0 - nextReport >= 0) {
                    System.out.println("STATS lookups=" + lookups + " timeouts=" + timeouts + " maxMillis="
                            + windowMax / 1_000_000 + " generation=" + lookup.generation());
                    windowMax = 0;
                    nextReport = t0 + 100_000_000L;
                }
            }
        }
    }

    /** Lookups after which a reader JVM counts as warm (its lookup path JIT-compiled). */
    static final long WARM_LOOKUPS = 100_000;

    /**
     * Waits until a started reader printed READY and then became warm; returns the number of lines it had printed
     * by then, so that callers measure only later STATS lines. The lookup bound is about locks and generation
     * switches, not a cold JVM: on a loaded two-core box the first thousands of calls run interpreted and load
     * classes, and single calls there took over a second.
     */
    static int awaitWarm(ChildJvm reader) {
        reader.awaitLine(Duration.ofSeconds(60), l -> l.startsWith("READY"));
        reader.awaitLine(Duration.ofSeconds(120), l -> l.startsWith("STATS") && lookups(l) >= WARM_LOOKUPS);
        return reader.lines().size();
    }

    private static long lookups(String statsLine) {
        int i = statsLine.indexOf("lookups=") + "lookups=".length();
        return Long.parseLong(statsLine.substring(i, statsLine.indexOf(' ', i)));
    }

    /** The maxMillis of a STATS line. */
    static long maxMillis(String statsLine) {
        int i = statsLine.indexOf("maxMillis=");
        int j = statsLine.indexOf(' ', i);
        return Long.parseLong(statsLine.substring(i + "maxMillis=".length(), j < 0 ? statsLine.length() : j));
    }
}
