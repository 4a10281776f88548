package io.sharedlookup.writer;

import io.sharedlookup.writer.tools.StoreTools;
import io.sharedlookup.writer.tools.ToolLogging;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;

/** Entry point of the executable jar. Exit codes: 0 ok/help, 1 failed to run, 2 bad configuration. */
public final class WriterMain {
    /** Where the broker-in-the-box went: the writer's jar carries no Kafka server. */
    static final String DEMO_HINT = "java -jar demo/target/shared-lookup-demo.jar --store-dir DIR";

    private WriterMain() {}

    private static PrintWriter utf8(PrintStream stream) {
        return new PrintWriter(new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8)), true);
    }

    public static void main(String[] args) {
        if (args.length > 0 && StoreTools.COMMANDS.contains(args[0])) {
            ToolLogging.consoleTo(true); // stdout is the command's data
        }
        int rc = run(args, System.getenv(), System.out, System.err);
        if (rc >= 0) {
            System.exit(rc);
        }
        // Running: non-daemon ingest and HTTP threads keep the JVM up until SIGTERM runs the shutdown hook.
    }

    /** Parses, validates and starts; returns an exit code, or -1 when the writer is running. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.length > 0 && StoreTools.COMMANDS.contains(args[0])) {
            // An operator command (inspect, get, dump, verify, diff): read-only on a store, then exit.
            // UTF-8, as the store holds the text: a dump is the same bytes whatever the platform's default charset
            // (which differs between JDK 17, where it follows the locale, and 18+, where it is UTF-8).
            return StoreTools.run(args, utf8(out), utf8(err));
        }
        Launch launch = launch(args, env, out, err);
        if (launch.app() == null) {
            return launch.exitCode();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(launch.app()::stop, "shared-lookup-shutdown"));
        return -1;
    }

    /**
     * What {@link #main} does short of exiting and of installing a shutdown hook, for a program that runs the writer
     * in its own JVM and stops it itself (the demo jar): parses {@code args} ({@code env} holding the
     * {@code SHARED_LOOKUP_*} settings), validates and starts. Help, version and errors are printed exactly as on the
     * command line.
     */
    public static Launch launch(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        WriterConfig config;
        try {
            Object parsed = parse(args, env, out);
            if (parsed instanceof Integer exit) {
                return new Launch(null, null, exit);
            }
            config = (WriterConfig) parsed;
        } catch (ConfigException e) {
            err.println("error: " + e.getMessage());
            return new Launch(null, null, 2);
        }
        try {
            return new Launch(WriterApp.start(config, out), config, -1);
        } catch (ConfigException e) {
            err.println("error: " + e.getMessage());
            return new Launch(null, null, 2);
        } catch (Exception | Error e) {
            err.println("error: the writer could not start: " + e);
            e.printStackTrace(err);
            return new Launch(null, null, 1);
        }
    }

    /**
     * The outcome of {@link #launch}: a running writer and its configuration, or (app null) the exit code the
     * command line ends with: 0 after help or version, 1 when it failed to start, 2 for a bad configuration.
     */
    public record Launch(WriterApp app, WriterConfig config, int exitCode) {}

    /**
     * Returns the {@link WriterConfig}, or an exit code after printing help or version.
     *
     * @throws ConfigException with a one-line explanation for anything invalid
     */
    static Object parse(String[] args, Map<String, String> env, PrintStream out) {
        WriterCommand command = new WriterCommand();
        CommandLine cli = WriterUsage.commandLine(command);
        SettingSources sources = SettingSources.load(args, env);
        cli.setDefaultValueProvider(sources);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            if (e.getUnmatched().stream().anyMatch(a -> a.startsWith("--embedded-kafka") || a.startsWith("--demo"))) {
                throw new ConfigException(
                        "The writer has no embedded broker or demo: they moved to the demo jar (" + DEMO_HINT + ")");
            }
            String unmatched = e.getUnmatched().get(0);
            String meant = unmatched.startsWith("-")
                    ? SettingSources.nearestOption(unmatched, cli.getCommandSpec())
                            .map(o -> " (did you mean " + o + "?)")
                            .orElse("")
                    : "";
            throw new ConfigException(
                    "Unknown option or argument " + e.getUnmatched() + meant + ": run with --help to list the options");
        } catch (CommandLine.ParameterException e) {
            if (e.getCause() instanceof ConfigException fromConverter) {
                throw fromConverter;
            }
            throw new ConfigException(e.getMessage() + ": run with --help to list the options");
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            return 0;
        }
        if (cli.isVersionHelpRequested()) {
            cli.printVersionHelp(out);
            return 0;
        }
        sources.rejectUnknownFileKeys(cli.getCommandSpec());
        sources.warnUnknownEnvironment(cli.getCommandSpec());
        return command.toConfig();
    }
}
