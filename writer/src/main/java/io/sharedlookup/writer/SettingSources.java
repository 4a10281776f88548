package io.sharedlookup.writer;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * option's longest name without its leading {@code --}). What it does not do stays here: the environment, finding the file named by
 * {@code --config} or {@code SHARED_LOOKUP_CONFIG} before picocli parses, a one-line error for an unreadable file,
 * ignoring blank values, rejecting keys that are not options (picocli's provider ignores them, so a typo would be
 * silently dropped) and warning of {@code SHARED_LOOKUP_*} variables that are not.
 */
final class SettingSources implements CommandLine.IDefaultValueProvider {
    static final String ENV_PREFIX = "SHARED_LOOKUP_";
    private static final Logger log = LoggerFactory.getLogger(SettingSources.class);
    /**
     * What Kubernetes names a Service's link variables after the Service's prefix ({@code SHARED_LOOKUP_} for a
     * Service named shared-lookup): {@code SERVICE_HOST}, {@code SERVICE_PORT[_<PORT NAME>]}, {@code PORT} and
     * {@code PORT_<port>_<protocol>[_PROTO|_PORT|_ADDR]}.
     */
    private static final Pattern SERVICE_LINK = Pattern.compile(
            "SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?");

    /** What Kubernetes sets {@code <SERVICE>_PORT} to: {@code tcp://10.0.0.7:7070}. */
    private static final Pattern LINK_ADDRESS = Pattern.compile("(?i)(tcp|udp|sctp)://\\S+");

    private final Map<String, String> env;
    private final Set<String> warnedLinks = new java.util.HashSet<>();
    private final Properties file;
    private final CommandLine.PropertiesDefaultProvider fromFile;

