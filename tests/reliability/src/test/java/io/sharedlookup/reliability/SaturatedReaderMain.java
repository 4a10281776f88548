package io.sharedlookup.reliability;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A reader JVM of the saturated-host scenario ({@link SaturatedHostTest}), opened as users open a store (defaults, no
 * JVM flag). It loops without pause, so that the host has more runnable threads than cores, on three kinds of call:
 * <ul>
 *   <li>following the {@link NumberedUpdates}: {@code getInto(key, StringBuilder)} of the next update's key until the
 *       value is that update's or a later one's, noting {@link System#nanoTime()} when each update was first seen;</li>
 *   <li>{@code getAllInto} of 8 random keys;</li>
 *   <li>{@code getInto(key, ValueBuffer)} of a random key.</li>
 * </ul>
 * Every value is checked to be exactly what some update wrote to its key; every call that throws is counted and its
 * first five exceptions printed. Prints {@code READY}, {@code CAUGHT_UP} once the initial fill is seen, a
 * {@code STATS} line a second, and on {@code STOP} (or end of input) writes the seen times to the seen file, prints
 * {@code DONE lookups=… exceptions=… wrong=… seen=… slowestMillis=…} and exits 0.
 *
 * <p>Arguments: storeDir namespace maxUpdates seed seenFile. The seen file holds the number of updates seen (int),
 * then each one's seen time (long nanoTime, comparable across the host's processes: on Linux the JVM reads
 * {@code CLOCK_MONOTONIC}).
 */
public final class SaturatedReaderMain {
    private static volatile boolean stop;
    private long lookups;
    private long exceptions;
    private long wrong;
    private long slowestNanos;

    private SaturatedReaderMain() {}

    public static void main(String[] args) throws Exception {
        Thread input = new Thread(SaturatedReaderMain::awaitStop, "stdin");
        input.setDaemon(true);
        input.start();
        int maxUpdates = Integer.parseInt(args[2]);
        long[] seen = new long[maxUpdates];
        SaturatedReaderMain reader = new SaturatedReaderMain();
        int count;
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            Lookup lookup = store.lookup(args[1]);
            System.out.println("READY");
            count = reader.run(lookup, seen, new SplittableRandom(Long.parseLong(args[3])));
        }
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(Path.of(args[4])))) {
            out.writeInt(count);
            for (int i = 0; i < count; i++) {
                out.writeLong(seen[i]);
            }
        }
        System.out.println("DONE lookups=" + reader.lookups + " exceptions=" + reader.exceptions + " wrong="
                + reader.wrong + " seen=" + count + " slowestMillis=" + reader.slowestNanos / 1_000_000);
    }

    private static void awaitStop() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("STOP")) {
                    break;
                }
            }
        } catch (IOException e) {
            // the test JVM is gone: stop as well
        }
        stop = true;
    }

    /** Loops until told to stop; returns how many updates were seen, in order. */
    private int run(Lookup lookup, long[] seen, SplittableRandom random) {
        StringBuilder followKey = new StringBuilder();
        StringBuilder followValue = new StringBuilder();
        StringBuilder[] keys = new StringBuilder[8];
        ValueBuffer[] values = new ValueBuffer[8];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new StringBuilder();
            values[i] = new ValueBuffer();
        }
        StringBuilder oneKey = new StringBuilder();
        ValueBuffer oneValue = new ValueBuffer();
        int next = 0;
        boolean caughtUp = false;
        long nextStats = System.nanoTime();
        while (!stop) {
            // Follow the updates as far as they are visible.
            for (int steps = 0; steps < 256 && next < seen.length; steps++) {
                NumberedUpdates.key(next, followKey);
                long t0 = System.nanoTime();
                try {
                    boolean found = lookup.getInto(followKey, followValue);
                    long now = took(t0);
                    int update = found ? NumberedUpdates.updateIn(followValue, NumberedUpdates.keyIndex(next)) : -1;
                    if (found && update < 0) {
                        wrong("follow", followKey, followValue);
                    }
                    if (update < next) {
                        break;
                    }
                    seen[next++] = now;
                } catch (Throwable e) { // anything at all a lookup throws is what this scenario counts
                    failed(t0, e);
                    break;
                }
            }
            for (int i = 0; i < keys.length; i++) {
                keys[i].setLength(0);
                keys[i].append('k').append(random.nextInt(NumberedUpdates.KEYS));
            }
            long t0 = System.nanoTime();
            try {
                lookup.getAllInto(keys, values, keys.length);
                took(t0);
                for (int i = 0; i < keys.length; i++) {
                    check(keys[i], values[i]);
                }
            } catch (Throwable e) {
                failed(t0, e);
            }
            oneKey.setLength(0);
            oneKey.append('k').append(random.nextInt(NumberedUpdates.KEYS));
            t0 = System.nanoTime();
            try {
                lookup.getInto(oneKey, oneValue);
                took(t0);
                check(oneKey, oneValue);
            } catch (Throwable e) {
                failed(t0, e);
            }
            if (!caughtUp && next >= NumberedUpdates.KEYS) {
                caughtUp = true;
                System.out.println("CAUGHT_UP");
            }
            if (t0 - nextStats >= 0) {
                System.out.println("STATS lookups=" + lookups + " exceptions=" + exceptions + " wrong=" + wrong
                        + " seen=" + next + " slowestMillis=" + slowestNanos / 1_000_000);
                nextStats = t0 + 1_000_000_000L;
            }
        }
        return next;
    }

    /** Counts a lookup that started at {@code t0}; returns the time it ended. */
    private long took(long t0) {
        long now = System.nanoTime();
        slowestNanos = Math.max(slowestNanos, now - t0);
        lookups++;
        return now;
    }

    private void failed(long t0, Throwable e) {
        took(t0);
        if (++exceptions <= 5) {
            System.out.println("EXCEPTION " + e);
        }
    }

    /** Every key is present from the fill on (nothing is deleted), with a whole value some update wrote to it. */
    private void check(CharSequence key, ValueBuffer value) {
        if (!value.found() || NumberedUpdates.updateIn(value, NumberedUpdates.keyIndexOf(key)) < 0) {
            wrong("lookup", key, value);
        }
    }

    private void wrong(String call, CharSequence key, CharSequence value) {
        if (++wrong <= 5) {
            System.out.println("WRONG " + call + " " + key + "=" + value);
        }
    }
}
