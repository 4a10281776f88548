package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How big the first generation of a rebuild is made: as many entries as the topic holds records (capped), each of the
 * average key and value size of the first records read, which are held back until it exists. Also the averages of a
 * resumed generation, which are not recorded with it.
 */
final class InitialSizing {
    /**
     * The first generation is sized for at most this many entries. {@code endOffset - beginningOffset} counts every
     * update not yet compacted away: on a busy topic it can exceed the distinct keys a thousandfold, and a generation
     * is preallocated on disk. Beyond this, growth takes over (each step doubles).
     */
    static final long MAX_EXPECTED_ENTRIES = 2_000_000;
    private static final int SAMPLE_RECORDS = 1000;
    private static final long SAMPLE_BYTES = 4 << 20;

    private boolean sampling;
    private long expectedEntries;
    private final List<String[]> samples = new ArrayList<>();
    private long sampleBytes;

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

    /** Holds a record ({@code value == null} removes) back for the sample; true once the sample is big enough. */
    boolean add(String key, String value) {
        samples.add(new String[] {key, value});
        sampleBytes += key.length() + (value == null ? 0 : value.length());
        return samples.size() >= SAMPLE_RECORDS || sampleBytes >= SAMPLE_BYTES;
    }

    /** Records held back so far. */
    int sampled() {
        return samples.size();
    }

    /** The first generation's sizing: the expected entries, capped, and the sample's average sizes. */
    GenerationSizing sizing() {
        double avgKey = 0;
        double avgValue = 0;
        int values = 0;
        for (String[] s : samples) {
            avgKey += Utf8.length(s[0]);
            if (s[1] != null) {
                avgValue += Utf8.length(s[1]);
                values++;
            }
        }
        avgKey = samples.isEmpty() ? 0 : avgKey / samples.size();
        avgValue = values == 0 ? 0 : avgValue / values;
        return GenerationSizing.forExpected(Math.min(expectedEntries, MAX_EXPECTED_ENTRIES), avgKey, avgValue);
    }

    /** Ends sampling once the generation exists: returns the records held back, in order, to apply to it. */
    List<String[]> finish() {
        sampling = false;
        List<String[]> pending = new ArrayList<>(samples);
        clear();
        return pending;
    }

    /** Drops the records held back (the rebuild they were for is abandoned). */
    void clear() {
        samples.clear();
        sampleBytes = 0;
    }

    /** Average UTF-8 key and value sizes of up to 1,000 entries of {@code generation}; 0 (fallbacks) when empty. */
    static double[] averagesOf(GenerationFile generation) {
        long[] totals = new long[3];
        try {
            generation.forEachWhile((k, v) -> {
                totals[0] += Utf8.length(k);
                totals[1] += Utf8.length(v);
                return ++totals[2] < 1_000;
            }, NamespaceSink.WRITE_LOCK_NANOS);
        } catch (LockTimeoutException e) {
            // a segment left locked: what was sampled before it will do
        }
        return totals[2] == 0 ? new double[] {0, 0}
                : new double[] {(double) totals[0] / totals[2], (double) totals[1] / totals[2]};
    }
}
