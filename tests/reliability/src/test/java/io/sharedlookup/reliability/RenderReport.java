package io.sharedlookup.reliability;

import io.sharedlookup.reliability.Suite.Figures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Collects the per-scenario figure files into one JSON array and renders them as the figures table of
 * docs/reliability.md (between the {@code figures:begin}/{@code figures:end} markers). Run by {@code tests/reliability/run}
 * on this module's test class path: {@code RenderReport <figuresDir> <out.json> <reliability.md> <run description>}.
 */
public final class RenderReport {
    private static final String BEGIN = "<!-- figures:begin -->";
    private static final String END = "<!-- figures:end -->";

    private RenderReport() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Path json = Path.of(args[1]);
        Path md = Path.of(args[2]);
        String run = args.length > 3 ? args[3] : "";
        List<Figures> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f :
                    files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                records.add(Suite.JSON.readValue(f.toFile(), Figures.class));
            }
        }
        Suite.JSON.writerWithDefaultPrettyPrinter().writeValue(json.toFile(), records);
        StringBuilder table = new StringBuilder(BEGIN).append('\n');
        table.append("Run: ").append(run).append("\n\n");
        table.append("| scenario | form | seed | trials | failures | worst recovery | worst lookup | notes |\n");
        table.append("|---|---|---|---|---|---|---|---|\n");
        for (Figures r : records) {
            table.append("| ")
                    .append(r.id())
                    .append(": ")
                    .append(r.scenario())
                    .append(" | ")
                    .append(r.form())
                    .append(" | 0x")
                    .append(Long.toHexString(r.seed()).toUpperCase(Locale.ROOT))
                    .append(" | ")
                    .append(r.trials())
                    .append(" | ")
                    .append(r.failures())
                    .append(" | ")
                    .append(millis(r.worstRecoveryMillis()))
                    .append(" | ")
                    .append(millis(r.worstLookupMillis()))
                    .append(" | ")
                    .append(r.note().replace("|", "/"))
                    .append(" |\n");
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

    private static String millis(long ms) {
        return ms < 0 ? "—" : ms < 10_000 ? ms + " ms" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
