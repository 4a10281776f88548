package io.sharedlookup.writer;

import io.sharedlookup.writer.tools.StoreTools;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * How the writer's {@code --help} is laid out: the operator commands first, one line each, then one line per option;
 * the details are in docs/writer.md. A newcomer should take the page in at a glance (it used to run to ~160 lines,
 * with the commands last).
 */
final class WriterUsage {
    /** The help section listing the operator commands, between the description and the options. */
    static final String OPERATOR_COMMANDS = "operatorCommands";

    /** Columns of the help: a terminal's width with room to spare. */
    static final int WIDTH = 100;

    /** Room for the longest option and its parameter, so that no description starts on a line of its own. */
    private static final int OPTION_COLUMN = 36;

    private WriterUsage() {}

    /** The writer's command line, its help laid out as above. */
    static CommandLine commandLine(WriterCommand command) {
        CommandLine cli = new CommandLine(command);
        cli.setUsageHelpLongOptionsMaxWidth(OPTION_COLUMN);
        List<String> keys = new ArrayList<>(cli.getHelpSectionKeys());
        keys.add(
                keys.indexOf(CommandLine.Model.UsageMessageSpec.SECTION_KEY_PARAMETER_LIST_HEADING), OPERATOR_COMMANDS);
        cli.setHelpSectionKeys(keys);
        cli.getHelpSectionMap().put(OPERATOR_COMMANDS, help -> operatorCommands());
        return cli;
    }

    /**
     * One line per command, {@code name PARAMETERS  summary}, from the commands' own definitions (the summary is the
     * first line of each command's description), so that a new command is listed without anyone remembering to.
     */
    static String operatorCommands() {
        Map<String, CommandLine> commands = StoreTools.commands();
        List<String[]> rows = new ArrayList<>();
        int width = 0;
        for (Map.Entry<String, CommandLine> c : commands.entrySet()) {
            CommandSpec spec = c.getValue().getCommandSpec();
            StringBuilder synopsis = new StringBuilder(c.getKey());
            for (PositionalParamSpec p : spec.positionalParameters()) {
                synopsis.append(' ').append(p.paramLabel());
            }
            rows.add(new String[] {synopsis.toString(), spec.usageMessage().description()[0]});
            width = Math.max(width, synopsis.length());
        }
        StringBuilder out = new StringBuilder(String.format(
                "%nOperator commands (read a store and never change it; " + "'COMMAND --help' for more):%n"));
        for (String[] row : rows) {
            out.append(String.format("  %-" + width + "s  %s%n", row[0], row[1]));
        }
        return out.toString();
    }
}
