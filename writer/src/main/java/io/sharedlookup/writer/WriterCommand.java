package io.sharedlookup.writer;

import io.sharedlookup.writer.OptionConverters.ApplyThreadsConverter;
import io.sharedlookup.writer.OptionConverters.ByteSizeConverter;
import io.sharedlookup.writer.OptionConverters.HoldLimitConverter;
import io.sharedlookup.writer.OptionConverters.KafkaPropertyConverter;
import io.sharedlookup.writer.OptionConverters.LookupConverter;
import io.sharedlookup.writer.OptionConverters.PortConverter;
import io.sharedlookup.writer.OptionConverters.StuckAfterConverter;
import io.sharedlookup.writer.OptionConverters.TopicConverter;
import io.sharedlookup.writer.ingest.ConsumerSettings;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line: option declarations and their validation into a {@link WriterConfig}; how each option's text
 * becomes a value is {@link OptionConverters}'.
 */
@Command(
        name = "shared-lookup-writer",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = WriterVersion.class,
        usageHelpWidth = WriterUsage.WIDTH,
        customSynopsis = {
            "shared-lookup-writer --bootstrap-servers HOST:PORT --store-dir DIR --topic TOPIC " + "[OPTION]...",
            "       shared-lookup-writer COMMAND ARGUMENT...    (an operator command, below)"
        },
        description = "Consumes Kafka topics into a shared-lookup store and serves status, metrics and lookups over "
                + "HTTP.",
        optionListHeading = "%nOptions (each in more detail in docs/writer.md):%n",
        footer = {
            "",
            "Every option can also be set in the environment as SHARED_LOOKUP_<OPTION> (e.g. "
                    + "SHARED_LOOKUP_STORE_DIR) or in the --config file (store-dir=...). Precedence: command line > "
                    + "environment > config file > default. Repeatable options take comma-separated lists there."
        })
