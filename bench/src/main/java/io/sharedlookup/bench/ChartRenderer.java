package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Renders the JSON results in {@code bench/results} as PNG bar charts (XChart), one set per results file:
 * <ul>
 *   <li>JMH results (an array), drawn by {@link JmhCharts}: {@code bench-<file>-<mode>.png}, the primary score per
 *       benchmark, grouped by parameters and thread count; for sample-mode results,
 *       {@code bench-<file>-percentiles-<config>.png} with p50/p99/p99.9; with the gc profiler,
 *       {@code bench-<file>-alloc.png} with B/op;</li>
 *   <li>{@link MemoryHarness} results (an object): {@code bench-<file>.png}, heap per JVM and total PSS;</li>
 *   <li>{@link FreshnessHarness} results: {@code bench-<file>.png}, p50/p99/p99.9 per update rate;</li>
 *   <li>{@link HttpHarness} results: {@code bench-<file>.png}, p50/p99/p99.9 at the fixed request rate;</li>
 *   <li>{@link BootstrapHarness} results: {@code bench-<file>.png}, seconds from process start to done per peer;</li>
 *   <li>{@link GcStoryHarness} results: {@code bench-<file>.png}, three panels side by side: query latency
 *       p50/p99/max, GC pauses (total and longest) during the measurement, heap after GC;</li>
 *   <li>{@link ScaleHarness} results: {@link ScaleReport}'s three charts.</li>
 * </ul>
 * Usage: {@code ChartRenderer <output dir> <result.json>...}; prints every file written.
 */
