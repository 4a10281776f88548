package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.Utf8;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How big the first generation of a rebuild is made, from the first records read, which are held back until it exists
 * (within a heap budget shared by all namespaces, {@link SampleBudget}):
 * the distinct keys expected (the topic's record count times the share of distinct keys in the sample), each of the
 * sample's average key and value size, bounded by the disk space the file may take. Also the averages of a resumed
 * generation, which are not recorded with it.
 *
 * <p>Sizing right up front matters for a bootstrap: every growth step copies the whole generation while the ingest
 * thread writes each record twice, and a 10M-record topic grew three times from a fixed 2M cap.
 */
final class InitialSizing {
    /**
     * The first generation may always be sized for this many entries, whatever the disk says.
     * {@code endOffset - beginningOffset} counts every update not yet compacted away: on a busy topic it can exceed
     * the distinct keys a thousandfold, and a generation is preallocated on disk. Beyond this bound and
     * {@link #DISK_SHARE}, growth takes over (each step doubles).
     */
    static final long ALWAYS_ALLOWED_ENTRIES = 2_000_000;
    /**
     * A first generation larger than {@link #ALWAYS_ALLOWED_ENTRIES} may take at most this share of the usable space
     * of the store's file system, leaving room for the next generation when it grows and for other namespaces.
     */
    static final double DISK_SHARE = 0.25;
    /**
     * Preallocated bytes per entry of capacity beyond the key and value bytes (Chronicle's entry header and alignment,
     * hash-lookup slot, free-list bits, the sequence file), rounded up from measured files: a 6.75M-entry generation of
     * 7 B keys and 13 B values took 311 MB, 46 B per entry.
     */
    static final double OVERHEAD_BYTES_PER_ENTRY = 32;

    private static final int SAMPLE_RECORDS = 1000;
    private static final long SAMPLE_BYTES = 4 << 20;

    private final SampleBudget budget;
    private boolean sampling;
    private long expectedEntries;
    private final List<String[]> samples = new ArrayList<>();
    private long sampleBytes;
    /** What the records held here have reserved of the {@link SampleBudget}. */
    private long reservedBytes;

    /** @param budget the heap budget for held-back records this namespace shares with the others */
    InitialSizing(SampleBudget budget) {
        this.budget = budget;
    }

    /**
     * Starts sampling for a rebuild that reads the topic from {@code beginning}.
     *
     * @return the records the topic holds up to {@code end}: the entries expected at most
     */
    long start(Map<Integer, Long> beginning, Map<Integer, Long> end) {
        expectedEntries = 0;
        for (Map.Entry<Integer, Long> e : end.entrySet()) {
            expectedEntries += Math.max(0, e.getValue() - beginning.getOrDefault(e.getKey(), 0L));
        }
        sampling = true;
        return expectedEntries;
    }

    /** Whether records are held back for the sample: no generation exists yet to apply them to. */
    boolean sampling() {
        return sampling;
    }

    /**
     * Holds a record ({@code value == null} removes) back for the sample when the heap budget allows: within this
     * namespace's share of the {@link SampleBudget} and what is left of it. False when it does not: the sample is as
     * big as it gets, and the record is for the generation sized from it.
     */
    boolean hold(String key, String value) {
        long cost = SampleBudget.cost(key, value);
        if (reservedBytes + cost > budget.share() || !budget.tryReserve(cost)) {
            return false;
        }
        reservedBytes += cost;
        samples.add(new String[] {key, value});
        sampleBytes += key.length() + (value == null ? 0 : value.length());
        return true;
    }

    /** Whether the sample is big enough: {@value #SAMPLE_RECORDS} records, or 4M characters. */
    boolean full() {
        return samples.size() >= SAMPLE_RECORDS || sampleBytes >= SAMPLE_BYTES;
    }

    /** Records held back so far. */
    int sampled() {
        return samples.size();
    }

    /**
     * The first generation's sizing: the distinct keys expected, bounded by {@code usableDiskBytes}, and the sample's
     * average sizes.
     */
    GenerationSizing sizing(long usableDiskBytes) {
        double avgKey = 0;
        double avgValue = 0;
        int values = 0;
        for (String[] s : samples) {
            avgKey += Utf8.chronicleLength(s[0]);
            if (s[1] != null) {
                avgValue += Utf8.chronicleLength(s[1]);
                values++;
            }
        }
        avgKey = samples.isEmpty() ? 0 : avgKey / samples.size();
        avgValue = values == 0 ? 0 : avgValue / values;
        return GenerationSizing.forExpected(
                expectedDistinct(expectedEntries, distinctShare(), avgKey, avgValue, usableDiskBytes),
                avgKey,
                avgValue);
    }

    /** The share of the sampled records whose keys are distinct; 1 for an empty sample. */
    double distinctShare() {
        if (samples.isEmpty()) {
            return 1;
        }
        Set<String> keys = new HashSet<>();
        for (String[] s : samples) {
            keys.add(s[0]);
        }
        return (double) keys.size() / samples.size();
    }

    /**
     * The entries to size a first generation for: {@code records} (an upper bound on distinct keys) times the share of
     * distinct keys seen in the sample, at most what takes {@link #DISK_SHARE} of {@code usableDiskBytes} and never
     * held below {@link #ALWAYS_ALLOWED_ENTRIES}.
     */
    static long expectedDistinct(
            long records, double distinctShare, double avgKeyBytes, double avgValueBytes, long usableDiskBytes) {
        long estimate = (long) Math.ceil(records * Math.min(1.0, Math.max(0.0, distinctShare)));
        double bytesPerEntry = (avgKeyBytes + avgValueBytes + OVERHEAD_BYTES_PER_ENTRY) * GenerationSizing.HEADROOM;
        long diskBound = (long) (Math.max(0, usableDiskBytes) * DISK_SHARE / bytesPerEntry);
        return Math.min(estimate, Math.max(ALWAYS_ALLOWED_ENTRIES, diskBound));
    }

    /**
     * Ends sampling once the generation exists: returns the records held back, in order, to apply to it. Their
     * reservations pass to the caller, which releases each ({@link SampleBudget#cost}) once it is applied.
     */
    List<String[]> finish() {
        sampling = false;
        List<String[]> pending = new ArrayList<>(samples);
        reservedBytes = 0;
        clear();
        return pending;
    }

    /** Drops the records held back (the rebuild they were for is abandoned), and their reservations. */
    void clear() {
        budget.release(reservedBytes);
        reservedBytes = 0;
        samples.clear();
        sampleBytes = 0;
    }

    /** Average UTF-8 key and value sizes of up to 1,000 entries of {@code generation}; 0 (fallbacks) when empty. */
    static double[] averagesOf(GenerationFile generation) {
        long[] totals = new long[3];
        try {
            generation.forEachWhile(
                    (k, v) -> {
                        totals[0] += Utf8.chronicleLength(k);
                        totals[1] += Utf8.chronicleLength(v);
                        return ++totals[2] < 1_000;
                    },
                    NamespaceIngest.WRITE_LOCK_NANOS);
        } catch (LockTimeoutException e) {
            // a segment left locked: what was sampled before it will do
        }
        return totals[2] == 0
                ? new double[] {0, 0}
                : new double[] {(double) totals[0] / totals[2], (double) totals[1] / totals[2]};
    }
}