final class WriterCommand {
    // These descriptions are also the option table of docs/writer.md (WriterOptionsDocTest renders it from them).
    // One line each in --help (WriterHelpTest): what the option is and its default; the rest goes in the prose of
    // docs/writer.md.
    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT[,...]",
            description = "Kafka bootstrap servers to read from (required).")
    String bootstrapServers;

    @Option(names = "--store-dir", paramLabel = "DIR", description = "Store directory shared with readers (required).")
    Path storeDir;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC[=NAMESPACE]",
            split = ",",
            hideParamSyntax = true,
            converter = TopicConverter.class,
            description = "Topic to consume (namespace: its name); repeatable.")
    List<TopicBinding> topics = new ArrayList<>();

    @Option(
            names = "--lookup",
            paramLabel = "NAMESPACE=TOPIC[:FIELD]",
            split = ",",
            hideParamSyntax = true,
            converter = LookupConverter.class,
            description = "Namespace storing a JSON field of a topic; repeatable.")
    List<TopicBinding> lookups = new ArrayList<>();

    /**
     * Where a comma list of consumer properties is split: only before a new consumer property name, dotted and lower
     * case as every one of Kafka's is (WriterCliTest checks ConsumerConfig's). A value keeps its commas when what
     * follows is not such a name: host lists, a password "pa,ss=word". picocli never splits inside double quotes, so a
     * JAAS entry's password="a,b.c=d" stays whole too.
     */
    static final String KAFKA_PROPERTY_SPLIT = ",(?=[a-z0-9]+(?:\\.[a-z0-9]+)+=)";

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            split = KAFKA_PROPERTY_SPLIT,
            hideParamSyntax = true,
            splitSynopsisLabel = ",",
            converter = KafkaPropertyConverter.class,
            description = "Kafka consumer property (SASL/SSL...); repeatable.")
    List<Map.Entry<String, String>> kafkaProperties = new ArrayList<>();

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description = "Properties file of Kafka consumer properties.")
    Path kafkaConfig;

    @Option(
            names = "--http-host",
            paramLabel = "HOST",
            defaultValue = WriterConfig.DEFAULT_HTTP_HOST,
            description = "HTTP bind address (default: ${DEFAULT-VALUE}, loopback only).")
    String httpHost;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            defaultValue = "" + WriterConfig.DEFAULT_HTTP_PORT,
            converter = PortConverter.class,
            description = "HTTP port (default: ${DEFAULT-VALUE}; 0: any free port).")
    int httpPort;

    @Option(
            names = "--value-field",
            paramLabel = "PATH",
            description = "Store this dotted JSON field (default: whole value).")
    String valueField;

    @Option(
            names = "--max-value-bytes",
            paramLabel = "BYTES",
            defaultValue = "" + WriterConfig.DEFAULT_MAX_VALUE_BYTES,
            converter = ByteSizeConverter.class,
            description = "Skip larger record values (default: ${DEFAULT-VALUE}).")
    int maxValueBytes;

    @Option(names = "--reverse-index", description = "Keep a reverse index, value to keys (default: off).")
    boolean reverseIndex;

    @Option(
            names = "--file-mode",
            paramLabel = "MODE",
            defaultValue = StorePermissions.DEFAULT_FILE_MODE,
            description = "Mode of the store files (default: ${DEFAULT-VALUE}).")
    String fileMode;

    @Option(
            names = "--dir-mode",
            paramLabel = "MODE",
            defaultValue = StorePermissions.DEFAULT_DIRECTORY_MODE,
            description = "Mode of the store directories (default: ${DEFAULT-VALUE}).")
    String dirMode;

    @Option(names = "--seed", paramLabel = "DIR", description = "Copy missing namespaces from a 'snapshot' directory.")
    Path seed;

    @Option(
            names = "--stuck-after",
            paramLabel = "SECONDS",
            defaultValue = "" + WriterConfig.DEFAULT_STUCK_AFTER_SECONDS,
            converter = StuckAfterConverter.class,
            description = "Report a partition stuck after this long (default: ${DEFAULT-VALUE}).")
    int stuckAfter;

    @Option(
            names = "--ingest-hold-limit",
            paramLabel = "SECONDS",
            defaultValue = "" + WriterConfig.DEFAULT_INGEST_HOLD_LIMIT_SECONDS,
            converter = HoldLimitConverter.class,
            description = "Ingest held this long fails /health (default: ${DEFAULT-VALUE}).")
    int ingestHoldLimit;

    @Option(
            names = "--apply-threads",
            paramLabel = "N",
            defaultValue = "1",
            converter = ApplyThreadsConverter.class,
            description = "Threads filling an unpublished generation (default: ${DEFAULT-VALUE}).")
    int applyThreads;

    @Option(
            names = "--rebuild",
            paramLabel = "NAMESPACE",
            split = ",",
            hideParamSyntax = true,
            description = "Rebuild this namespace from its topic now; repeatable.")
    List<String> rebuild = new ArrayList<>();

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Properties file of these options, keyed without --.")
    Path config;

    /** Validates the options; every problem is a {@link ConfigException} with a one-line fix. */
    WriterConfig toConfig() {
        String servers = bootstrapServers == null ? "" : bootstrapServers.trim();
        if (servers.isEmpty()) {
            throw new ConfigException("No Kafka to read from: pass --bootstrap-servers HOST:PORT (or "
                    + "SHARED_LOOKUP_BOOTSTRAP_SERVERS); to try it out without a Kafka, run the demo jar ("
                    + WriterMain.DEMO_HINT + ")");
        }
        BootstrapServers.validate(servers);
        if (storeDir == null) {
            throw new ConfigException("No store directory: pass --store-dir DIR (or SHARED_LOOKUP_STORE_DIR), "
                    + "the directory readers open");
        }
        List<TopicBinding> bindings = new ArrayList<>();
        Set<String> namespaces = new HashSet<>();
        Set<String> topicNames = new HashSet<>();
        for (TopicBinding b : topics) {
            if (b == null) {
                continue; // a blank list entry
            }
            if (!namespaces.add(b.namespace())) {
                throw new ConfigException("Namespace '" + b.namespace() + "' is fed by two --topic options: "
                        + "give each topic its own namespace with --topic TOPIC=NAMESPACE");
            }
            if (!topicNames.add(b.topic())) {
                throw new ConfigException("Topic '" + b.topic() + "' is given twice: list each topic once (for "
                        + "several lookups of one topic use --lookup NAMESPACE=TOPIC[:FIELD])");
            }
            bindings.add(b);
        }
        for (TopicBinding b : lookups) {
            if (b == null) {
                continue; // a blank list entry
            }
            if (!namespaces.add(b.namespace())) { // namespaces are directories: one feed each
                TopicBinding first = bindings.stream()
                        .filter(o -> o.namespace().equals(b.namespace()))
                        .findFirst()
                        .orElseThrow();
                throw new ConfigException("Namespace '" + b.namespace() + "' is given twice (" + option(first) + " and "
                        + option(b) + "): give each lookup its own namespace");
            }
            bindings.add(b);
        }
        if (bindings.isEmpty()) {
            throw new ConfigException("No topic to consume: pass --topic TOPIC[=NAMESPACE] or --lookup "
                    + "NAMESPACE=TOPIC[:FIELD] (repeatable) or set SHARED_LOOKUP_TOPIC");
        }
        Set<String> toRebuild = rebuildNamespaces(namespaces);
        Optional<String> field =
                Optional.ofNullable(valueField).map(String::trim).filter(s -> !s.isEmpty());
        field.ifPresent(JsonField::validatePath);
        // A seed that is gone is not an error (a store that has its namespaces ignores it, and the option often stays
        // in a unit file or ConfigMap after the first start); one that names a file, or that cannot be reached, is.
        if (seed != null && !Files.notExists(seed) && !Files.isDirectory(seed)) {
            throw new ConfigException("--seed " + seed + " is not a directory, or the writer may not reach it (a "
                    + "parent directory it cannot enter): pass the directory the 'snapshot' command wrote, readable "
                    + "by the writer's user");
        }
        return WriterConfig.builder(servers, storeDir.toAbsolutePath().normalize())
                .topics(bindings)
                .kafkaProperties(kafkaProps())
                .httpHost(httpHost.trim())
                .httpPort(httpPort)
                .valueField(field)
                .maxValueBytes(maxValueBytes)
                .reverseIndex(reverseIndex)
                .permissions(permissions())
                .seed(Optional.ofNullable(seed).map(p -> p.toAbsolutePath().normalize()))
                .stuckAfterSeconds(stuckAfter)
                .ingestHoldLimitSeconds(ingestHoldLimit)
                .rebuild(toRebuild)
                .applyThreads(applyThreads)
                .build();
    }

    /** The {@code --rebuild} namespaces, each one of the {@code served} namespaces. */
    private Set<String> rebuildNamespaces(Set<String> served) {
        Set<String> named = new java.util.TreeSet<>();
        for (String r : rebuild) {
            String namespace = r.trim();
            if (namespace.isEmpty()) {
                continue; // a blank list entry
            }
            if (!served.contains(namespace)) {
                throw new ConfigException("--rebuild " + namespace + ": this writer serves no namespace '" + namespace
                        + "' (it serves " + String.join(", ", new java.util.TreeSet<>(served)) + "): name one of "
                        + "those, or feed it with --topic TOPIC=" + namespace);
            }
            named.add(namespace);
        }
        return named;
    }

    /** How {@code b} reads as an option, for errors. */
    private String option(TopicBinding b) {
        return lookups.contains(b)
                ? "--lookup " + b.namespace() + "=" + b.topic()
                        + b.valueField().map(f -> ":" + f).orElse("")
                : "--topic " + b.topic() + "=" + b.namespace();
    }

    private StorePermissions permissions() {
        return new StorePermissions(
                mode("--file-mode", fileMode, StorePermissions::fileMode),
                mode("--dir-mode", dirMode, StorePermissions::directoryMode));
    }

    /** Each mode checked on its own, so that the error names the option to fix. */
    private static Set<PosixFilePermission> mode(
            String option, String text, Function<String, Set<PosixFilePermission>> parse) {
        try {
            return parse.apply(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(option + " " + text + ": " + e.getMessage());
        }
    }

    private Map<String, String> kafkaProps() {
        Map<String, String> props = new LinkedHashMap<>();
        if (kafkaConfig != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(kafkaConfig, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new ConfigException("Cannot read --kafka-config " + kafkaConfig.toAbsolutePath() + " ("
                        + e.getMessage() + "): pass a readable consumer properties file");
            }
            p.stringPropertyNames().forEach(k -> props.put(k, p.getProperty(k)));
        }
        kafkaProperties.forEach(e -> props.put(e.getKey(), e.getValue()));
        try {
            ConsumerSettings.requireCompatible(props);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage() + " (from --kafka-property or --kafka-config)");
        }
        return props;
    }
}
