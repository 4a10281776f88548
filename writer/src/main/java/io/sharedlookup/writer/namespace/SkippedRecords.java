package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last {@value #KEPT} records one namespace skipped (bad key, undecodable value, oversize...), newest last, so that
 * every skipped record can be found by its partition and offset: the WARN log is rate-limited and names only some.
 * Added to by the ingest thread; read by HTTP requests and by whoever writes the namespace's
 * {@link io.sharedlookup.writer.store.SkippedRecordsFile}.
 */
public final class SkippedRecords {
    /** How many are kept: enough to find a burst of bad records, small enough to show whole. */
    public static final int KEPT = 100;

    /** One skipped record: where it is in the topic, why it was skipped, and when (ISO-8601 instant). */
    public record Skipped(int partition, long offset, String reason, String at) {}

    private static final Logger log = LoggerFactory.getLogger(SkippedRecords.class);
    private final RateLimitedLog writeFailures = new RateLimitedLog(log, 60_000);
    private final ArrayDeque<Skipped> last = new ArrayDeque<>(KEPT);
    private boolean changed;

    /**
     * Records that the record at {@code partition}/{@code offset} was skipped, for {@code reason}. A record skipped
     * again (a rebuild reads the topic again) is listed once, as the newest, with the latest reason and time.
     */
    public synchronized void add(int partition, long offset, String reason) {
        // A scan of at most KEPT entries, only for a skipped record: never on the path of the records applied.
        last.removeIf(s -> s.offset() == offset && s.partition() == partition);
        if (last.size() == KEPT) {
            last.removeFirst();
        }
        // One line each in the file: a reason quoting a bad record must not break the format.
        last.addLast(new Skipped(
                partition,
                offset,
                reason.replaceAll("[\\t\\r\\n]+", " "),
                Instant.now().toString()));
        changed = true;
    }

    /** The records kept, oldest first. */
    public synchronized List<Skipped> list() {
        return List.copyOf(last);
    }

    /** Whether anything was added since the last call: the file needs writing again. */
    synchronized boolean takeChanged() {
        boolean was = changed;
        changed = false;
        return was;
    }

    /**
     * Writes the list to the namespace's {@link io.sharedlookup.writer.store.SkippedRecordsFile} when it changed since
     * the last write: called once per poll batch, so a flood of bad records costs one small file write per batch. A
     * failure is logged (rate-limited) and retried with the next change; it never stops ingestion.
     */
    public void writeIfChanged(NamespaceDirectory directory, String namespace) {
        if (!takeChanged()) {
            return;
        }
        List<String> lines = list().stream()
                .map(s -> s.partition() + "\t" + s.offset() + "\t" + s.at() + "\t" + s.reason())
                .toList();
        try {
            directory.writeSkippedRecords(lines);
        } catch (IOException | RuntimeException e) {
            writeFailures.warn(
                    "Namespace '{}': cannot write its list of skipped records ({}); /namespaces still " + "shows them",
                    namespace,
                    e.toString());
        }
    }
}
