package io.sharedlookup.writer;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
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
 * the environment and the file.
 */
final class SettingSources implements CommandLine.IDefaultValueProvider {
    static final String ENV_PREFIX = "SHARED_LOOKUP_";

    private final Map<String, String> env;
    private final Map<String, String> file;

    private SettingSources(Map<String, String> env, Map<String, String> file) {
        this.env = env;
        this.file = file;
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
        Map<String, String> file = new HashMap<>();
        if (configFile != null) {
            Path path = Path.of(configFile);
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new ConfigException("Cannot read config file " + path.toAbsolutePath() + " (" + e.getMessage()
                        + "): pass a readable properties file to --config");
            }
            p.stringPropertyNames().forEach(k -> file.put(k.trim(), p.getProperty(k).trim()));
        }
        return new SettingSources(env, file);
    }

    /** Names in the config file that are not options: a typo there must not be silently ignored. */
    void rejectUnknownFileKeys(CommandLine.Model.CommandSpec spec) {
        for (String key : file.keySet()) {
            if (spec.findOption("--" + key) == null || key.equals("config") || key.equals("help")) {
                throw new ConfigException("Unknown setting '" + key + "' in the --config file: use option names "
                        + "without dashes, e.g. bootstrap-servers=127.0.0.1:9092 (see --help)");
            }
        }
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        String name = option.longestName().replaceFirst("^--", "");
        String fromEnv = env.get(ENV_PREFIX + name.toUpperCase(Locale.ROOT).replace('-', '_'));
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim();
        }
        String fromFile = file.get(name);
        return fromFile == null || fromFile.isBlank() ? null : fromFile;
    }
}
