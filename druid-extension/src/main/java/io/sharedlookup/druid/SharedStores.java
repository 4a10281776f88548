package io.sharedlookup.druid;

import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

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
    private static final Map<Path, Entry> STORES = new HashMap<>();
    /** Runs the delayed releases; made on first need. */
    private static ScheduledExecutorService releaser;

    private SharedStores() {
    }

    private static final class Entry {
        final SharedLookupStore store;
        /** Per namespace, the lookups using it; 0 while its release waits for the delay. */
        final Map<String, Integer> users = new HashMap<>();
        final Map<String, ScheduledFuture<?>> releases = new HashMap<>();

        Entry(SharedLookupStore store) {
            this.store = store;
        }
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
        entry.users.merge(namespace, 1, Integer::sum);
        ScheduledFuture<?> pending = entry.releases.remove(namespace);
        if (pending != null) {
            pending.cancel(false); // taken again within the delay: it stays open
        }
        return entry.store;
    }

    /**
     * Gives back one use of {@code namespace} in the store of {@code dir}. The last one releases the namespace after
     * {@code delayMillis} (0: now), and the last namespace of the store closes it.
     */
    static synchronized void release(Path dir, String namespace, long delayMillis) {
        Entry entry = STORES.get(dir);
        Integer users = entry == null ? null : entry.users.get(namespace);
        if (users == null || users == 0) {
            return;
        }
        entry.users.put(namespace, users - 1);
        if (users > 1) {
            return;
        }
        if (delayMillis <= 0) {
            releaseNow(dir, entry, namespace);
        } else {
            entry.releases.put(namespace, releaser().schedule(() -> releaseAfterDelay(dir, entry, namespace),
                    delayMillis, TimeUnit.MILLISECONDS));
        }
    }

    private static synchronized void releaseAfterDelay(Path dir, Entry entry, String namespace) {
        if (STORES.get(dir) != entry || entry.users.getOrDefault(namespace, -1) != 0) {
            return; // taken again (a cancel that came too late to stop this run)
        }
        entry.releases.remove(namespace);
        releaseNow(dir, entry, namespace);
    }

    private static void releaseNow(Path dir, Entry entry, String namespace) {
        entry.users.remove(namespace);
        if (entry.users.isEmpty()) {
            STORES.remove(dir);
            entry.store.close();
        } else {
            entry.store.release(namespace);
        }
    }

    private static ScheduledExecutorService releaser() {
        if (releaser == null) {
            releaser = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "shared-lookup-release");
                t.setDaemon(true);
                t.setContextClassLoader(SharedStores.class.getClassLoader()); // not the Druid thread's that made it
                return t;
            });
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