    private SettingSources(Map<String, String> env, Properties file) {
        this.env = env;
        this.file = file;
        Properties nonBlank = new Properties();
        file.stringPropertyNames().stream()
                .filter(k -> !file.getProperty(k).isBlank())
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
            p.stringPropertyNames()
                    .forEach(k -> file.setProperty(k.trim(), p.getProperty(k).trim()));
        }
        return new SettingSources(env, file);
    }

    /** Names in the config file that are not options: a typo there must not be silently ignored. */
    void rejectUnknownFileKeys(CommandLine.Model.CommandSpec spec) {
        for (String key : file.stringPropertyNames()) {
            if (spec.findOption("--" + key) == null || key.equals("config") || key.equals("help")) {
                throw new ConfigException(
                        "Unknown setting '" + key + "' in the --config file: " + fileKeyHint(key, spec));
            }
        }
    }

    /**
     * How to spell {@code key}: a key is an option's name without its two leading dashes ({@code value-field} for
     * {@code --value-field}, hyphens kept). Names the nearest key when the given one is a few letters off.
     */
    private static String fileKeyHint(String key, CommandLine.Model.CommandSpec spec) {
        Set<String> keys = spec.options().stream()
                .map(o -> o.longestName().replaceFirst("^--", ""))
                .filter(k -> !k.equals("config") && !k.equals("help") && !k.equals("version"))
                .collect(Collectors.toSet());
        String bare = key.replaceFirst("^-+", "");
        Optional<String> meant = keys.contains(bare) ? Optional.of(bare) : nearest(bare, keys, "");
        return meant.map(k -> "did you mean " + k + "=...? (keys are the options without their leading --: " + k
                        + " for --" + k + ")")
                .orElse("keys are the options without their leading --, e.g. "
                        + "bootstrap-servers=... for --bootstrap-servers (see --help for the list)");
    }

    /**
     * The option nearest to an unknown command-line option {@code typed} ({@code --bootstrap-server=k:9092} is read
     * as {@code --bootstrap-server}), if a few typed letters away.
     */
    static Optional<String> nearestOption(String typed, CommandLine.Model.CommandSpec spec) {
        String name = typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        Set<String> names = spec.options().stream()
                .map(OptionSpec::longestName)
                .filter(n -> n.startsWith("--"))
                .collect(Collectors.toSet());
        return nearest(name, names, "--");
    }

    /**
     * Warns of each {@code SHARED_LOOKUP_*} variable that names no option, with the nearest option's variable: a typo
     * there must not be silently ignored. Not an error, since the prefix is also Kubernetes' for the link variables of
     * a Service named shared-lookup (or shared-lookup-…), which are recognised by their {@code SERVICE_HOST} and
     * skipped.
     */
    void warnUnknownEnvironment(CommandLine.Model.CommandSpec spec) {
        Set<String> settings =
                spec.options().stream().map(SettingSources::envName).collect(Collectors.toSet());
        Set<String> services = env.keySet().stream()
                .filter(k -> k.startsWith(ENV_PREFIX) && k.endsWith("SERVICE_HOST"))
                .map(k -> k.substring(0, k.length() - "SERVICE_HOST".length()))
                .collect(Collectors.toSet());
        for (String name : new TreeSet<>(env.keySet())) {
            if (!name.startsWith(ENV_PREFIX)
                    || settings.contains(name)
                    || services.stream()
                            .anyMatch(s -> name.startsWith(s)
                                    && SERVICE_LINK
                                            .matcher(name.substring(s.length()))
                                            .matches())) {
                continue;
            }
            log.warn(
                    "Ignoring {}: no such setting{}",
                    name,
                    nearest(name, settings, ENV_PREFIX)
                            .map(n -> " (did you mean " + n + "?)")
                            .orElse(""));
        }
    }

    /**
     * The setting closest to {@code name}, if a few typed letters away: at most a third of the part after the common
     * {@code prefix} (two at least). Environment variables, command-line options and config-file keys share it.
     */
    private static Optional<String> nearest(String name, Set<String> settings, String prefix) {
        return settings.stream()
                .min(Comparator.comparingInt(s -> editDistance(name, s)))
                .filter(s -> editDistance(name, s) <= Math.max(2, (s.length() - prefix.length()) / 3));
    }

    /** Levenshtein distance: the fewest inserted, deleted or replaced characters that turn {@code a} into {@code b}. */
    static int editDistance(String a, String b) {
        int[] row = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            row[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int above = row[j];
                row[j] = Math.min(
                        Math.min(row[j - 1], above) + 1, diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                diagonal = above;
            }
        }
        return row[b.length()];
    }

    /** {@code --http-port} is {@code SHARED_LOOKUP_HTTP_PORT}. */
    private static String envName(OptionSpec option) {
        return ENV_PREFIX
                + option.longestName()
                        .replaceFirst("^--", "")
                        .toUpperCase(Locale.ROOT)
                        .replace('-', '_');
    }

    @Override
    public String defaultValue(ArgSpec arg) throws Exception {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        String name = envName(option);
        String fromEnv = env.get(name);
        if (fromEnv != null && !fromEnv.isBlank() && !isServiceLink(name, fromEnv)) {
            return fromEnv.trim();
        }
        return fromFile.defaultValue(arg);
    }

    /**
     * Whether {@code name}'s value is the address Kubernetes gives {@code <SERVICE>_PORT} for a Service whose name
     * makes that variable one of the settings' (a Service named shared-lookup-http sets SHARED_LOOKUP_HTTP_PORT to
     * tcp://10.0.0.7:7070): no setting takes such a value, so it is left out with a WARN instead of failing the start.
     */
    private boolean isServiceLink(String name, String value) {
        if (!name.endsWith("_PORT")
                || !LINK_ADDRESS.matcher(value.trim()).matches()
                || !env.containsKey(name.substring(0, name.length() - "PORT".length()) + "SERVICE_HOST")) {
            return false;
        }
        if (warnedLinks.add(name)) {
            log.warn(
                    "Ignoring {}={}: it is the link variable Kubernetes sets for a Service named {}, not a setting; "
                            + "pass the setting on the command line, or set enableServiceLinks: false in the pod spec",
                    name,
                    value,
                    name.substring(0, name.length() - "_PORT".length())
                            .toLowerCase(Locale.ROOT)
                            .replace('_', '-'));
        }
        return true;
    }
}
