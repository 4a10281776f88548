package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Tables and charts of a {@link ScaleHarness} result: {@link #markdown} gives the full tables (docs/benchmarks.md
 * shows them condensed), {@link #render} the charts ({@code bench-<file>-times.png}: seconds per step; {@code bench-<file>-lookups.png}:
 * ns per lookup by store size; {@code bench-<file>-bytes.png}: bytes per entry against the raw bytes).
 * {@link ChartRenderer} calls {@link #render} for a result that has {@code storeFiles}.
 *
 * <p>Usage: {@code ScaleReport <result.json>}: prints the tables.
 */
public final class ScaleReport {
    private ScaleReport() {}

    public static void main(String[] args) throws IOException {
        System.out.println(markdown(new ObjectMapper().readTree(Path.of(args[0]).toFile())));
    }

    /** The run's tables in Markdown. */
    static String markdown(JsonNode r) {
        long n = r.path("records").asLong();
        JsonNode m = r.path("machine");
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                "Machine: %d cores, %.1f GiB memory; load average %s at the start. Writer options " + "added: %s.%n%n",
                m.path("cores").asInt(),
                m.path("memoryBytes").asDouble() / (1L << 30),
                m.path("loadAverageAtStart").asText(),
                r.path("writerArgs").asText("").isEmpty()
                        ? "none"
                        : "`" + r.path("writerArgs").asText() + "`"));
        s.append(String.format(
                "| %s records, %d partitions | time | records/s | load at start, end |%n",
                count(n), r.path("partitions").asInt()));
        s.append("|---|---|---|---|\n");
        s.append(String.format(
                "| produced (%s) | %s | %,.0f | |%n",
                r.path("produce").path("settings").asText(),
                seconds(r.path("produce").path("millis")),
                n * 1000.0 / r.path("produce").path("millis").asDouble()));
        row(s, "bare `KafkaConsumer`, decode only", r.path("bareConsumer"), n);
        row(s, "writer, empty store to `/ready`", r.path("writerBootstrap"), n);
        s.append(String.format(
                "| writer ÷ bare consumer | **%.2f ×** | | |%n",
                r.path("writerToBareConsumerRatio").asDouble()));
        s.append(String.format("| `verify` | %s | | |%n", seconds(r.path("verifyMillis"))));
        s.append(String.format("| `snapshot` | %s | | |%n", seconds(r.path("snapshotMillis"))));
        s.append(String.format(
                "| new writer `--seed`ed from it, to `/ready` | %s (%.2f × the bootstrap) | | |%n",
                seconds(r.path("seed").path("millisFromProcessStart")),
                r.path("seed").path("millisFromProcessStart").asDouble()
                        / r.path("writerBootstrap")
                                .path("millisFromProcessStart")
                                .asDouble()));
        s.append(String.format(
                "| reader JVM start to first value (median of %d) | %d ms | | |%n%n",
                r.path("readerStart").path("runs").size(),
                r.path("readerStart").path("medianMillis").asLong()));

        JsonNode f = r.path("storeFiles");
        JsonNode w = r.path("writerBootstrap").path("writer");
        s.append("| store and writer after the bootstrap | |\n|---|---|\n");
        s.append(String.format(
                "| store files | %.2f GB (generation file %.2f GB), capacity %s entries |%n",
                f.path("totalBytes").asDouble() / 1e9,
                f.path("generationFileBytes").asDouble() / 1e9,
                count(r.path("writerBootstrap").path("capacity").asLong())));
        s.append(String.format(
                "| bytes per entry | %.1f on disk for %.1f of key and value (%.2f ×) |%n",
                f.path("bytesPerEntry").asDouble(),
                f.path("rawKeyAndValueBytesPerEntry").asDouble(),
                f.path("bytesPerEntry").asDouble()
                        / f.path("rawKeyAndValueBytesPerEntry").asDouble()));
        s.append(String.format(
                "| writer RSS, highest: outside the store / in all | %.0f MiB / %.0f MiB |%n",
                w.path("maxRssOutsideStoreBytes").asDouble() / (1 << 20),
                w.path("maxRssBytes").asDouble() / (1 << 20)));
        s.append(String.format(
                "| writer page faults: minor / major | %,d / %,d |%n",
                w.path("minorFaults").asLong(), w.path("majorFaults").asLong()));
        s.append(String.format(
                "| writer CPU: user / system | %.1f s / %.1f s |%n%n",
                w.path("userCpuSeconds").asDouble(), w.path("systemCpuSeconds").asDouble()));

        s.append("| entries | store | `getInto` (ValueBuffer) ns | `getAllInto` ns per key "
                + "| `ConcurrentHashMap.get` ns |\n|---|---|---|---|---|\n");
        for (JsonNode size : r.path("lookups")) {
            Map<String, String> byName = new LinkedHashMap<>();
            for (JsonNode b : size.path("results")) {
                double error = b.path("error").asDouble(Double.NaN); // NaN with fewer than 3 iterations
                byName.put(
                        b.path("benchmark").asText(),
                        !b.has("nsPerOp")
                                ? "not measured (heap)"
                                : Double.isNaN(error)
                                        ? String.format(
                                                "%.0f", b.path("nsPerOp").asDouble())
                                        : String.format(
                                                "%.0f ± %.0f", b.path("nsPerOp").asDouble(), error));
            }
            s.append(String.format(
                    "| %s | %s | %s | %s | %s |%n",
                    count(size.path("entries").asLong()),
                    size.path("store").asText(),
                    byName.get("getIntoValueBuffer"),
                    byName.get("getAllIntoBatchOf8"),
                    byName.get("concurrentHashMapGet")));
        }
        JsonNode g = r.path("growth");
        s.append(String.format(
                "%n| growth to %s entries while %d reader JVMs read | |%n|---|---|%n",
                count(2 * n), g.path("readers").asInt()));
        s.append(String.format(
                "| first new record sent to %s entries in a new generation | %s (capacity %s → %s, " + "%d growth) |%n",
                count(2 * n),
                seconds(g.path("millisToDoubled")),
                count(g.path("capacityBefore").asLong()),
                count(g.path("capacityAfter").asLong()),
                g.path("growths").asInt()));
        for (JsonNode reader : g.path("readerRows")) {
            s.append(String.format(
                    "| reader: %,d lookups, worst / p99.9 / p99 | %.0f µs / %.0f µs / %.1f µs "
                            + "(%d over 1 ms, %d misses, grown generation seen: %s) |%n",
                    reader.path("lookups").asLong(),
                    reader.path("maxMicros").asDouble(),
                    reader.path("p999Micros").asDouble(),
                    reader.path("p99Micros").asDouble(),
                    reader.path("lookupsOver1ms").asLong(),
                    reader.path("misses").asLong(),
                    reader.path("sawGrownGeneration").asBoolean()));
        }
        s.append(String.format(
                "| writer RSS outside the store during the growth, highest | %.0f MiB |%n",
                g.path("writer").path("maxRssOutsideStoreBytes").asDouble() / (1 << 20)));
        return s.toString();
    }

    private static void row(StringBuilder s, String name, JsonNode row, long n) {
        s.append(String.format(
                "| %s | %s | %,.0f | %s, %s |%n",
                name,
                seconds(row.path("millisFromProcessStart")),
                n * 1000.0 / row.path("millisFromProcessStart").asDouble(),
                row.path("loadAverageAtStart").asText(),
                row.path("loadAverageAtEnd").asText()));
    }

    private static String seconds(JsonNode millis) {
        return String.format("%.1f s", millis.asDouble() / 1000);
    }

    static String count(long v) {
        if (v >= 1_000_000 && v % 1_000_000 == 0) {
            return v / 1_000_000 + "M";
        }
        return String.format("%,d", v);
    }

    /** The charts of one result; returns the files written. */
    static List<Path> render(String base, JsonNode r, Path outDir) throws IOException {
        long n = r.path("records").asLong();
        List<Path> written = new ArrayList<>();
        CategoryChart times = chart(
                String.format(
                        "%s: %s records, %d cores",
                        base, count(n), r.path("machine").path("cores").asInt()),
                "s");
        Map<String, JsonNode> steps = new LinkedHashMap<>();
        steps.put("produce (one producer)", r.path("produce").path("millis"));
        steps.put("bare consumer, decode only", r.path("bareConsumer").path("millisFromProcessStart"));
        steps.put("writer, empty store to /ready", r.path("writerBootstrap").path("millisFromProcessStart"));
        steps.put("verify", r.path("verifyMillis"));
        steps.put("snapshot", r.path("snapshotMillis"));
        steps.put("new writer --seed to /ready", r.path("seed").path("millisFromProcessStart"));
        steps.put("growth to 2x, readers reading", r.path("growth").path("millisToDoubled"));
        for (var step : steps.entrySet()) {
            times.addSeries(
                    step.getKey(), List.of("seconds"), List.of(step.getValue().asDouble() / 1000));
        }
        written.add(save(times, outDir.resolve("bench-" + base + "-times.png")));

        CategoryChart lookups = chart(base + ": lookups by store size (average, random keys)", "ns per key");
        List<String> sizes = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String b : List.of("getIntoValueBuffer", "getAllIntoBatchOf8", "concurrentHashMapGet")) {
            series.put(b, new ArrayList<>());
        }
        for (JsonNode size : r.path("lookups")) {
            sizes.add(count(size.path("entries").asLong()) + " entries");
            for (var s : series.entrySet()) {
                double v = 0;
                for (JsonNode b : size.path("results")) {
                    if (b.path("benchmark").asText().equals(s.getKey())) {
                        v = b.path("nsPerOp").asDouble(0);
                    }
                }
                s.getValue().add(v);
            }
        }
        if (!sizes.isEmpty()) {
            series.forEach((name, values) -> lookups.addSeries(name, sizes, values));
            written.add(save(lookups, outDir.resolve("bench-" + base + "-lookups.png")));
        }

        CategoryChart bytes = chart(base + ": bytes per entry", "bytes");
        JsonNode f = r.path("storeFiles");
        bytes.addSeries(
                "store files on disk",
                List.of(count(n) + " entries"),
                List.of(f.path("bytesPerEntry").asDouble()));
        bytes.addSeries(
                "raw key + value",
                List.of(count(n) + " entries"),
                List.of(f.path("rawKeyAndValueBytesPerEntry").asDouble()));
        written.add(save(bytes, outDir.resolve("bench-" + base + "-bytes.png")));
        return written;
    }

    private static CategoryChart chart(String title, String unit) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(1000)
                .height(560)
                .title(title)
                .yAxisTitle(unit)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE); // seven steps overflow a row below
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        chart.getStyler().setLabelsVisible(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.#");
        return chart;
    }

    private static Path save(CategoryChart chart, Path file) throws IOException {
        Files.createDirectories(file.getParent());
        ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile());
        return file;
    }
}
