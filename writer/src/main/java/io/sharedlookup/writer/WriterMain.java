package io.sharedlookup.writer;

import io.sharedlookup.writer.tools.StoreTools;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;

/** Entry point of the executable jar. Exit codes: 0 ok/help, 1 failed to run, 2 bad configuration. */
public final class WriterMain {
    private WriterMain() {
    }

    public static void main(String[] args) {
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
            return StoreTools.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        }
        WriterConfig config;
        try {
            Object parsed = parse(args, env, out);
            if (parsed instanceof Integer exit) {
                return exit;
            }
            config = (WriterConfig) parsed;
        } catch (ConfigException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        WriterApp app;
        try {
            app = WriterApp.start(config, out);
        } catch (ConfigException e) {
            err.println("error: " + e.getMessage());
            return 2;
        } catch (Exception | Error e) {
            err.println("error: the writer could not start: " + e);
            e.printStackTrace(err);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(app::stop, "shared-lookup-shutdown"));
        return -1;
    }

    /**
     * Returns the {@link WriterConfig}, or an exit code after printing help or version.
     *
     * @throws ConfigException with a one-line explanation for anything invalid
     */
    static Object parse(String[] args, Map<String, String> env, PrintStream out) {
        WriterCommand command = new WriterCommand();
        CommandLine cli = new CommandLine(command);
        SettingSources sources = SettingSources.load(args, env);
        cli.setDefaultValueProvider(sources);
        try {
            cli.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            throw new ConfigException("Unknown option or argument " + e.getUnmatched()
                    + ": run with --help to list the options");
        } catch (CommandLine.ParameterException e) {
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
        return command.toConfig();
    }
}
