package io.sharedlookup.bench;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Medians of paired measurements and their bootstrap intervals, for the harnesses that alternate peers in one JVM
 * ({@link ReaderVersions}, {@link LookupMatrixPairs}) instead of comparing JMH forks: each pair's ratio cancels what
 * the machine did during that pair, and the median of the ratios ignores the pairs a pause or a neighbour spoiled.
 */
final class PairedMedians {
    private static final int RESAMPLES = 2000;

    private PairedMedians() {}

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** A 95 % bootstrap interval of {@link #median}: {low, high}. The seed is fixed so a rerun prints the same. */
    static double[] interval(double[] values) {
        SplittableRandom random = new SplittableRandom(5);
        double[] medians = new double[RESAMPLES];
        double[] sample = new double[values.length];
        for (int b = 0; b < medians.length; b++) {
            for (int i = 0; i < sample.length; i++) {
                sample[i] = values[random.nextInt(values.length)];
            }
            medians[b] = median(sample);
        }
        Arrays.sort(medians);
        return new double[] {medians[medians.length / 40], medians[medians.length - 1 - medians.length / 40]};
    }
}
