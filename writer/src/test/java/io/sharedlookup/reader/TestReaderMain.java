package io.sharedlookup.reader;

import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * A reader process for multi-JVM tests: looks up random keys of a {@link TestWriterMain} namespace as fast as it can
 * and checks every answer: present, well-formed ({@code v<i>@<round>}), and never older than a round this process
 * already saw for that key. Prints a {@code STATS} line every 100 ms and an {@code INVALID} line per bad answer.
 *
 * <p>Arguments: storeDir namespace keys lockTimeoutMillis.
 */
public final class TestReaderMain {
    public static void main(String[] args) throws Exception {
        Path storeDir = Path.of(args[0]);
        String namespace = args[1];
        int keys = Integer.parseInt(args[2]);
        long lockTimeoutMillis = Long.parseLong(args[3]);
        long[] lastRound = new long[keys];
        SplittableRandom random = new SplittableRandom();
        StringBuilder key = new StringBuilder();
        StringBuilder value = new StringBuilder();
        long lookups = 0, invalid = 0, timeouts = 0, maxNanos = 0;
        try (SharedLookupStore store = SharedLookupStore.builder(storeDir)
                .lockTimeout(Duration.ofMillis(lockTimeoutMillis))
                .open()) {
            Lookup lookup = store.lookup(namespace);
            System.out.println("OPEN generation=" + lookup.generation());
            long nextReport = System.nanoTime();
            for (; ; ) {
                int i = random.nextInt(keys);
                key.setLength(0);
                key.append('k').append(i);
                long t0 = System.nanoTime();
                try {
                    boolean found = lookup.getInto(key, value);
                    long round = found ? roundOf(value, i) : -1;
                    if (round < lastRound[i]) {
                        invalid++;
                        System.out.println("INVALID key=" + key + " found=" + found + " value=" + value + " lastRound="
                                + lastRound[i]);
                    } else {
                        lastRound[i] = round;
                    }
                } catch (LookupTimeoutException e) {
                    timeouts++;
                }
                long took = System.nanoTime() - t0;
                maxNanos = Math.max(maxNanos, took);
                lookups++;
                if (lookups % 2_000 == 0) {
                    Thread.sleep(1); // leave the two cores some air: several readers and a writer share them
                }
                if (t0 - nextReport >= 0) {
                    System.out.println("STATS lookups=" + lookups + " invalid=" + invalid + " timeouts=" + timeouts
                            + " maxMillis=" + maxNanos / 1_000_000 + " generation=" + lookup.generation());
                    nextReport = t0 + 100_000_000L;
                }
            }
        }
    }

    /** The round of a well-formed value of key {@code i}, or -1. */
    private static long roundOf(CharSequence value, int i) {
        String s = value.toString();
        String prefix = "v" + i + "@";
        if (!s.startsWith(prefix)) {
            return -1;
        }
        try {
            return Long.parseLong(s.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
