package io.sharedlookup.writer;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.http.HttpApi;
import io.sharedlookup.writer.http.HttpServer;
import io.sharedlookup.writer.ingest.BrokerOutage;
import io.sharedlookup.writer.ingest.Ingestor;
import io.sharedlookup.writer.ingest.UnresolvedBootstrapException;
import io.sharedlookup.writer.liveness.WriterHeartbeat;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.ResumeDecision;
import io.sharedlookup.writer.namespace.SampleBudget;
import io.sharedlookup.writer.store.ChronicleLayoutProbe;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running writer: namespaces, ingestion, HTTP. Started and stopped as one. */
public final class WriterApp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WriterApp.class);
    /** SIGTERM must end the process within 10 s; ingestion gets most of that to close cleanly. */
    private static final Duration INGEST_STOP = Duration.ofSeconds(7);

    private final WriterMetrics metrics = new WriterMetrics();
    /** Null until ingestion starts; read by HTTP's threads. */
    private volatile Ingestor ingestor;

    private Seeding seeding;
    private WriterHeartbeat heartbeat;
    private SharedLookupStore store;
    private HttpServer http;
    private WriterConfig config;
    private boolean stopped;

    private WriterApp() {}

    /**
     * Starts everything or nothing.
     *
     * @throws ConfigException when the configuration cannot work (missing topic, unwritable store, port taken...)
     */
    public static WriterApp start(WriterConfig config, PrintStream out) throws Exception {
        return start(config, out, WriterApp::seed);
    }

    /** {@link #start(WriterConfig, PrintStream)} seeding namespaces with {@code seeder} (a test's, to hold it up). */
    static WriterApp start(WriterConfig config, PrintStream out, Seeding.Seeder seeder) throws Exception {
        WriterApp app = new WriterApp();
        try {
            app.doStart(config, out, seeder);
            return app;
        } catch (Exception | Error e) {
            app.close();
            throw e;
        }
    }

    private void doStart(WriterConfig cfg, PrintStream out, Seeding.Seeder seeder) throws Exception {
        Path storeDir = prepareStoreDir(cfg.storeDir(), cfg.permissions());
        config = cfg;
        BrokerOutage.shared().bootstrapServers(cfg.bootstrapServers());
        StoreLayout layout = new StoreLayout(storeDir);
        // Before Kafka, HTTP and any namespace is opened: a refused start leaves the store as it was, and says so at
        // once.
        StoredSettingsCheck.requireUnchanged(layout, cfg.topics(), b -> attributesFor(cfg, b), cfg.rebuild());
        // The namespaces' locks before anything slow or anything that talks to Kafka: a second writer of the same
        // namespaces fails at once with the lock's message, not after the checks below.
        List<NamespaceDirectory> directories = lockNamespaces(layout, cfg);
        try {
            // Again with the locks held: a writer that still held one may have published with other settings since.
            StoredSettingsCheck.requireUnchangedLocked(
                    cfg.topics(), directories, b -> attributesFor(cfg, b), cfg.rebuild());
            // Then HTTP: the layout probe (seconds), asking Kafka for the topics (up to 10 s when no broker answers)
            // and seeding (minutes for a large snapshot) all come after, and /health and /ready say meanwhile what
            // the start is doing rather than leave the port closed.
            seeding = new Seeding(cfg.topics());
            store = SharedLookupStore.open(storeDir);
            listen(cfg);
            seeding.checkingLayout();
            requireLayoutReadersAssume(storeDir);
            seeding.connecting(cfg.bootstrapServers());
            checkTopicsExist(cfg);
        } catch (Exception | Error e) {
            closeQuietly(directories);
            throw e;
        }
        List<NamespaceIngest> namespaces = new ArrayList<>();
        // The records every namespace holds back to size its first generation share one heap budget.
        SampleBudget sampleBudget = SampleBudget.shared(cfg.topics().size());
        try {
            for (int i = 0; i < directories.size(); i++) {
                TopicBinding b = cfg.topics().get(i);
                NamespaceDirectory w = directories.get(i);
                Map<String, String> attributes = attributesFor(cfg, b);
                boolean rebuild = cfg.rebuild().contains(b.namespace());
                // With the namespace's lock held: no other writer is building it. One to rebuild is not seeded.
                if (cfg.seed().isPresent() && !rebuild) {
                    seeding.seeding(b.namespace(), cfg.seed().get());
                    seeder.seed(cfg.seed().get(), w, b, attributes);
                }
                NamespaceIngest ingest = new NamespaceIngest(b, w, metrics, attributes, sampleBudget);
                if (rebuild) {
                    ingest.rebuildAtStart("--rebuild " + b.namespace() + " was given");
                }
                namespaces.add(ingest);
            }
            // Readers wait for a live writer: its heartbeat runs from the moment it holds its namespaces.
            heartbeat = WriterHeartbeat.start(
                    layout,
                    cfg.topics().stream().map(TopicBinding::namespace).toList(),
                    cfg.permissions(),
                    () -> ingestor == null ? Map.of() : ingestor.statuses());
        } catch (IOException | RuntimeException | Error e) {
            namespaces.forEach(NamespaceIngest::abandon);
            closeQuietly(directories.subList(namespaces.size(), directories.size()));
            if (e instanceof IOException io) {
                throw cannotOpen(storeDir, io);
            }
            throw e;
        }
        Ingestor started = new Ingestor(cfg, namespaces, metrics, () -> KafkaStartErrors.consumer(cfg));
        started.start();
        ingestor = started;
        seeding.done();
        out.println("shared-lookup writer: store " + storeDir + ", HTTP " + httpAddress());
    }

    /**
     * The settings a namespace's generations record ({@link io.sharedlookup.writer.namespace.StoredSettings}); a start
     * that would change them is refused unless the namespace is to be rebuilt.
     */
    private static Map<String, String> attributesFor(WriterConfig cfg, TopicBinding binding) {
        return io.sharedlookup.writer.namespace.StoredSettings.attributes(binding.valueField(), cfg.reverseIndex());
    }

    /** Takes every namespace's writer lock, in the order of the topics; on failure releases those it took. */
    private static List<NamespaceDirectory> lockNamespaces(StoreLayout layout, WriterConfig cfg) {
        List<NamespaceDirectory> directories = new ArrayList<>();
        try {
            for (TopicBinding b : cfg.topics()) {
                try {
                    // A namespace built afresh starts numbering at the current Unix time in seconds.
                    directories.add(NamespaceDirectory.open(
                            layout,
                            b.namespace(),
                            cfg.permissions(),
                            java.time.Instant.now().getEpochSecond() - 1));
                } catch (IllegalStateException e) {
                    throw new ConfigException(e.getMessage());
                }
            }
            return directories;
        } catch (IOException e) {
            closeQuietly(directories);
            throw cannotOpen(layout.storeDir(), e);
        } catch (RuntimeException e) {
            closeQuietly(directories);
            throw e;
        }
    }

    private static ConfigException cannotOpen(Path storeDir, IOException io) {
        return new ConfigException("Cannot open namespaces in " + storeDir + ": "
                + (io instanceof AccessDeniedException denied
                        ? denied.getFile() + ": permission denied; the "
                                + "store's files belong to another user (a run as root?): give them to the writer's user, or "
                                + "choose another --store-dir"
                        : io));
    }

    /** Releases namespaces not handed to ingestion (their locks only: nothing was written through them). */
    private static void closeQuietly(List<NamespaceDirectory> directories) {
        for (NamespaceDirectory w : directories) {
            try {
                w.close();
            } catch (IOException | RuntimeException e) {
                log.warn("Namespace '{}': releasing its lock failed: {}", w.namespace(), e.toString());
            }
        }
    }

    private void listen(WriterConfig cfg) {
        try {
            http = new HttpServer(
                    cfg.httpHost(),
                    cfg.httpPort(),
                    new HttpApi(this::statusesNow, this::failure, seeding::phase, store, metrics),
                    metrics);
        } catch (IOException e) {
            throw new ConfigException(e.getMessage()); // one line naming the address and what to do
        } catch (Exception e) {
            throw new ConfigException("Cannot listen on " + cfg.httpHost() + ":" + cfg.httpPort() + " (" + e
                    + "): choose another --http-port or --http-host");
        }
    }

    /** Refuses to start when readers would misread this Chronicle Map's files (see {@link ChronicleLayoutProbe}). */
    private static void requireLayoutReadersAssume(Path storeDir) {
        try {
            ChronicleLayoutProbe.check(storeDir);
        } catch (IllegalStateException e) {
            throw new ConfigException(e.getMessage());
        } catch (IOException e) {
            throw new ConfigException("Cannot write the layout probe in store directory " + storeDir + " (" + e
                    + "): free some space or fix its permissions");
        }
    }

    private static Path prepareStoreDir(Path dir, StorePermissions permissions) {
        StoreLayout.namespaceGivenAsStore(dir).ifPresent(wrongLevel -> {
            throw new ConfigException(wrongLevel + " as --store-dir");
        });
        try {
            // A directory this writer creates gets the store's directory mode; an existing one is left as it is.
            permissions.createDirectory(dir);
        } catch (IOException e) {
            throw new ConfigException("Cannot create store directory " + dir + " ("
                    + e.getClass().getSimpleName() + "): choose a --store-dir this user can create and write");
        }
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            throw new ConfigException("Store directory " + dir + " is not writable by this user: fix its "
                    + "permissions or choose another --store-dir");
        }
        try {
            Files.deleteIfExists(Files.createTempFile(dir, ".write-check-", ".tmp"));
        } catch (IOException e) {
            throw new ConfigException("Store directory " + dir + " is not writable (" + e.getMessage()
                    + "): fix its permissions or choose another --store-dir");
        }
        return dir;
    }

    /**
     * A missing topic, consumer settings that cannot work and credentials the broker refuses are configuration errors;
     * an unreachable broker is not (yet), nor bootstrap hosts that do not resolve (yet).
     */
    private static void checkTopicsExist(WriterConfig cfg) {
        try (KafkaConsumer<byte[], byte[]> probe = KafkaStartErrors.consumer(cfg)) {
            // The broker lists only the topics this principal may DESCRIBE: a topic missing here either does not
            // exist or is hidden from the writer, and the broker does not say which.
            Set<String> listed = probe.listTopics(Duration.ofSeconds(10)).keySet();
            BrokerOutage.shared().reachable();
            for (TopicBinding b : cfg.topics()) {
                if (!listed.contains(b.topic())) {
                    throw new ConfigException("Topic '" + b.topic() + "' does not exist on " + cfg.bootstrapServers()
                            + ", or the writer's Kafka principal may not DESCRIBE it: create it or fix --topic, or "
                            + "grant the principal DESCRIBE and READ on it");
                }
            }
        } catch (AuthenticationException e) {
            throw KafkaStartErrors.authentication(e, cfg.bootstrapServers());
        } catch (TimeoutException e) {
            // Said once a minute with the client's own warnings about it, not once more here.
            BrokerOutage.shared().failed("it did not list the topics within 10 s; starting anyway");
        } catch (UnresolvedBootstrapException e) {
            // A Kafka service DNS does not know yet: the ingest thread says so (/ready, log) and retries.
            KafkaStartErrors.checkAllButBootstrap(cfg);
        }
    }

    public int httpPort() {
        return http.port();
    }

    /** {@code http://HOST:PORT} of the HTTP endpoints, as printed at start. */
    public String httpAddress() {
        String host = config.httpHost();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + http.port();
    }

    public String bootstrapServers() {
        return config.bootstrapServers();
    }

    /** Per namespace, what {@code /namespaces} shows (a program running the writer, such as the demo, reads it). */
    public Map<String, NamespaceStatus> statuses() {
        return ingestor.statuses();
    }

    /** What HTTP shows: the start's statuses until ingestion has started, then the ingest thread's. */
    private Map<String, NamespaceStatus> statusesNow() {
        Ingestor running = ingestor;
        return running == null ? seeding.statuses() : running.statuses();
    }

    /** Why the writer can no longer do its job; never while it starts. */
    private java.util.Optional<String> failure() {
        Ingestor running = ingestor;
        return running == null ? java.util.Optional.empty() : running.failure();
    }

    /** Clean stop: stop polling, close namespaces with their offsets (the next start resumes), stop serving. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        log.info("Stopping");
        if (ingestor != null) {
            try {
                ingestor.stop(INGEST_STOP);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (http != null) {
            http.close();
        }
        if (store != null) { // before the heartbeat stops: this JVM's own reader has nothing to say about it
            store.close();
        }
        if (heartbeat != null) { // after ingestion: no change is left in flight for readers to wait on
            heartbeat.close();
        }
        log.info("Stopped");
    }

    @Override
    public void close() {
        stop();
    }

    /** Seeds the namespace from the snapshot; a snapshot that cannot be used only costs the replay it would save. */
    static void seed(
            Path snapshot, NamespaceDirectory directory, TopicBinding binding, Map<String, String> attributes) {
        try {
            Snapshots.seed(
                    snapshot,
                    directory,
                    m -> ResumeDecision.builtDifferently(m.topic(), m.attributes(), binding.topic(), attributes));
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "Namespace '{}': cannot seed from {} ({}); building it from its topic",
                    directory.namespace(),
                    snapshot,
                    e.toString());
        }
    }
}
