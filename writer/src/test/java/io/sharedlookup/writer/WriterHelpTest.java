package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.tools.StoreTools;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --help} is a page a newcomer reads at a glance: the operator commands first, one line each, then one line per
 * option; the details are in docs/writer.md. It printed ~160 lines, 15 of them for {@code --http-port}, with the
 * operator commands last.
 */
class WriterHelpTest {
    /** The width the help is judged at: a terminal's, with room to spare. */
    private static final int WIDTH = 100;

    /** The start of an option's line: {@code "  -h, --help"} or {@code "      --store-dir=DIR"}. */
    private static final Pattern OPTION_LINE = Pattern.compile("^  (-[A-Za-z], |    )--[a-z]");

    private static List<String> usageLines() {
        CommandLine cli = WriterUsage.commandLine(new WriterCommand());
        cli.setUsageHelpWidth(WIDTH);
        return cli.getUsageMessage().lines().toList();
    }

    @Test
    void everyOptionTakesOneLine() {
        List<String> lines = usageLines();
        List<OptionSpec> options = new ArrayList<>(
                WriterUsage.commandLine(new WriterCommand()).getCommandSpec().options());
        options.removeIf(OptionSpec::hidden);
        assertThat(options).hasSizeGreaterThan(15);
        List<String> overOneLine = new ArrayList<>();
        for (OptionSpec o : options) {
            String name = o.longestName();
            int at = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (OPTION_LINE.matcher(lines.get(i)).find()
                        && lines.get(i).strip().matches("(-[A-Za-z], )?" + Pattern.quote(name) + "([= ].*)?")) {
                    at = i;
                }
            }
            assertThat(at)
                    .as("the help lists " + name + ":\n" + String.join("\n", lines))
                    .isNotNegative();
            boolean last = at + 1 == lines.size();
            if (!last
                    && !lines.get(at + 1).isBlank()
                    && !OPTION_LINE.matcher(lines.get(at + 1)).find()) {
                overOneLine.add(name + " (continued by '" + lines.get(at + 1).strip() + "')");
            }
        }
        assertThat(overOneLine)
                .as("options whose help runs over one line at width " + WIDTH
                        + " (keep one line there; details go in docs/writer.md)")
                .isEmpty();
        assertThat(lines)
                .as("lines within width " + WIDTH)
                .allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(WIDTH));
    }

    @Test
    void operatorCommandsComeFirstOneLineEach() {
        List<String> lines = usageLines();
        int firstOption = -1;
        for (int i = 0; i < lines.size() && firstOption < 0; i++) {
            if (OPTION_LINE.matcher(lines.get(i)).find()) {
                firstOption = i;
            }
        }
        assertThat(firstOption).isPositive();
        List<String> beforeOptions = lines.subList(0, firstOption);
        for (String command : StoreTools.COMMANDS) {
            int at = -1;
            for (int i = 0; i < beforeOptions.size(); i++) {
                if (beforeOptions.get(i).startsWith("  " + command + " ")) {
                    at = i;
                }
            }
            assertThat(at)
                    .as("operator command '" + command + "' listed before the options:\n" + String.join("\n", lines))
                    .isNotNegative();
            String next = lines.get(at + 1);
            assertThat(next.isBlank() || StoreTools.COMMANDS.stream().anyMatch(c -> next.startsWith("  " + c + " ")))
                    .as("'" + command + "' takes one line, but is followed by '" + next + "'")
                    .isTrue();
        }
    }

    /** What {@code --help} prints is the page judged above, at the same width. */
    @Test
    void helpPrintsThatPage() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = WriterMain.run(
                new String[] {"--help"},
                Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8).lines().toList()).isEqualTo(usageLines());
    }
}
