package io.sharedlookup.writer;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The writer's Prometheus metrics, in a registry of its own (not the global one, so that tests can run several
 * writers in one JVM). Families are labelled by namespace where they apply. Shared by the ingest, namespace and http
 * packages, which count in it directly.
 */
public final class WriterMetrics {
    /** How the per-record counters below count a record that is read more than once. */
    private static final String ONCE_PER_READ = "; a record read again after a stall counts once, a rebuild (which "
            + "reads the topic again into a new generation) counts its records again";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter text = new PrometheusTextFormatWriter(false);

    public final Counter records = Counter.builder()
            .name("sharedlookup_writer_records_total")
            .help("Records read from Kafka since this process started" + ONCE_PER_READ)
            .labelNames("namespace")
            .register(registry);
    public final Counter tombstones = Counter.builder()
            .name("sharedlookup_writer_tombstones_total")
            .help("Tombstones (null values) applied as removals" + ONCE_PER_READ)
            .labelNames("namespace")
            .register(registry);
    public final Counter decodeErrors = Counter.builder()
            .name("sharedlookup_writer_decode_errors_total")
            .help("Records skipped because key or value could not be decoded" + ONCE_PER_READ)
            .labelNames("namespace")
            .register(registry);
    public final Counter nullKeys = Counter.builder()
            .name("sharedlookup_writer_null_keys_total")
            .help("Records skipped because their key was null" + ONCE_PER_READ)
            .labelNames("namespace")
            .register(registry);
    public final Counter oversize = Counter.builder()
            .name("sharedlookup_writer_oversize_skips_total")
            .help("Records skipped because the value exceeded --max-value-bytes or the entry did not fit"
                    + ONCE_PER_READ)
            .labelNames("namespace")
            .register(registry);
    public final Counter keysOnSeveralPartitions = Counter.builder()
            .name("sharedlookup_writer_keys_on_several_partitions_total")
            .help("Records of a key read from another partition than the key's previous record (a changed "
                    + "partitioner): hosts may keep different values for such keys; keys are hash-sampled")
            .labelNames("namespace")
            .register(registry);
    public final Counter corruptRecords = Counter.builder()
            .name("sharedlookup_writer_corrupt_records_total")
            .help("Offsets skipped because the broker's copy of their record batch is damaged (checksum mismatch); "
                    + "their updates are missing until the keys are written again or the namespace is rebuilt")
            .labelNames("namespace")
            .register(registry);
    public final Counter rebuilds = Counter.builder()
            .name("sharedlookup_writer_rebuilds_total")
            .help("Generations built from the topic's beginning (unclean stop, stale offsets, first start)")
            .labelNames("namespace")
            .register(registry);
    public final Counter growths = Counter.builder()
            .name("sharedlookup_writer_growths_total")
            .help("Generations replaced by a bigger one")
            .labelNames("namespace")
            .register(registry);
    public final Counter replacements = Counter.builder()
            .name("sharedlookup_writer_lock_replacements_total")
            .help("Generations replaced because a killed process left a segment lock held")
            .labelNames("namespace")
            .register(registry);
    public final Counter resumes = Counter.builder()
            .name("sharedlookup_writer_resumes_total")
            .help("Starts that resumed the published generation from its stored offsets")
            .labelNames("namespace")
            .register(registry);
    /** The digest gauge holds the low 48 bits: a double represents them exactly. */
    public static final long DIGEST_GAUGE_MASK = (1L << 48) - 1;

    public final Gauge contentDigest = Gauge.builder()
            .name("sharedlookup_writer_content_digest")
            .help("Low 48 bits of the published content digest (all 64 in /namespaces): equal on hosts whose writers "
                    + "applied the same offsets")
            .labelNames("namespace")
            .register(registry);
    public final Counter stalls = Counter.builder()
            .name("sharedlookup_writer_stalls_total")
            .help("Times a topic was paused because its namespace could not take a record (disk full, growth "
                    + "failing); see lastError in /namespaces")
            .labelNames("namespace")
            .register(registry);
    public final Gauge lag = Gauge.builder()
            .name("sharedlookup_writer_lag_records")
            .help("End offset minus position, per partition")
            .labelNames("namespace", "partition")
            .register(registry);
    public final Gauge stuckPartitions = Gauge.builder()
            .name("sharedlookup_writer_stuck_partitions")
            .help("Partitions whose position has stayed put past --stuck-after while their log goes on, the broker "
                    + "sending neither records nor an error (a damaged log); /ready says which")
            .labelNames("namespace")
            .register(registry);
    public final Gauge entries = Gauge.builder()
            .name("sharedlookup_writer_entries")
            .help("Entries in the generation being written")
            .labelNames("namespace")
            .register(registry);
    public final Gauge capacity = Gauge.builder()
            .name("sharedlookup_writer_capacity_entries")
            .help("Entries the generation was sized for")
            .labelNames("namespace")
            .register(registry);
    public final Gauge generation = Gauge.builder()
            .name("sharedlookup_writer_generation")
            .help("Published generation number")
            .labelNames("namespace")
            .register(registry);
    public final Gauge caughtUp = Gauge.builder()
            .name("sharedlookup_writer_caught_up")
            .help("1 when the namespace reached the end offsets captured at start")
            .labelNames("namespace")
            .register(registry);
    public final Counter httpRequests = Counter.builder()
            .name("sharedlookup_http_requests_total")
            .help("HTTP requests by endpoint and status")
            .labelNames("endpoint", "status")
            .register(registry);
    public final Gauge httpOpenConnections = Gauge.builder()
            .name("sharedlookup_http_open_connections")
            .help("Open HTTP connections, including refused ones until they are closed")
            .register(registry);
    public final Counter httpConnectionsClosed = Counter.builder()
            .name("sharedlookup_http_connections_closed_total")
            .help("HTTP connections closed by the server's limits: over_limit (connection cap reached), "
                    + "request_timeout (no complete request in time), idle_timeout (kept alive, unused), oversized "
                    + "(request line, headers or body over the limit), write_timeout (response not taken), evicted "
                    + "(kept alive and idle the longest when a new connection came at the cap)")
            .labelNames("reason")
            .register(registry);
    public final Histogram httpLatency = Histogram.builder()
            .name("sharedlookup_http_request_duration_seconds")
            .help("HTTP request latency by endpoint")
            .labelNames("endpoint")
            .classicOnly()
            .classicUpperBounds(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1)
            .register(registry);

    /** The Prometheus text exposition (format 0.0.4). */
    public byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        try {
            text.write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The content type of {@link #scrape()}. */
    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }
}
