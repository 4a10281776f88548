package io.sharedlookup.druid;

import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One {@link SharedLookupStore} per store directory in this JVM (per class loader: Druid loads the extension once),
 * shared by every lookup that reads from it and closed when the last of them closes. A store is thread-safe and owns
 * one refresh thread, so many lookups over one directory cost one thread and one mapping per generation.
 */
final class SharedStores {
    private static final Map<Path, Entry> STORES = new HashMap<>();

    private SharedStores() {
    }

    private static final class Entry {
        final SharedLookupStore store;
        int users;

        Entry(SharedLookupStore store) {
            this.store = store;
        }
    }

    /**
     * Returns the store of {@code dir}, opening it on first use; every call must be paired with one
     * {@link #release(Path)}.
     *
     * @throws io.sharedlookup.reader.SharedLookupException when the directory is missing or unreadable
     */
    static synchronized SharedLookupStore acquire(Path dir) {
        Entry entry = STORES.get(dir);
        if (entry == null) {
            entry = new Entry(withExtensionClassLoader(() -> SharedLookupStore.open(dir)));
            STORES.put(dir, entry);
        }
        entry.users++;
        return entry.store;
    }

    /** Gives back one use of the store of {@code dir}; the last one closes it. */
    static synchronized void release(Path dir) {
        Entry entry = STORES.get(dir);
        if (entry != null && --entry.users <= 0) {
            STORES.remove(dir);
            entry.store.close();
        }
    }

    /** Number of stores open in this JVM (for tests). */
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
