package io.sharedlookup.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Samples a process every {@value #PERIOD_MILLIS} ms on a daemon thread of its own: its resident memory split into the
 * store's mapped files and everything else ({@link ResidentMemory}, the writer's own footprint), keeping the maxima;
 * and, from {@code /proc/<pid>/stat}, its page faults and CPU time, kept as last read (the counters only grow).
 */
final class ScaleFootprint {
    static final int PERIOD_MILLIS = 1000;
    /** {@code /proc/<pid>/stat} counts CPU time in clock ticks, 100 a second on Linux ({@code getconf CLK_TCK}). */
    private static final double TICKS_PER_SECOND = 100;

    private final long pid;
    private final Path store;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long maxTotal;
    private volatile long maxOutsideStore;
    private volatile long[] stat = new long[4];

    private ScaleFootprint(long pid, Path store) {
        this.pid = pid;
        this.store = store;
        thread = new Thread(this::sample, "scale-footprint");
        thread.setDaemon(true);
    }

    static ScaleFootprint start(long pid, Path store) {
        ScaleFootprint f = new ScaleFootprint(pid, store);
        f.thread.start();
        return f;
    }

    private void sample() {
        while (running) {
            try {
                read();
                Thread.sleep(PERIOD_MILLIS);
            } catch (IOException | InterruptedException gone) {
                return; // the process ended
            }
        }
    }

    private void read() throws IOException {
        ResidentMemory m = ResidentMemory.of(pid, store);
        maxTotal = Math.max(maxTotal, m.totalBytes());
        maxOutsideStore = Math.max(maxOutsideStore, m.outsideDirBytes());
        String line = Files.readString(Path.of("/proc/" + pid + "/stat"));
        // Fields after the command name (which may hold spaces), counted from 3 (state): minflt is 10, majflt 12,
        // utime 14, stime 15.
        String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
        stat = new long[] {Long.parseLong(f[7]), Long.parseLong(f[9]), Long.parseLong(f[11]), Long.parseLong(f[12])};
    }

    /** Stops sampling after one last sample (the process must still be alive for it). */
    Map<String, Object> stop() throws InterruptedException {
        try {
            read();
        } catch (IOException | RuntimeException gone) {
            // keep the last periodic sample
        }
        running = false;
        thread.interrupt();
        thread.join();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("maxRssBytes", maxTotal);
        row.put("maxRssOutsideStoreBytes", maxOutsideStore);
        row.put("minorFaults", stat[0]);
        row.put("majorFaults", stat[1]);
        row.put("userCpuSeconds", stat[2] / TICKS_PER_SECOND);
        row.put("systemCpuSeconds", stat[3] / TICKS_PER_SECOND);
        return row;
    }
}
