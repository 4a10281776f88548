package io.sharedlookup.reader;

import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.internal.store.StoreLayout;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared-lookup store directory, opened for reading. Hands out one {@link Lookup} per namespace and keeps each
 * following the generations the writer publishes, from a single daemon thread.
 *
 * <p>Thread-safe. Any number of JVMs may open the same directory at once. Closing the store stops following and
 * drops every generation: lookups used after that throw {@link IllegalStateException} (calls in flight finish), and
 * the garbage collector unmaps the files once nothing refers to them (mappings are never unmapped explicitly, so that
 * no call can read an unmapped page).
 */
public final class SharedLookupStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedLookupStore.class);
    /** How often published manifests are checked by default. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofMillis(20);
    /**
     * How long a lookup waits by default for a segment the writer is in the middle of changing before throwing
     * {@link LookupTimeoutException}.
     */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofMillis(50);
    /**
     * How long a lookup waits by default for a segment mid-change while the namespace's writer is alive (its heartbeat
     * moves) before throwing {@link LookupTimeoutException}.
     */
    public static final Duration DEFAULT_LIVE_WRITER_WAIT = Duration.ofSeconds(10);

    private final StoreLayout layout;
    private final long lockTimeoutNanos;
    private final long liveWriterWaitNanos;
    private final Map<String, LiveLookup> lookups = new ConcurrentHashMap<>();
    private final ScheduledExecutorService refresher;
    private volatile boolean closed;
    private final RateLimitedLog refreshFailures = new RateLimitedLog(LOG, 10_000);
    /** Runs before each namespace's refresh: a test's way to make a refresh throw. Does nothing otherwise. */
    volatile Consumer<String> beforeRefresh = namespace -> {};

    private SharedLookupStore(Path dir, Duration refreshInterval, Duration lockTimeout, Duration liveWriterWait) {
        this.layout = new StoreLayout(dir);
        this.lockTimeoutNanos = lockTimeout.toNanos();
        this.liveWriterWaitNanos = liveWriterWait.toNanos();
        this.refresher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "shared-lookup-refresh " + dir);
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, refreshInterval.toMillis());
        refresher.scheduleWithFixedDelay(this::refreshAll, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Opens the store at {@code storeDir} with default settings.
     *
     * @throws SharedLookupException when the directory is missing or unreadable
     */
    public static SharedLookupStore open(Path storeDir) {
        return builder(storeDir).open();
    }

    /** Starts configuring a store at {@code storeDir}. */
    public static Builder builder(Path storeDir) {
        return new Builder(storeDir);
    }

    /**
     * Returns the lookup of {@code namespace}, opening it on first use (it maps the published generation read-only,
     * which takes milliseconds).
     *
     * @throws IllegalArgumentException   when the name is not a valid namespace name
     * @throws NamespaceNotFoundException when nothing is published under that name
     * @throws SharedLookupException      when the namespace's files cannot be used
     * @throws IllegalStateException      when the store is closed
     */
    public Lookup lookup(String namespace) {
        NamespaceNames.requireValid(namespace);
        if (closed) {
            throw closedStore();
        }
        LiveLookup lookup = lookups.computeIfAbsent(
                namespace, ns -> LiveLookup.open(ns, layout, lockTimeoutNanos, liveWriterWaitNanos));
        if (closed) { // closed while opening: do not leave a mapping behind
            lookup.close();
            throw closedStore();
        }
        return lookup;
    }

    private IllegalStateException closedStore() {
        return new IllegalStateException(
                "Store " + layout.storeDir() + " is closed: open it again with " + "SharedLookupStore.open");
    }

    /**
     * Stops following {@code namespace} and lets go of its mappings, for a caller that knows nothing uses it any more
     * (a lookup over it dropped): the {@link Lookup} handed out for it throws {@link IllegalStateException} from then
     * on, and a later {@link #lookup(String)} opens it anew. Without this a namespace once looked up stays open until
     * the store closes, and so do the files of generations the writer has since deleted (their disk space with them).
     * Does nothing when the namespace is not open. Not to be called while another thread looks the namespace up
     * through {@link #lookup(String)}: that thread may be handed the lookup being released.
     */
    public void release(String namespace) {
        LiveLookup lookup = lookups.remove(namespace);
        if (lookup != null) {
            lookup.close();
        }
    }

    /**
     * Returns {@code name} when it is a valid namespace name (1 to 200 characters from {@code [A-Za-z0-9._-]}, not
     * {@code .} or {@code ..}: names become directory names).
     *
     * @throws IllegalArgumentException saying what is wrong and what is allowed
     */
    public static String requireValidNamespace(String name) {
        return NamespaceNames.requireValid(name);
    }

    /** The namespaces currently published in the store directory. */
    public Set<String> namespaces() {
        Set<String> names = new TreeSet<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(layout.storeDir())) {
            for (Path d : dirs) {
                String name = d.getFileName().toString();
                if (NamespaceNames.isValid(name) && Files.isRegularFile(d.resolve(StoreLayout.MANIFEST))) {
                    names.add(name);
                }
            }
        } catch (IOException e) {
            throw new SharedLookupException(
                    "Cannot list store " + layout.storeDir() + " (" + e + "): check that it "
                            + "is still mounted and readable by this process's user",
                    e);
        }
        return names;
    }

    /** The store directory. */
    public Path directory() {
        return layout.storeDir();
    }

    /**
     * Stops following the store and closes every lookup it handed out: they throw {@link IllegalStateException} from
     * then on (calls in flight finish). Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        // Lookups first: each waits for a refresh in flight and makes later ones return at once, so stopping the
        // refresh thread interrupts no file access (an interrupted read would be logged as a failure to follow).
        lookups.values().forEach(LiveLookup::close);
        lookups.clear();
        refresher.shutdownNow();
    }

    /**
     * Refreshes every open namespace. Nothing may escape: {@code scheduleWithFixedDelay} cancels the task for good
     * after one uncaught throwable, and every namespace of the store would then stop following its writer, silently.
     * One namespace's failure does not skip the others either.
     */
    private void refreshAll() {
        for (LiveLookup lookup : lookups.values()) {
            try {
                beforeRefresh.accept(lookup.namespace());
                lookup.refresh();
            } catch (Throwable e) { // an Error too: a refresh thread that ends ends following for every namespace
                try {
                    refreshFailures.error(
                            "Namespace '{}': its refresh failed ({}); the other namespaces and its next "
                                    + "refresh go on",
                            lookup.namespace(),
                            e.toString());
                } catch (Throwable ignored) {
                    // logging itself failed (out of memory): the next refresh tries again
                }
            }
        }
    }

    /** Settings of a store; {@link #open()} opens it. */
    public static final class Builder {
        private final Path storeDir;
        private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;
        private Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;
        private Duration liveWriterWait = DEFAULT_LIVE_WRITER_WAIT;

        private Builder(Path storeDir) {
            this.storeDir = Objects.requireNonNull(storeDir, "storeDir");
        }

        /** How often to check for newly published generations; lookups follow a publish within about this. */
        public Builder refreshInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("refreshInterval must be positive: " + interval);
            }
            this.refreshInterval = interval;
            return this;
        }

        /**
         * The longest a lookup waits for a segment that the writer is in the middle of changing (readers take no lock;
         * they retry a read the writer raced with) once the writer's heartbeat has stopped, or when the store has no
         * heartbeat (an older writer); while the writer is alive, waits go on up to {@link #liveWriterWait}. The
         * writer changes a segment in microseconds (longer when preempted or paused for GC on a busy host); a segment
         * that stays mid-change while the writer is not alive was left so by a writer killed mid-update, and waiting
         * longer would not help: its successor rebuilds the namespace. A scan
         * ({@code forEach}, a reverse lookup without an index) copies a whole segment per read, and a writer applying
         * updates to that segment faster than the copy takes keeps it retrying: scans of a very busy namespace want
         * a longer bound. Zero retries a read the writer raced with once and then gives up.
         */
        public Builder lockTimeout(Duration timeout) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("lockTimeout must not be negative: " + timeout);
            }
            this.lockTimeout = timeout;
            return this;
        }

        /**
         * The longest a lookup waits for a segment mid-change while the namespace's writer is alive (its heartbeat
         * moved within the last ~1.5 s): a live writer preempted or paused in the middle of a change on a saturated
         * host finishes it, and a lookup that threw would fail a query. Never shorter than {@link #lockTimeout}.
         */
        public Builder liveWriterWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("liveWriterWait must not be negative: " + wait);
            }
            this.liveWriterWait = wait;
            return this;
        }

        /**
         * Opens the store.
         *
         * @throws SharedLookupException when the directory is missing or unreadable, or is a namespace's directory
         */
        public SharedLookupStore open() {
            Path dir = storeDir.toAbsolutePath().normalize();
            if (!Files.isDirectory(dir)) {
                throw new SharedLookupException("Store directory " + dir + " does not exist: point the reader at the "
                        + "writer's --store-dir (and mount it into this host or container)");
            }
            if (!Files.isReadable(dir) || !Files.isExecutable(dir)) {
                throw new SharedLookupException("Store directory " + dir + " is not readable by this process: add "
                        + "its user to the writer's group (store files are group-readable)");
            }
            StoreLayout.namespaceGivenAsStore(storeDir).ifPresent(wrongLevel -> {
                throw new SharedLookupException(wrongLevel);
            });
            return new SharedLookupStore(dir, refreshInterval, lockTimeout, liveWriterWait);
        }
    }
}
