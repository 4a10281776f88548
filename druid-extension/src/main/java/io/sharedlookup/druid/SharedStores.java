package io.sharedlookup.druid;

import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link SharedLookupStore} per store directory in this JVM (per class loader: Druid loads the extension once),
 * shared by every lookup that reads from it. A store is thread-safe and owns one refresh thread, so many lookups over
 * one directory cost one thread and one mapping per generation.
 *
 * <p>Uses are counted per namespace. When the last lookup over a namespace is dropped, the namespace is released
 * from the store after a delay ({@code druid.sharedLookup.closeDelayMillis}), so that queries still running on the
 * dropped lookup finish; a lookup over it started within the delay keeps it. With the last namespace of a directory
 * released, its store closes.
 */
final class SharedStores {
    private static final Logger LOG = LoggerFactory.getLogger(SharedStores.class);
    private static final Map<Path, Entry> STORES = new HashMap<>();
    /** Runs the delayed releases; made on first need. */
    private static ScheduledExecutorService releaser;

    private SharedStores() {}

    private static final class Entry {
        final SharedLookupStore store;
        final Map<String, NamespaceUse> namespaces = new HashMap<>();

        Entry(SharedLookupStore store) {
            this.store = store;
        }
    }

    /** One namespace's lookups, and its release once they are gone. */
    private static final class NamespaceUse {
        int users;
        /** Not released before this (nanoTime): the end of the delay owed to the last dropped lookup. */
        long notBefore = Long.MIN_VALUE;
        /** The release waiting for {@link #notBefore}, if any; a newer one replaces it. */
        ScheduledFuture<?> release;
        /** Names {@link #release}'s task: a task that no longer finds its token here does nothing. */
        Object releaseToken;
    }

    /**
     * Returns the store of {@code dir}, opening it on first use, for a lookup over {@code namespace}; every call must
     * be paired with one {@link #release}.
     *
     * @throws io.sharedlookup.reader.SharedLookupException when the directory is missing or unreadable
     */
    static synchronized SharedLookupStore acquire(Path dir, String namespace) {
        Entry entry = STORES.get(dir);
        if (entry == null) {
            entry = new Entry(withExtensionClassLoader(() -> SharedLookupStore.open(dir)));
            STORES.put(dir, entry);
        }
        NamespaceUse use = entry.namespaces.computeIfAbsent(namespace, ns -> new NamespaceUse());
        use.users++;
        if (use.release != null) {
            use.release.cancel(false); // taken again within the delay: it stays open
            use.release = null;
            use.releaseToken = null;
        }
        return entry.store;
    }

    /**
     * Gives back one use of {@code namespace} in the store of {@code dir}. The last one releases the namespace once
     * {@code delayMillis} (0: no delay of its own) have passed, and no earlier than the delay an earlier dropped
     * lookup over it is still owed (so that a start that fails within it does not cut its queries short); the last
     * namespace of the store closes it.
     */
    static synchronized void release(Path dir, String namespace, long delayMillis) {
        Entry entry = STORES.get(dir);
        NamespaceUse use = entry == null ? null : entry.namespaces.get(namespace);
        if (use == null || use.users == 0) {
            return;
        }
        if (--use.users > 0) {
            return;
        }
        long now = System.nanoTime();
        long at = now + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMillis));
        if (use.notBefore != Long.MIN_VALUE && use.notBefore - at > 0) {
            at = use.notBefore;
        }
        if (at - now <= 0) {
            releaseNow(dir, entry, namespace);
            return;
        }
        use.notBefore = at;
        Object token = new Object();
        use.releaseToken = token;
        // The task waits for this lock, so it sees the fields set here even when it is due at once.
        use.release = releaser()
                .schedule(() -> releaseAfterDelay(dir, entry, namespace, token), at - now, TimeUnit.NANOSECONDS);
    }

    private static synchronized void releaseAfterDelay(Path dir, Entry entry, String namespace, Object token) {
        NamespaceUse use = entry.namespaces.get(namespace);
        if (STORES.get(dir) != entry || use == null || use.releaseToken != token) {
            return; // taken again, or replaced by a later release (a cancel that came too late to stop this run)
        }
        try {
            releaseNow(dir, entry, namespace);
        } catch (RuntimeException e) {
            LOG.warn("Cannot release namespace '{}' of store {}: {}", namespace, dir, e.toString());
        }
    }

    private static void releaseNow(Path dir, Entry entry, String namespace) {
        entry.namespaces.remove(namespace);
        if (entry.namespaces.isEmpty()) {
            STORES.remove(dir);
            entry.store.close();
        } else {
            entry.store.release(namespace);
        }
    }

    // Synchronized like its callers, so that the lazy creation is safe on its own, not only through them.
    private static synchronized ScheduledExecutorService releaser() {
        if (releaser == null) {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "shared-lookup-release");
                t.setDaemon(true);
                t.setContextClassLoader(SharedStores.class.getClassLoader()); // not the Druid thread's that made it
                return t;
            });
            executor.setRemoveOnCancelPolicy(true); // a cancelled release does not hold its store until it was due
            releaser = executor;
        }
        return releaser;
    }

    /** Number of stores open in this JVM, those waiting for a delayed release included (for tests). */
    static synchronized int openStores() {
        return STORES.size();
    }

    /**
     * Runs {@code action} with this extension's class loader as the thread's context class loader. Druid calls
     * extensions from its own threads, whose context loader cannot see the extension's jars, and the store's refresh
     * thread inherits the loader of the thread that opens the store.
     */
    static <T> T withExtensionClassLoader(Supplier<T> action) {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(SharedStores.class.getClassLoader());
        try {
            return action.get();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }
}
