package io.sharedlookup.writer;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where option values come from when not on the command line. Precedence, highest first: command line, environment
 * ({@code SHARED_LOOKUP_<OPTION>}, e.g. {@code SHARED_LOOKUP_BOOTSTRAP_SERVERS}), the {@code --config} file
 * (properties: {@code bootstrap-servers=...}), built-in defaults. Repeatable options take comma-separated lists from
 * the environment and the file (picocli splits default values as it splits arguments).
 *
 * <p>The file's values are looked up by picocli's own {@link CommandLine.PropertiesDefaultProvider} (keyed by the
 * option's longest name without dashes). What it does not do stays here: the environment, finding the file named by
 * {@code --config} or {@code SHARED_LOOKUP_CONFIG} before picocli parses, a one-line error for an unreadable file,
 * ignoring blank values, and rejecting keys that are not options (picocli's provider ignores them, so a typo would be
 * silently dropped).
 */
final class SettingSources implements CommandLine.IDefaultValueProvider {
    static final String ENV_PREFIX = "SHARED_LOOKUP_";

    private final Map<String, String> env;
    private final Properties file;
    private final CommandLine.PropertiesDefaultProvider fromFile;

    private SettingSources(Map<String, String> env, Properties file) {
        this.env = env;
        this.file = file;
        Properties nonBlank = new Properties();
        file.stringPropertyNames().stream().filter(k -> !file.getProperty(k).isBlank())
                .forEach(k -> nonBlank.setProperty(k, file.getProperty(k)));
        this.fromFile = new CommandLine.PropertiesDefaultProvider(nonBlank);
    }

    /**
     * Reads the config file named by {@code --config} in {@code args} or by {@code SHARED_LOOKUP_CONFIG}. It must be
     * known before picocli parses, since defaults are resolved first.
     */
    static SettingSources load(String[] args, Map<String, String> env) {
        String configFile = env.get(ENV_PREFIX + "CONFIG");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--config") && i + 1 < args.length) {
                configFile = args[i + 1];
            } else if (args[i].startsWith("--config=")) {
                configFile = args[i].substring("--config=".length());
            }
        }
        Properties file = new Properties();
        if (configFile != null) {
            Path path = Path.of(configFile);
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new ConfigException("Cannot read config file " + path.toAbsolutePath() + " (" + e.getMessage()
                        + "): pass a readable properties file to --config");
            }
            p.stringPropertyNames().forEach(k -> file.setProperty(k.trim(), p.getProperty(k).trim()));
        }
        return new SettingSources(env, file);
    }

    /** Names in the config file that are not options: a typo there must not be silently ignored. */
    void rejectUnknownFileKeys(CommandLine.Model.CommandSpec spec) {
        for (String key : file.stringPropertyNames()) {
            if (spec.findOption("--" + key) == null || key.equals("config") || key.equals("help")) {
                throw new ConfigException("Unknown setting '" + key + "' in the --config file: use option names "
                        + "without dashes, e.g. bootstrap-servers=127.0.0.1:9092 (see --help)");
            }
        }
    }

    @Override
    public String defaultValue(ArgSpec arg) throws Exception {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        String name = option.longestName().replaceFirst("^--", "");
        String fromEnv = env.get(ENV_PREFIX + name.toUpperCase(Locale.ROOT).replace('-', '_'));
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        return fromFile.defaultValue(arg);
    }
}
