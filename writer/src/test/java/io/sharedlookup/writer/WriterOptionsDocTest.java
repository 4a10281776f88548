package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The option table of docs/writer.md is rendered from the option definitions of {@link WriterCommand}, so the two
 * cannot drift apart. After changing an option, regenerate the table with
 * {@code ./mvnw -B -o -q -pl writer -am test -Dtest=WriterOptionsDocTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsharedlookup.updateDocs=true}.
 */
class WriterOptionsDocTest {
    static final String BEGIN = "<!-- options:begin -->";
    static final String END = "<!-- options:end -->";

    /** The table: one row per option, help and version last; rows start with "| `--option" (deployment reads it). */
    static String render() {
        List<OptionSpec> options = new ArrayList<>(
                new CommandLine(new WriterCommand()).getCommandSpec().options());
        options.removeIf(OptionSpec::hidden);
        options.sort(Comparator.comparing(o -> o.usageHelp() || o.versionHelp())); // stable: declaration order kept
        StringBuilder table = new StringBuilder("| option | default | meaning |\n|---|---|---|\n");
        for (OptionSpec o : options) {
            List<String> names = new ArrayList<>(List.of(o.names()));
            names.sort(Comparator.comparing((String n) -> !n.startsWith("--")));
            String label = o.arity().max() > 0 ? " " + o.paramLabel() : "";
            String option = "`" + names.get(0) + label + "`"
                    + names.stream().skip(1).map(n -> ", `" + n + "`").reduce("", String::concat);
            String dflt = o.defaultValue() != null
                    ? "`" + o.defaultValue() + "`"
                    : o.arity().max() == 0 && !o.usageHelp() && !o.versionHelp() ? "off" : "";
            table.append(row(option, dflt, String.join(" ", o.description())));
        }
        return table.toString();
    }

    private static String row(String... cells) {
        StringBuilder row = new StringBuilder("|");
        for (String cell : cells) {
            String c = cell.replace("|", "\\|").strip();
            row.append(c.isEmpty() ? " " : " " + c + " ").append('|');
        }
        return row.append('\n').toString();
    }

    static Path writerMd() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path md = dir.resolve("docs/writer.md");
            if (Files.isRegularFile(md)) {
                return md;
            }
        }
        throw new IllegalStateException(
                "docs/writer.md not found above " + Path.of("").toAbsolutePath());
    }

    @Test
    void theOptionTableOfTheDocsIsRenderedFromTheOptions() throws IOException {
        Path md = writerMd();
        String doc = Files.readString(md, StandardCharsets.UTF_8);
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        assertThat(b).as(md + " has a " + BEGIN + " … " + END + " section").isNotNegative();
        assertThat(e).as(md + " has a " + BEGIN + " … " + END + " section").isGreaterThan(b);
        String expected = BEGIN + "\n" + render() + END;
        String actual = doc.substring(b, e + END.length());
        if (!actual.equals(expected) && Boolean.getBoolean("sharedlookup.updateDocs")) {
            Files.writeString(
                    md, doc.substring(0, b) + expected + doc.substring(e + END.length()), StandardCharsets.UTF_8);
            return;
        }
        assertThat(actual)
                .as("The option table of " + md + " differs from WriterCommand's options: regenerate it "
                        + "with ./mvnw -B -o -q -pl writer -am test -Dtest=WriterOptionsDocTest "
                        + "-Dsurefire.failIfNoSpecifiedTests=false -Dsharedlookup.updateDocs=true")
                .isEqualTo(expected);
    }
}
