package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The lookup matrix's table and charts ({@code bench/results/lookup-matrix-*.json}, {@link LookupBenchmark} run over
 * shapes, value sizes and entries): for every shape and value size, each reader-lib benchmark's time as a ratio to
 * {@code ConcurrentHashMap.get} on the same keys in the same run (the figure the targets are set in), with the
 * times and B/op. {@code main} prints the cell-by-cell Markdown table (bench/results/HISTORY.md keeps one;
 * docs/benchmarks.md shows its ratios as a grid); {@link ChartRenderer} draws one chart of ratios per entries count
 * and reader benchmark.
 */
final class LookupMatrixReport {
    static final String MAP = "concurrentHashMapGet";
    /** The reader-lib benchmarks the matrix runs, in the table's column order, with their column titles. */
    static final Map<String, String> READERS = Map.of(
            "sharedLookupGetIntoValueBuffer", "getInto(ValueBuffer)",
            "sharedLookupGetAllIntoBatchOf8", "getAllInto, batches of 8");

    private static final List<String> READER_ORDER =
            List.of("sharedLookupGetIntoValueBuffer", "sharedLookupGetAllIntoBatchOf8");
    private static final List<String> SHAPES = List.of("numeric7", "ascii20", "uuid", "nonascii", "builder");
    private static final ObjectMapper JSON = new ObjectMapper();

    private LookupMatrixReport() {}

    /**
     * One measured cell: ns per key, bytes allocated per key, and the time × the map: the median of paired ratios when
     * {@link LookupMatrixPairs} measured it (with its 95 % interval), else NaN and the ratio of the averages is used.
     */
    record Cell(double nanos, double error, double bytes, double ratio, double ratioLow, double ratioHigh) {
        /** This reader cell's time × {@code map}'s. */
        double timesMap(Cell map) {
            return Double.isNaN(ratio) ? nanos / map.nanos() : ratio;
        }
    }

    /** entries → shape → value bytes → benchmark → cell, from JMH's average-time rows. */
    static Map<Integer, Map<String, Map<Integer, Map<String, Cell>>>> cells(List<JsonNode> roots) {
        Map<Integer, Map<String, Map<Integer, Map<String, Cell>>>> out = new TreeMap<>();
        for (JsonNode root : roots) {
            for (JsonNode row : root) {
                if (!row.path("mode").asText().equals("avgt")
                        || !row.path("params").has("shape")) {
                    continue;
                }
                JsonNode params = row.path("params");
                String benchmark = row.path("benchmark").asText().replaceFirst(".*\\.", "");
                JsonNode metric = row.path("primaryMetric");
                out.computeIfAbsent(params.path("entries").asInt(), e -> new TreeMap<>())
                        .computeIfAbsent(params.path("shape").asText(), s -> new TreeMap<>())
                        .computeIfAbsent(params.path("valueBytes").asInt(), v -> new TreeMap<>())
                        .put(
                                benchmark,
                                new Cell(
                                        metric.path("score").asDouble(),
                                        metric.path("scoreError").asDouble(Double.NaN),
                                        row.path("secondaryMetrics")
                                                .path("gc.alloc.rate.norm")
                                                .path("score")
                                                .asDouble(Double.NaN),
                                        row.path("ratio").asDouble(Double.NaN),
                                        row.path("ratioLow").asDouble(Double.NaN),
                                        row.path("ratioHigh").asDouble(Double.NaN)));
            }
        }
        return out;
    }

    /** The Markdown table: one row per entries, shape and value size. */
    static String table(Map<Integer, Map<String, Map<Integer, Map<String, Cell>>>> cells) {
        StringBuilder t = new StringBuilder("| entries | keys | value | map ns/op |");
        for (String reader : READER_ORDER) {
            t.append(' ').append(READERS.get(reader)).append(" ns/op (× map, B/op) |");
        }
        t.append("\n|---|---|---|---|")
                .append("---|".repeat(READER_ORDER.size()))
                .append('\n');
        cells.forEach((entries, byShape) -> ordered(byShape)
                .forEach((shape, byValue) -> byValue.forEach((valueBytes, byBenchmark) -> {
                    Cell map = byBenchmark.get(MAP);
                    t.append(String.format(
                            Locale.ROOT,
                            "| %s | %s | %,d B | %s |",
                            count(entries),
                            shape,
                            valueBytes,
                            map == null ? "–" : String.format(Locale.ROOT, "%.0f", map.nanos())));
                    for (String reader : READER_ORDER) {
                        Cell cell = byBenchmark.get(reader);
                        t.append(
                                cell == null
                                        ? " – |"
                                        : String.format(
                                                Locale.ROOT,
                                                " %.0f (%s, %.1f) |",
                                                cell.nanos(),
                                                map == null ? "–" : ratio(cell, map),
                                                cell.bytes()));
                    }
                    t.append('\n');
                })));
        return t.toString();
    }

