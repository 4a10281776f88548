package io.sharedlookup.writer;

import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the writer runs with, validated. Built by the command line ({@link WriterCommand}) or, in programs and
 * tests, by {@link #builder}, whose defaults are the command line's.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param storeDir         the store directory shared with readers
 * @param topics           topic to namespace bindings, namespaces unique (a topic may feed several); each binding
 *                         that names no value field gets {@code valueField}
 * @param kafkaProperties  consumer properties passed as-is (SASL/SSL and the rest)
 * @param httpHost         HTTP bind address
 * @param httpPort         HTTP port; 0 picks a free one
 * @param valueField       dotted JSON path of the lookup value of the namespaces that name none, or empty for the
 *                         raw UTF-8 value
 * @param maxValueBytes    values larger than this are skipped and counted
 * @param reverseIndex     keep a reverse index (value to keys) beside every generation, for reverse lookups
 * @param permissions      modes of the store directories and files this writer creates
 * @param seed             a snapshot directory seeding the namespaces the store lacks, if any
 * @param stuckAfterSeconds a partition whose position stays put this long while its log goes on is reported stuck
 * @param ingestHoldLimitSeconds {@code /health} fails once the ingest thread has been away from its loop this long;
 *                         0 never
 * @param rebuild          namespaces to rebuild from their topics at start, whether or not their stored settings
 *                         changed ({@code --rebuild}); each one this writer serves
 * @param applyThreads     threads that fill a generation not yet published (a first build, a rebuild), each taking
 *                         the keys of its share; 1 applies every record on the ingest thread
 */
public record WriterConfig(
        String bootstrapServers,
        Path storeDir,
        List<TopicBinding> topics,
        Map<String, String> kafkaProperties,
        String httpHost,
        int httpPort,
        Optional<String> valueField,
        int maxValueBytes,
        boolean reverseIndex,
        StorePermissions permissions,
        Optional<Path> seed,
        int stuckAfterSeconds,
        int ingestHoldLimitSeconds,
        Set<String> rebuild,
        int applyThreads) {
    // Constants, so that the command line's option annotations take their defaults from here.
    public static final String DEFAULT_HTTP_HOST = "127.0.0.1";
    public static final int DEFAULT_HTTP_PORT = 7070;
    public static final int DEFAULT_MAX_VALUE_BYTES = 1 << 20;
    public static final int DEFAULT_STUCK_AFTER_SECONDS = 60;
    public static final int DEFAULT_INGEST_HOLD_LIMIT_SECONDS = 1800;
    /** The shortest hold limit the command line takes: {@code /ready} reports a hold from 60 s. */
    public static final int MIN_INGEST_HOLD_LIMIT_SECONDS = 60;
    /** The most applier threads taken: beyond a few, Chronicle's segment locks and the memory bus limit, not cores. */
    public static final int MAX_APPLY_THREADS = 64;
    /**
     * {@code --apply-threads auto}: one applier per core but one, at most 8. The ingest thread polls and decodes on a
     * core of its own while the appliers put: on 2 cores, two appliers beside it bootstrapped 30M records at 0.10 × a
     * bare consumer's rate against 0.11 × for one (docs/benchmarks.md, section 11), so {@code auto} there is one.
     */
    public static final int AUTO_APPLY_THREADS =
            Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() - 1));
    /**
     * One applier, the ingest thread, by default: the parallel path is opt-in until it has been measured at scale on a
     * quiet machine and its review findings are closed (issue #42).
     */
    public static final int DEFAULT_APPLY_THREADS = 1;

    public WriterConfig {
        Optional<String> defaultField = valueField;
        // A namespace that names no field of its own stores --value-field's: each binding says what it stores.
        topics = topics.stream().map(b -> b.withDefaultField(defaultField)).toList();
        kafkaProperties = Map.copyOf(kafkaProperties);
        rebuild = Set.copyOf(rebuild);
        if (stuckAfterSeconds < 1) {
            throw new IllegalArgumentException("stuckAfterSeconds must be at least 1, not " + stuckAfterSeconds);
        }
        if (ingestHoldLimitSeconds < 0) {
            throw new IllegalArgumentException(
                    "ingestHoldLimitSeconds must be 0 (never) or more, not " + ingestHoldLimitSeconds);
        }
        if (applyThreads < 1 || applyThreads > MAX_APPLY_THREADS) {
            throw new IllegalArgumentException(
                    "applyThreads must be 1 to " + MAX_APPLY_THREADS + ", not " + applyThreads);
        }
    }

    /** A builder with the command line's defaults for everything but the Kafka and the store directory. */
    public static Builder builder(String bootstrapServers, Path storeDir) {
        return new Builder(bootstrapServers, storeDir);
    }

    /** Builds a {@link WriterConfig}; each setter replaces the default or the previous value. */
    public static final class Builder {
        private final String bootstrapServers;
        private final Path storeDir;
        private List<TopicBinding> topics = List.of();
        private Map<String, String> kafkaProperties = Map.of();
        private String httpHost = DEFAULT_HTTP_HOST;
        private int httpPort = DEFAULT_HTTP_PORT;
        private Optional<String> valueField = Optional.empty();
        private int maxValueBytes = DEFAULT_MAX_VALUE_BYTES;
        private boolean reverseIndex;
        private StorePermissions permissions = StorePermissions.DEFAULT;
        private Optional<Path> seed = Optional.empty();
        private int stuckAfterSeconds = DEFAULT_STUCK_AFTER_SECONDS;
        private int ingestHoldLimitSeconds = DEFAULT_INGEST_HOLD_LIMIT_SECONDS;
        private Set<String> rebuild = Set.of();
        private int applyThreads = DEFAULT_APPLY_THREADS;

        private Builder(String bootstrapServers, Path storeDir) {
            this.bootstrapServers = bootstrapServers;
            this.storeDir = storeDir;
        }

        public Builder topics(List<TopicBinding> topics) {
            this.topics = topics;
            return this;
        }

        public Builder kafkaProperties(Map<String, String> kafkaProperties) {
            this.kafkaProperties = kafkaProperties;
            return this;
        }

        public Builder httpHost(String httpHost) {
            this.httpHost = httpHost;
            return this;
        }

        public Builder httpPort(int httpPort) {
            this.httpPort = httpPort;
            return this;
        }

        public Builder valueField(Optional<String> valueField) {
            this.valueField = valueField;
            return this;
        }

        public Builder maxValueBytes(int maxValueBytes) {
            this.maxValueBytes = maxValueBytes;
            return this;
        }

        public Builder reverseIndex(boolean reverseIndex) {
            this.reverseIndex = reverseIndex;
            return this;
        }

        public Builder permissions(StorePermissions permissions) {
            this.permissions = permissions;
            return this;
        }

        public Builder seed(Optional<Path> seed) {
            this.seed = seed;
            return this;
        }

        public Builder stuckAfterSeconds(int stuckAfterSeconds) {
            this.stuckAfterSeconds = stuckAfterSeconds;
            return this;
        }

        public Builder ingestHoldLimitSeconds(int ingestHoldLimitSeconds) {
            this.ingestHoldLimitSeconds = ingestHoldLimitSeconds;
            return this;
        }

        public Builder rebuild(Set<String> rebuild) {
            this.rebuild = rebuild;
            return this;
        }

        public Builder applyThreads(int applyThreads) {
            this.applyThreads = applyThreads;
            return this;
        }

        public WriterConfig build() {
            return new WriterConfig(
                    bootstrapServers,
                    storeDir,
                    topics,
                    kafkaProperties,
                    httpHost,
                    httpPort,
                    valueField,
                    maxValueBytes,
                    reverseIndex,
                    permissions,
                    seed,
                    stuckAfterSeconds,
                    ingestHoldLimitSeconds,
                    rebuild,
                    applyThreads);
        }
    }
}
