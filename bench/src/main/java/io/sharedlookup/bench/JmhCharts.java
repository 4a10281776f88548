package io.sharedlookup.bench;

import static io.sharedlookup.bench.ChartRenderer.chart;
import static io.sharedlookup.bench.ChartRenderer.count;
import static io.sharedlookup.bench.ChartRenderer.floor;
import static io.sharedlookup.bench.ChartRenderer.positive;
import static io.sharedlookup.bench.ChartRenderer.save;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.CategoryChart;

/**
 * {@link ChartRenderer}'s charts of JMH results (a JSON array of rows): {@code bench-<file>-<mode>.png}, the primary
 * score per benchmark grouped by parameters and thread count; for sample-mode results,
 * {@code bench-<file>-percentiles-<config>.png} with p50/p99/p99.9; with the gc profiler, {@code bench-<file>-alloc.png}
 * with B/op. Its own class because JMH's row layout (modes, params, primary and secondary metrics) is one format of
 * its own, where the renderer's other charts each read one harness's object.
 */
final class JmhCharts {
    private JmhCharts() {}

    /** Renders a JMH results file (an array of rows); returns the PNG files written. */
    static List<Path> render(String base, JsonNode rows, Path outDir) throws IOException {
        // mode -> config label -> benchmark -> row
        Map<String, Map<String, Map<String, JsonNode>>> byMode = new TreeMap<>();
        for (JsonNode row : rows) {
            byMode.computeIfAbsent(row.path("mode").asText(), m -> new LinkedHashMap<>())
                    .computeIfAbsent(config(row), c -> new TreeMap<>())
                    .put(shortName(row.path("benchmark").asText()), row);
        }
        List<Path> written = new ArrayList<>();
        for (var mode : byMode.entrySet()) {
            Map<String, Map<String, JsonNode>> configs = mode.getValue();
            String unit =
                    anyRow(configs).path("primaryMetric").path("scoreUnit").asText();
            String title = base + ": " + modeName(mode.getKey());
            if (!mode.getKey().equals("sample")) { // sample mode: its percentiles, below, not its mean again
                written.add(bars(
                        outDir.resolve("bench-" + base + "-" + mode.getKey() + ".png"),
                        title,
                        unit,
                        configs,
                        true,
                        row -> row.path("primaryMetric").path("score").asDouble(Double.NaN)));
            }
            if (anyRow(configs).path("secondaryMetrics").has("gc.alloc.rate.norm")
                    && mode.getKey().equals("avgt")) {
                written.add(bars(
                        outDir.resolve("bench-" + base + "-alloc.png"),
                        base + ": bytes allocated per call",
                        "B/op",
                        configs,
                        false,
                        row -> row.path("secondaryMetrics")
                                .path("gc.alloc.rate.norm")
                                .path("score")
                                .asDouble(Double.NaN)));
            }
            if (mode.getKey().equals("sample")) {
                for (var config : configs.entrySet()) {
                    written.add(percentiles(
                            outDir.resolve("bench-" + base + "-percentiles-"
                                    + config.getKey().replaceAll("[^A-Za-z0-9]+", "-") + ".png"),
                            base + ": latency percentiles, " + config.getKey(),
                            unit,
                            config.getValue()));
                }
            }
        }
        return written;
    }

    private interface Metric {
        double of(JsonNode row);
    }

    /**
     * Grouped bars: x = configuration, one series per benchmark; logarithmic when allowed and values span > 30x
     * (then a missing or zero value is drawn at the axis floor; XChart's log axis rejects both).
     */
    private static Path bars(
            Path file,
            String title,
            String unit,
            Map<String, Map<String, JsonNode>> configs,
            boolean allowLog,
            Metric metric)
            throws IOException {
        List<String> categories = new ArrayList<>(configs.keySet());
        Map<String, List<Double>> series = new TreeMap<>();
        for (Map<String, JsonNode> byBenchmark : configs.values()) {
            byBenchmark.keySet().forEach(b -> series.putIfAbsent(b, new ArrayList<>()));
        }
        double min = Double.MAX_VALUE;
        double max = 0;
        for (String config : categories) {
            for (var s : series.entrySet()) {
                JsonNode row = configs.get(config).get(s.getKey());
                double value = row == null ? Double.NaN : metric.of(row);
                s.getValue().add(value);
                if (value > 0) {
                    min = Math.min(min, value);
                    max = Math.max(max, value);
                }
            }
        }
        boolean log = allowLog && max > 0 && max / min > 30;
        CategoryChart chart = chart(title + (log ? " (log scale)" : ""), unit);
        chart.getStyler().setYAxisLogarithmic(log);
        if (log) {
            chart.getStyler().setYAxisMin(floor(min)); // bars otherwise start at 0, which a log axis rejects
        }
        for (var s : series.entrySet()) {
            List<Double> values = new ArrayList<>();
            for (double v : s.getValue()) {
                if (log && !(v > 0)) {
                    values.add(min);
                } else {
                    values.add(Double.isNaN(v) ? 0 : v);
                }
            }
            chart.addSeries(s.getKey(), categories, values);
        }
        return save(chart, file);
    }

    private static Path percentiles(Path file, String title, String unit, Map<String, JsonNode> byBenchmark)
            throws IOException {
        List<String> categories = List.of("p50", "p99", "p99.9");
        CategoryChart chart = chart(title + " (log scale)", unit);
        chart.getStyler().setYAxisLogarithmic(true);
        double min = Double.MAX_VALUE;
        for (JsonNode row : byBenchmark.values()) {
            min = Math.min(
                    min,
                    positive(row.path("primaryMetric")
                            .path("scorePercentiles")
                            .path("50.0")
                            .asDouble()));
        }
        chart.getStyler().setYAxisMin(floor(min));
        for (var b : byBenchmark.entrySet()) {
            JsonNode p = b.getValue().path("primaryMetric").path("scorePercentiles");
            chart.addSeries(
                    b.getKey(),
                    categories,
                    List.of(
                            positive(p.path("50.0").asDouble()),
                            positive(p.path("99.0").asDouble()),
                            positive(p.path("99.9").asDouble())));
        }
        return save(chart, file);
    }

    private static JsonNode anyRow(Map<String, Map<String, JsonNode>> configs) {
        return configs.values().iterator().next().values().iterator().next();
    }

    /** "100k entries, 1 thread" from a row's parameters and thread count. */
    private static String config(JsonNode row) {
        StringBuilder label = new StringBuilder();
        row.path("params").properties().forEach(p -> {
            if (label.length() > 0) {
                label.append(", ");
            }
            label.append(
                    p.getKey().equals("entries")
                            ? count(p.getValue().asText()) + " entries"
                            : p.getKey() + "=" + p.getValue().asText());
        });
        int threads = row.path("threads").asInt(1);
        if (label.length() > 0) {
            label.append(", ");
        }
        return label.append(threads)
                .append(threads == 1 ? " thread" : " threads")
                .toString();
    }

    private static String shortName(String benchmark) {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }

    private static String modeName(String mode) {
        return switch (mode) {
            case "avgt" -> "average time per call";
            case "sample" -> "sampled time per call";
            case "thrpt" -> "throughput";
            default -> mode;
        };
    }
}
