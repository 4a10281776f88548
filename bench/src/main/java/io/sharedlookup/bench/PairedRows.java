package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Result rows of the paired harnesses ({@link LookupMatrixPairs}, {@link DruidQueryPairs}) in JMH's JSON layout, so
 * that {@link ChartRenderer} reads them as it reads JMH's: the median of the rounds as the score, half its bootstrap
 * interval as the error, and the median of the per-round ratios with its interval.
 */
final class PairedRows {
    static final ObjectMapper JSON = new ObjectMapper();

    private PairedRows() {}

    /** Puts JMH's {@code primaryMetric}: the median of {@code perRound} and half its 95 % interval as the error. */
    static void putScore(ObjectNode row, double[] perRound, String unit) {
        double[] interval = PairedMedians.interval(perRound);
        ObjectNode primary = row.putObject("primaryMetric");
        primary.put("score", PairedMedians.median(perRound));
        primary.put("scoreError", (interval[1] - interval[0]) / 2);
        primary.put("scoreUnit", unit);
    }

    /**
     * Puts {@code field}, {@code fieldLow} and {@code fieldHigh}: the median over rounds of
     * {@code numerator[r] / denominator[r]} and its bootstrap 95 % interval.
     */
    static void putRatio(ObjectNode row, String field, double[] numerator, double[] denominator) {
        double[] ratios = new double[numerator.length];
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = numerator[r] / denominator[r];
        }
        double[] interval = PairedMedians.interval(ratios);
        row.put(field, PairedMedians.median(ratios));
        row.put(field + "Low", interval[0]);
        row.put(field + "High", interval[1]);
    }

    /** Adds {@code rows} to the JSON array in {@code out} (created when missing), replaced whole so a reader never
     * sees half a file. */
    static void append(Path out, ArrayNode rows) throws IOException {
        ArrayNode all = JSON.createArrayNode();
        if (Files.exists(out)) {
            for (JsonNode row : JSON.readTree(out.toFile())) {
                all.add(row);
            }
        }
        all.addAll(rows);
        Path parent = out.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = Files.createTempFile(parent, out.getFileName().toString(), ".tmp");
        JSON.writerWithDefaultPrettyPrinter().writeValue(temp.toFile(), all);
        Files.move(temp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The system load average now, recorded beside the rows so a reader can tell whether the machine was quiet. */
    static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
