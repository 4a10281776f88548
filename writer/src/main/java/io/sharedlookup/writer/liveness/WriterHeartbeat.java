package io.sharedlookup.writer.liveness;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each namespace's {@code writer.status} file ({@link WriterStatusDescriptor}) saying that this writer is alive
 * and how fresh the namespace is, from a daemon thread of its own: the ingest thread can be busy for seconds (a growth
 * copy, a rebuild) while the writer is alive, and readers wait for a live writer, so the heartbeat must not depend on
 * it. Readers only ever map the file read-only; it gets the store's file mode (never world-writable).
 */
public final class WriterHeartbeat implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WriterHeartbeat.class);
    /** Half the promised period: a tick delayed by a busy host still lands within it. */
    static final long TICK_MILLIS = WriterStatusDescriptor.HEARTBEAT_PERIOD_MILLIS / 2;
    /** How often the manifest's {@code updated.at} is read again (it moves at most every few seconds). */
    private static final long MANIFEST_READ_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final Map<String, ByteBuffer> files;
    private final StoreLayout layout;
    private final Supplier<Map<String, NamespaceStatus>> statuses;
    private final ScheduledExecutorService thread;
    private final Map<String, Long> currentAsOf = new LinkedHashMap<>();
    private long manifestsReadAt;
    private volatile boolean stopped;

    private WriterHeartbeat(
            Map<String, ByteBuffer> files, StoreLayout layout, Supplier<Map<String, NamespaceStatus>> statuses) {
        this.files = files;
        this.layout = layout;
        this.statuses = statuses;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "writer-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens (creating them when missing) the status files of {@code namespaces}, whose locks this writer holds, and
     * starts moving their heartbeats.
     *
     * @param statuses the ingest side's latest status per namespace, for the lag
     * @throws IOException when a status file cannot be made or mapped
     */
    public static WriterHeartbeat start(
            StoreLayout layout,
            List<String> namespaces,
            StorePermissions permissions,
            Supplier<Map<String, NamespaceStatus>> statuses)
            throws IOException {
        Map<String, ByteBuffer> files = new LinkedHashMap<>();
        for (String namespace : namespaces) {
            files.put(namespace, open(WriterStatusDescriptor.of(layout.namespaceDir(namespace)), permissions));
        }
        WriterHeartbeat heartbeat = new WriterHeartbeat(files, layout, statuses);
        heartbeat.tick();
        heartbeat.thread.scheduleAtFixedRate(heartbeat::tickSafely, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        return heartbeat;
    }

    /** Maps {@code file} read-write, creating it zeroed (written, not mapped past its end) when missing or short. */
    private static ByteBuffer open(Path file, StorePermissions permissions) throws IOException {
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) { // a FIFO would block the open for ever
            throw new IOException(file + " is not a regular file (a link, a FIFO or a directory): delete it and "
                    + "start the writer again");
        }
        try (FileChannel channel = permissions.openOrCreate(file)) {
            if (channel.size() < WriterStatusDescriptor.SIZE) {
                ByteBuffer zeros = ByteBuffer.allocate(WriterStatusDescriptor.SIZE);
                while (zeros.hasRemaining()) {
                    channel.write(zeros, zeros.position());
                }
            }
        }
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, WriterStatusDescriptor.SIZE)
                    .order(ByteOrder.LITTLE_ENDIAN);
            // The count goes on from where the last writer left it: a reader that saw it then sees it move now.
            if (!WriterStatusDescriptor.recognised(buffer)) {
                WriterStatusDescriptor.putLong(buffer, WriterStatusDescriptor.CURRENT_AS_OF_AT, -1);
                WriterStatusDescriptor.putLong(buffer, WriterStatusDescriptor.LAG_AT, -1);
                WriterStatusDescriptor.putInt(
                        buffer, WriterStatusDescriptor.VERSION_AT, WriterStatusDescriptor.VERSION);
                WriterStatusDescriptor.putInt(buffer, WriterStatusDescriptor.MAGIC_AT, WriterStatusDescriptor.MAGIC);
            }
            WriterStatusDescriptor.putLong(
                    buffer,
                    WriterStatusDescriptor.PID_AT,
                    ProcessHandle.current().pid());
            WriterStatusDescriptor.putInt(buffer, WriterStatusDescriptor.STATE_AT, WriterStatusDescriptor.RUNNING);
            return buffer;
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (Throwable e) { // the executor would end the heartbeat for good: readers would think this writer dead
            log.warn("Writer heartbeat: a tick failed ({}); the next one tries again", e.toString());
        }
    }

    private synchronized void tick() {
        if (stopped) {
            return;
        }
        long now = System.nanoTime();
        boolean readManifests = manifestsReadAt == 0 || now - manifestsReadAt >= MANIFEST_READ_NANOS;
        if (readManifests) {
            manifestsReadAt = now == 0 ? 1 : now;
        }
        Map<String, NamespaceStatus> latest = statuses.get();
        for (Map.Entry<String, ByteBuffer> e : files.entrySet()) {
            String namespace = e.getKey();
            ByteBuffer buffer = e.getValue();
            if (readManifests) {
                currentAsOf.put(namespace, updatedAt(namespace));
            }
            NamespaceStatus status = latest.get(namespace);
            WriterStatusDescriptor.putLong(
                    buffer,
                    WriterStatusDescriptor.CURRENT_AS_OF_AT,
                    Math.max(currentAsOf.getOrDefault(namespace, -1L), liveCurrentAsOf(status)));
            WriterStatusDescriptor.putLong(buffer, WriterStatusDescriptor.LAG_AT, lag(status));
            WriterStatusDescriptor.putLong(
                    buffer, WriterStatusDescriptor.HEARTBEAT_MILLIS_AT, System.currentTimeMillis());
            long count = WriterStatusDescriptor.getLong(buffer, WriterStatusDescriptor.HEARTBEAT_AT);
            WriterStatusDescriptor.putLong(buffer, WriterStatusDescriptor.HEARTBEAT_AT, count + 1);
        }
    }

    /** The published manifest's {@code updated.at}: when the offsets readers see were last current, or -1. */
    private long updatedAt(String namespace) {
        Path manifest = layout.manifest(namespace);
        try {
            return Manifest.parse(new String(Manifest.readBytes(manifest), StandardCharsets.UTF_8), manifest)
                    .updatedAtMillis();
        } catch (NoSuchFileException e) {
            return -1; // nothing published yet
        } catch (IOException | RuntimeException e) {
            return currentAsOf.getOrDefault(namespace, -1L); // mid-replace or unreadable now: keep the last word
        }
    }

    /**
     * When what readers see was last current with the topic, by the ingest side, while the namespace is live (else
     * -1). Moved on at every health check; the manifest's stamp moves only at checkpoints, and for a quiet topic only
     * every few minutes, which would make a healthy writer's quiet namespace look stale to a reader.
     */
    static long liveCurrentAsOf(NamespaceStatus status) {
        return status == null || status.state() != NamespaceStatus.State.LIVE ? -1 : status.currentAsOfMillis();
    }

    /**
     * The records of the topic not yet applied to what readers see: the sum over partitions while the namespace is
     * live; unknown (-1) before the writer has asked the broker, and while it builds a new generation (readers still
     * see the previous one, whose lag nobody tracks).
     */
    static long lag(NamespaceStatus status) {
        if (status == null
                || status.state() != NamespaceStatus.State.LIVE
                || status.lag().isEmpty()) {
            return -1;
        }
        return status.lag().values().stream().mapToLong(Long::longValue).sum();
    }

    /** For tests: the heartbeat stops as a killed writer's does, the files still saying the writer runs. */
    synchronized void stopBeating() {
        stopped = true;
        thread.shutdownNow();
    }

    /** Stops the heartbeat and marks every namespace's writer stopped: readers stop judging it alive at once. */
    @Override
    public synchronized void close() {
        stopped = true;
        thread.shutdownNow();
        for (ByteBuffer buffer : files.values()) {
            WriterStatusDescriptor.putInt(buffer, WriterStatusDescriptor.STATE_AT, WriterStatusDescriptor.STOPPED);
        }
    }
}