    /** Per entries count and reader benchmark, a chart: x = key shape, one bar per value size, y = × the map. */
    static List<Path> charts(String base, JsonNode root, Path outDir) throws IOException {
        List<Path> written = new ArrayList<>();
        for (var byEntries : cells(List.of(root)).entrySet()) {
            for (String reader : READER_ORDER) {
                Map<Integer, List<Double>> series = new TreeMap<>();
                List<String> shapes =
                        new ArrayList<>(ordered(byEntries.getValue()).keySet());
                for (String shape : shapes) {
                    byEntries
                            .getValue()
                            .get(shape)
                            .forEach((valueBytes, byBenchmark) ->
                                    series.computeIfAbsent(valueBytes, v -> new ArrayList<>()));
                }
                for (var s : series.entrySet()) {
                    for (String shape : shapes) {
                        Map<String, Cell> byBenchmark =
                                byEntries.getValue().get(shape).get(s.getKey());
                        Cell map = byBenchmark == null ? null : byBenchmark.get(MAP);
                        Cell cell = byBenchmark == null ? null : byBenchmark.get(reader);
                        s.getValue().add(map == null || cell == null ? 0.0 : cell.timesMap(map));
                    }
                }
                if (series.isEmpty()) {
                    continue;
                }
                CategoryChart chart = new CategoryChartBuilder()
                        .width(1000)
                        .height(560)
                        .title(String.format(
                                Locale.ROOT,
                                "%s: %s, %s entries, time × ConcurrentHashMap.get (1 = the" + " map)",
                                base,
                                READERS.get(reader),
                                count(byEntries.getKey())))
                        .xAxisTitle("key shape")
                        .yAxisTitle("× ConcurrentHashMap.get")
                        .build();
                chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
                chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
                chart.getStyler().setLabelsVisible(true);
                chart.getStyler().setYAxisDecimalPattern("#,##0.00");
                series.forEach((valueBytes, ratios) -> chart.addSeries(valueBytes + " B values", shapes, ratios));
                Path file = outDir.resolve("bench-" + base + "-" + count(byEntries.getKey()) + "-" + reader + ".png");
                ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile());
                written.add(file);
            }
        }
        return written;
    }

    /** "1.23", or "1.23 [1.20–1.27]" with the paired interval when there is one. */
    private static String ratio(Cell cell, Cell map) {
        return Double.isNaN(cell.ratioLow())
                ? String.format(Locale.ROOT, "%.2f", cell.timesMap(map))
                : String.format(Locale.ROOT, "%.2f [%.2f–%.2f]", cell.ratio(), cell.ratioLow(), cell.ratioHigh());
    }

    /** Shapes in the matrix's order (numbers first, the builder last), any unknown ones after. */
    private static <V> Map<String, V> ordered(Map<String, V> byShape) {
        Map<String, V> out = new TreeMap<>((a, b) -> {
            int ia = SHAPES.indexOf(a);
            int ib = SHAPES.indexOf(b);
            return ia >= 0 && ib >= 0 ? Integer.compare(ia, ib) : ia >= 0 ? -1 : ib >= 0 ? 1 : a.compareTo(b);
        });
        out.putAll(byShape);
        return out;
    }

    private static String count(int n) {
        return n >= 1_000_000 && n % 1_000_000 == 0
                ? n / 1_000_000 + "M"
                : n >= 1_000 && n % 1_000 == 0 ? n / 1_000 + "k" : Integer.toString(n);
    }

    /** {@code LookupMatrixReport <lookup-matrix-*.json>...}: prints the Markdown table of all of them. */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: LookupMatrixReport <bench/results/lookup-matrix-*.json>...");
            System.exit(2);
        }
        List<JsonNode> roots = new ArrayList<>();
        for (String file : args) {
            roots.add(JSON.readTree(Path.of(file).toFile()));
        }
        System.out.print(table(cells(roots)));
    }
}