public final class ChartRenderer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;

    private ChartRenderer() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ChartRenderer <output dir> <result.json>...");
            System.exit(2);
        }
        System.setProperty("java.awt.headless", "true");
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        for (int i = 1; i < args.length; i++) {
            for (Path written : render(Path.of(args[i]), out)) {
                System.out.println("chart: " + written);
            }
        }
    }

    /** Renders one results file; returns the PNG files written. */
    public static List<Path> render(Path result, Path outDir) throws IOException {
        JsonNode root = JSON.readTree(result.toFile());
        String base = result.getFileName().toString().replaceFirst("\\.json$", "");
        if (base.startsWith("lookup-matrix")) { // ratios to the map per shape and value size
            return LookupMatrixReport.charts(base, root, outDir);
        }
        if (root.isArray()) {
            return JmhCharts.render(base, root, outDir);
        }
        if (root.has("heapCopies")) {
            return List.of(renderMemory(base, root, outDir));
        }
        if (root.has("rates")) {
            return List.of(renderFreshness(base, root, outDir));
        }
        if (root.has("storeFiles") && root.has("growth")) { // before writerBootstrap, which it also has
            return ScaleReport.render(base, root, outDir);
        }
        if (root.has("writerBootstrap")) {
            return List.of(renderBootstrap(base, root, outDir));
        }
        if (root.has("fixedRate")) {
            return List.of(renderHttp(base, root, outDir));
        }
        if (root.has("mapLookup") && root.has("sharedLookup")) {
            return List.of(renderGcStory(base, root, outDir));
        }
        return List.of();
    }

    private static Path renderMemory(String base, JsonNode root, Path outDir) throws IOException {
        String title = String.format(
                "%s: %,d entries, %d JVMs (store file %.0f MB)",
                base,
                root.path("entries").asLong(),
                root.path("jvms").asInt(),
                root.path("storeFileBytes").asDouble() / 1e6);
        CategoryChart chart = chart(title, "MB");
        List<String> categories = List.of("heap used per JVM", "total PSS of the JVMs");
        Map<String, String> roles = new LinkedHashMap<>();
        roles.put("idle", "idle JVM (baseline)");
        roles.put("sharedStoreReaders", "JVMs reading one shared store");
        roles.put("heapCopies", "JVMs each with a ConcurrentHashMap copy");
        for (var role : roles.entrySet()) {
            JsonNode jvms = root.path(role.getKey());
            double heap = 0;
            double pss = 0;
            for (JsonNode jvm : jvms) {
                heap += jvm.path("heapUsedBytes").asDouble();
                pss += jvm.path("pssBytes").asDouble();
            }
            int n = Math.max(1, jvms.size());
            chart.addSeries(role.getValue(), categories, List.of(heap / n / 1e6, pss / 1e6));
        }
        return save(chart, outDir.resolve("bench-" + base + ".png"));
    }

    private static Path renderFreshness(String base, JsonNode root, Path outDir) throws IOException {
        CategoryChart chart = chart(base + ": Kafka produce to visible in a reader JVM (log scale)", "ms");
        chart.getStyler().setYAxisLogarithmic(true);
        List<String> categories = List.of("p50", "p99", "p99.9");
        double min = Double.MAX_VALUE;
        for (JsonNode rate : root.path("rates")) {
            min = Math.min(min, positive(rate.path("p50Micros").asDouble() / 1000));
        }
        chart.getStyler().setYAxisMin(floor(min));
        for (JsonNode rate : root.path("rates")) {
            chart.addSeries(
                    String.format("%,d updates/s", rate.path("updatesPerSecond").asInt()),
                    categories,
                    List.of(
                            positive(rate.path("p50Micros").asDouble() / 1000),
                            positive(rate.path("p99Micros").asDouble() / 1000),
                            positive(rate.path("p999Micros").asDouble() / 1000)));
        }
        return save(chart, outDir.resolve("bench-" + base + ".png"));
    }

    private static Path renderHttp(String base, JsonNode root, Path outDir) throws IOException {
        JsonNode fixed = root.path("fixedRate");
        CategoryChart chart = chart(
                String.format(
                        "%s: writer HTTP /lookup at %,d requests/s, open loop (log scale)",
                        base, fixed.path("requestsPerSecond").asInt()),
                "ms");
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisMin(floor(positive(fixed.path("p50Micros").asDouble() / 1000)));
        chart.addSeries(
                root.path("connections").asInt() + " keep-alive connections",
                List.of("p50", "p99", "p99.9"),
                List.of(
                        positive(fixed.path("p50Micros").asDouble() / 1000),
                        positive(fixed.path("p99Micros").asDouble() / 1000),
                        positive(fixed.path("p999Micros").asDouble() / 1000)));
        return save(chart, outDir.resolve("bench-" + base + ".png"));
    }

    private static Path renderBootstrap(String base, JsonNode root, Path outDir) throws IOException {
        CategoryChart chart = chart(
                String.format(
                        "%s: %,d records, process start to done",
                        base, root.path("records").asLong()),
                "s");
        Map<String, String> peers = new LinkedHashMap<>();
        peers.put("bareConsumer", "bare KafkaConsumer, decode only");
        peers.put("writerBootstrap", "writer, empty store to /ready");
        peers.put("hashMapConsumer", "KafkaConsumer into a HashMap");
        peers.put("writerResume", "writer restart to /ready");
        peers.put("readerStart", "reader JVM to first lookup (median)");
        peers.put("readerStartWithoutNativeBindings", "reader JVM, no JNA/jnr (median)");
        for (var peer : peers.entrySet()) {
            JsonNode row = root.path(peer.getKey());
            String field = row.has("millisFromProcessStart") ? "millisFromProcessStart" : "medianMillis";
            if (row.has(field)) {
                chart.addSeries(
                        peer.getValue(),
                        List.of("seconds"),
                        List.of(row.path(field).asDouble() / 1000));
            }
        }
        return save(chart, outDir.resolve("bench-" + base + ".png"));
    }

    /** Three panels in one image: latency percentiles, GC pauses, heap; one series per lookup. */
    private static Path renderGcStory(String base, JsonNode root, Path outDir) throws IOException {
        Map<String, String> modes = new LinkedHashMap<>();
        modes.put("mapLookup", "map lookup (HashMap on the heap)");
        modes.put("sharedLookup", "sharedLookup (off-heap store)");
        String setting = String.format(
                "%s entries, %s rows, %s ids, -Xmx%s, %d MB/s allocated alongside, %d s",
                count(root.path("entries").asText()),
                count(root.path("rows").asText()),
                count(root.path("ids").asText()),
                root.path("heap").asText(),
                root.path("allocationMBPerSecond").asInt(),
                root.path("measureSeconds").asInt());
        JsonNode map = root.path("mapLookup");
        JsonNode shared = root.path("sharedLookup");
        int panel = WIDTH * 2 / 3;
        CategoryChart latency = chart(
                String.format(
                        "groupBy latency, log scale (queries: %,d vs %,d)",
                        map.path("queries").asLong(), shared.path("queries").asLong()),
                "ms",
                panel);
        CategoryChart gc = chart(
                String.format(
                        "GC pauses while measuring (%d vs %d; full: %d vs %d)",
                        map.path("gc").path("pauses").asInt(),
                        shared.path("gc").path("pauses").asInt(),
                        map.path("gc").path("fullPauses").asInt(),
                        shared.path("gc").path("fullPauses").asInt()),
                "ms",
                panel);
        CategoryChart heap = chart("heap after GC", "MB", panel);
        double min = Double.MAX_VALUE;
        for (String mode : modes.keySet()) {
            min = Math.min(min, positive(root.path(mode).path("p50Millis").asDouble()));
        }
        latency.getStyler().setYAxisLogarithmic(true);
        latency.getStyler().setYAxisMin(floor(min));
        for (var mode : modes.entrySet()) {
            JsonNode row = root.path(mode.getKey());
            String outcome = row.path("outcome").asText();
            String label = mode.getValue() + ("completed".equals(outcome) ? "" : ": " + outcome);
            latency.addSeries(
                    label,
                    List.of("p50", "p99", "max"),
                    List.of(
                            Math.max(positive(row.path("p50Millis").asDouble()), floor(min)),
                            Math.max(positive(row.path("p99Millis").asDouble()), floor(min)),
                            Math.max(positive(row.path("maxMillis").asDouble()), floor(min))));
            JsonNode pauses = row.path("gc");
            gc.addSeries(
                    label,
                    List.of("total", "longest"),
                    List.of(
                            pauses.path("pauseTotalMillis").asDouble(),
                            pauses.path("pauseMaxMillis").asDouble()));
            heap.addSeries(
                    label,
                    List.of("after load", "highest after a GC", "live at the end"),
                    List.of(
                            row.path("heapAfterLoadMB").asDouble(),
                            Math.max(0, pauses.path("heapAfterGcMaxMB").asDouble()),
                            row.path("liveHeapAfterFinalFullGcMB").asDouble()));
        }
        java.awt.image.BufferedImage image =
                new java.awt.image.BufferedImage(panel * 3, HEIGHT + 40, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = image.createGraphics();
        g.setColor(java.awt.Color.WHITE);
        g.fillRect(0, 0, image.getWidth(), image.getHeight());
        g.setColor(java.awt.Color.BLACK);
        g.setRenderingHint(
                java.awt.RenderingHints.KEY_TEXT_ANTIALIASING, java.awt.RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD, 16));
        g.drawString(base + ": " + setting, 12, 26);
        int x = 0;
        for (CategoryChart c : List.of(latency, gc, heap)) {
            c.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
            c.getStyler().setYAxisDecimalPattern("#,##0.#");
            g.drawImage(BitmapEncoder.getBufferedImage(c), x, 40, null);
            x += panel;
        }
        g.dispose();
        Path file = outDir.resolve("bench-" + base + ".png");
        ImageIO.write(image, "png", file.toFile());
        return file;
    }

    /** A bar chart of the renderer's size and style. */
    static CategoryChart chart(String title, String unit) {
        return chart(title, unit, WIDTH);
    }

    private static CategoryChart chart(String title, String unit, int width) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(width)
                .height(HEIGHT)
                .title(title)
                .yAxisTitle(unit)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        chart.getStyler().setLabelsVisible(true);
        // Bar labels follow the y-axis pattern: three decimals, so sub-unit figures (0.036 ms) do not print as 0.
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        return chart;
    }

    /** Writes {@code chart} as a PNG to {@code file} and returns the file. */
    static Path save(CategoryChart chart, Path file) throws IOException {
        ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile());
        return file;
    }

    /** The power of ten at or below {@code v}. */
    static double floor(double v) {
        return Math.pow(10, Math.floor(Math.log10(v)));
    }

    /** {@code v}, or a thousandth when it is not positive: a log axis rejects zero. */
    static double positive(double v) {
        return v > 0 ? v : 1e-3;
    }

    /** "100k" or "2M" for round thousands and millions, else the number as given. */
    static String count(String n) {
        long v = Long.parseLong(n);
        if (v >= 1_000_000 && v % 1_000_000 == 0) {
            return v / 1_000_000 + "M";
        }
        if (v >= 1_000 && v % 1_000 == 0) {
            return v / 1_000 + "k";
        }
        return n;
    }
}
