package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * A reader JVM during the scale part's growth ({@link ScaleGrowth}): looks up random keys of {@code 0 .. entries-1}
 * (all present before the growth starts) with {@code getInto}, timing each call, {@value #PACE_LOOKUPS} lookups then
 * a 1 ms sleep (about 90k lookups a second: a reader that does not take the two cores from the writer it watches),
 * until stdin closes. Then looks up key {@code check} (the grown generation's last key: found only once this reader
 * follows the new generation; for up to 2 s) and prints
 * {@code READ <lookups> <max ns> <p99 ns> <p99.9 ns> <lookups over 1 ms> <misses> <check found>}.
 *
 * <p>Usage: {@code ScaleReader <store dir> <entries> <check key index>}.
 */
public final class ScaleReader {
    static final int PACE_LOOKUPS = 100;

    private ScaleReader() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long entries = Long.parseLong(args[1]);
        long check = Long.parseLong(args[2]);
        SplittableRandom random = new SplittableRandom(ProcessHandle.current().pid());
        String[] keys = new String[(int) Math.min(entries, 1_000_000)];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = ScaleData.key(random.nextLong(entries));
        }
        Histogram latency = new Histogram(3);
        long misses = 0;
        long over1ms = 0;
        // A thread blocked on stdin ends the loop when the harness closes it (or writes anything) after the growth.
        Thread stdin = new Thread(
                () -> {
                    try {
                        System.in.read();
                    } catch (IOException e) {
                        // closed either way
                    }
                },
                "stdin");
        stdin.setDaemon(true);
        stdin.start();
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            Lookup lookup = store.lookup(BootstrapFeed.TOPIC);
            ValueBuffer value = new ValueBuffer();
            System.out.println("READING");
            System.out.flush();
            while (stdin.isAlive()) {
                for (int i = 0; i < PACE_LOOKUPS; i++) {
                    String key = keys[random.nextInt(keys.length)];
                    long t0 = System.nanoTime();
                    boolean found = lookup.getInto(key, value);
                    long took = System.nanoTime() - t0;
                    latency.recordValue(took);
                    if (took > 1_000_000) {
                        over1ms++;
                    }
                    if (!found) {
                        misses++;
                    }
                }
                Thread.sleep(1);
            }
            // The reader follows a new generation at its next refresh (every 20 ms): give it two seconds.
            long until = System.nanoTime() + 2_000_000_000L;
            boolean checkFound = lookup.get(ScaleData.key(check)) != null;
            while (!checkFound && System.nanoTime() < until) {
                Thread.sleep(10);
                checkFound = lookup.get(ScaleData.key(check)) != null;
            }
            System.out.println("READ " + latency.getTotalCount() + " " + latency.getMaxValue() + " "
                    + latency.getValueAtPercentile(99) + " " + latency.getValueAtPercentile(99.9) + " " + over1ms
                    + " " + misses + " " + checkFound);
            System.out.flush();
        }
    }
}
