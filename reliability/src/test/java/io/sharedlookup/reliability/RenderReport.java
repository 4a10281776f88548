package io.sharedlookup.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Collects the per-scenario figure files into one JSON array and renders them as the figures table of
 * docs/reliability.md (between the {@code figures:begin}/{@code figures:end} markers). No dependencies, so that
 * {@code reliability/run} can launch it as a single source file:
 * {@code java RenderReport.java <figuresDir> <out.json> <reliability.md> <run description>}.
 */
public final class RenderReport {
    private static final String BEGIN = "<!-- figures:begin -->";
    private static final String END = "<!-- figures:end -->";

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Path json = Path.of(args[1]);
        Path md = Path.of(args[2]);
        String run = args.length > 3 ? args[3] : "";
        List<String> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(f -> f.toString().endsWith(".json")).sorted().forEach(f -> {
                try {
                    records.add(Files.readString(f, StandardCharsets.UTF_8).trim());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        Files.writeString(json, "[\n  " + String.join(",\n  ", records) + "\n]\n", StandardCharsets.UTF_8);
        StringBuilder table = new StringBuilder(BEGIN).append('\n');
        table.append("Run: ").append(run).append("\n\n");
        table.append("| scenario | form | seed | trials | failures | worst recovery | worst lookup | notes |\n");
        table.append("|---|---|---|---|---|---|---|---|\n");
        for (String r : records) {
            table.append("| ").append(field(r, "id")).append(": ").append(field(r, "scenario"))
                    .append(" | ").append(field(r, "form"))
                    .append(" | 0x").append(Long.toHexString(Long.parseLong(field(r, "seed"))).toUpperCase())
                    .append(" | ").append(field(r, "trials"))
                    .append(" | ").append(field(r, "failures"))
                    .append(" | ").append(millis(field(r, "worstRecoveryMillis")))
                    .append(" | ").append(millis(field(r, "worstLookupMillis")))
                    .append(" | ").append(field(r, "note").replace("|", "/")).append(" |\n");
        }
        table.append(END);
        String doc = Files.readString(md, StandardCharsets.UTF_8);
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        if (b < 0 || e < b) {
            throw new IllegalStateException(md + " has no " + BEGIN + " … " + END + " section");
        }
        Files.writeString(md, doc.substring(0, b) + table + doc.substring(e + END.length()), StandardCharsets.UTF_8);
        System.out.println("Rendered " + records.size() + " scenarios into " + md + " and " + json);
    }

    private static String millis(String v) {
        long ms = Long.parseLong(v);
        return ms < 0 ? "—" : ms < 10_000 ? ms + " ms" : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\"((?:[^\"\\\\]|\\\\.)*)\"|(-?\\d+))").matcher(json);
        if (!m.find()) {
            return "";
        }
        return m.group(2) != null ? m.group(2).replace("\\\"", "\"").replace("\\\\", "\\") : m.group(3);
    }
}
