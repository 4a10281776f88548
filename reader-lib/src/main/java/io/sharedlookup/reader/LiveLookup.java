package io.sharedlookup.reader;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.LookupBatch;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterLiveness;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Lookup} that swaps to each newly published generation; refreshed by the store's refresh thread.
 *
 * <p>Generations are read-only mappings released by the garbage collector once no call uses them, so a call simply
 * reads the current one: there is nothing to count in or out, and a retired generation stays valid for calls still in
 * it.
 */
final class LiveLookup implements Lookup {
    private static final Logger LOG = LoggerFactory.getLogger(LiveLookup.class);
    /** A thread's value for {@link #get}: the returned String is made from its bytes, the only allocation. */
    private static final ThreadLocal<ValueBuffer> VALUE = ThreadLocal.withInitial(ValueBuffer::new);

    private static final ThreadLocal<LookupBatch> BATCH = ThreadLocal.withInitial(LookupBatch::new);

    private final String namespace;
    private final Path manifestFile;
    private final Path namespaceDir;
    private final long lockTimeoutNanos;
    private final WriterWatch writer;
    private final RateLimitedLog refreshWarnings = new RateLimitedLog(LOG, 10_000);
    private final FailedGeneration failures = new FailedGeneration();
    private volatile PublishedGeneration current;
    private volatile Manifest manifest;
    /** What {@link #contentStamp()} answers, taken at each refresh once asked for. */
    private final ContentStamp stamp;

    private byte[] manifestBytes;
    private boolean closed;

    private LiveLookup(String namespace, StoreLayout layout, long lockTimeoutNanos, long liveWaitNanos) {
        this.namespace = namespace;
        this.manifestFile = layout.manifest(namespace);
        this.namespaceDir = layout.namespaceDir(namespace);
        this.lockTimeoutNanos = lockTimeoutNanos;
        this.writer = new WriterWatch(namespace, WriterLiveness.of(namespaceDir), liveWaitNanos);
        this.stamp = new ContentStamp(namespace, refreshWarnings);
    }

    /**
     * Opens the published generation of {@code namespace}.
     *
     * @throws NamespaceNotFoundException when nothing is published under that name
     * @throws SharedLookupException      when the manifest or generation cannot be used
     */
    static LiveLookup open(String namespace, StoreLayout layout, long lockTimeoutNanos, long liveWaitNanos) {
        LiveLookup lookup = new LiveLookup(namespace, layout, lockTimeoutNanos, liveWaitNanos);
        // A generation can be replaced (and its file deleted) between reading the manifest and opening the file,
        // especially while the first open in a JVM takes seconds: then the manifest has changed, so try again.
        for (int attempt = 1; ; attempt++) {
            byte[] bytes = lookup.readManifest(layout);
            try {
                lookup.switchTo(bytes, false);
                return lookup;
            } catch (RuntimeException e) {
                if (attempt >= 5 || Arrays.equals(bytes, lookup.readManifest(layout))) {
                    throw new SharedLookupException(e.getMessage(), e);
                }
            }
        }
    }

    private byte[] readManifest(StoreLayout layout) {
        try {
            return Manifest.readBytes(manifestFile);
        } catch (NoSuchFileException e) {
            throw new NamespaceNotFoundException("No namespace '" + namespace + "' in store " + layout.storeDir()
                    + ": no writer has published it there yet (check the writer's --store-dir and --topic)");
        } catch (AccessDeniedException e) {
            throw new SharedLookupException(
                    "Cannot read " + manifestFile + ": permission denied; the reader needs "
                            + "read access to the store files (add its user to the writer's group)",
                    e);
        } catch (IOException e) {
            throw new SharedLookupException(
                    "Cannot read " + manifestFile + ": " + e + " (check the store volume: "
                            + "the writer rewrites the manifest at its next checkpoint)",
                    e);
        } catch (StoreFormatException e) {
            throw new SharedLookupException(e.getMessage(), e);
        }
    }

    /**
     * Called by the refresh thread: switches to a newly published generation, keeps serving the old one on error.
     * Never throws: the refresh thread must outlive anything one namespace's files do to it.
     */
    synchronized void refresh() {
        if (closed) {
            return;
        }
        writer.observe();
        try {
            byte[] bytes = Manifest.readBytes(manifestFile);
            if (!Arrays.equals(bytes, manifestBytes) || current.faulted()) { // faulted: reopen what it names
                switchTo(bytes, true);
            }
            stamp.refresh(current);
        } catch (NoSuchFileException e) {
            refreshWarnings.warn(
                    "Namespace '{}': {} disappeared; still serving generation {}",
                    namespace,
                    manifestFile,
                    manifest.generation());
        } catch (Throwable e) { // an Error too (a manifest read as gigabytes, a mapping gone bad): keep refreshing
            refreshWarnings.warn(
                    "Namespace '{}': cannot follow the published generation, still serving {}: {}",
                    namespace,
                    manifest.generation(),
                    e.toString());
        }
    }

    /**
     * Follows the manifest {@code bytes}: opens the generation it names unless it is the one read now. With
     * {@code backOff}, a generation that failed to open is not tried again before its {@link FailedGeneration} delay.
     */
    private void switchTo(byte[] bytes, boolean backOff) {
        Manifest next = Manifest.parse(new String(bytes, java.nio.charset.StandardCharsets.UTF_8), manifestFile);
        PublishedGeneration live = current;
        if (live == null || live.faulted() || !live.isNamedBy(namespaceDir, next)) {
            Object named = PublishedGeneration.identity(namespaceDir, next);
            if (backOff && failures.waiting(named)) {
                return;
            }
            PublishedGeneration opened;
            try {
                opened = writer.follow(PublishedGeneration.open(namespaceDir, next, lockTimeoutNanos));
            } catch (Throwable e) {
                failures.failed(named);
                throw e;
            }
            if (live != null && live.faulted()) {
                failures.failed(named); // reopened after a fault: should it fault again, not reopened at once
            } else {
                failures.clear();
            }
            current = opened;
            // Content first, then the manifest that names it, with nothing in between: new content shows with the old
            // version() only for the width of two volatile writes, and a version never runs ahead of the content it
            // names (a cache keyed by it must not store old results under a new key). generation() reads the
            // generation itself.
            manifest = next;
            if (live != null) {
                LOG.info("Namespace '{}' now reads generation {}", namespace, next.generation());
            }
        }
        manifest = next;
        manifestBytes = bytes;
    }

    /** Stops following; the generation is unmapped once no call in flight uses it any more. */
    synchronized void close() {
        closed = true;
        current = null;
    }

    PublishedGeneration acquire() {
        PublishedGeneration g = current;
        requireOpen(g);
        return g;
    }

    /** Throws unless {@code g}, the current generation as a call read it, says the lookup is open. */
    private void requireOpen(PublishedGeneration g) {
        if (g == null) {
            throw new IllegalStateException("Namespace '" + namespace + "' is closed (its store was closed or the "
                    + "namespace released): look it up again through an open store");
        }
    }

    @Override
    public String namespace() {
        return namespace;
    }

    @Override
    public String get(CharSequence key) {
        ValueBuffer value = VALUE.get();
        return getInto(key, value) ? value.toString() : null;
    }

    @Override
    public boolean getInto(CharSequence key, StringBuilder out) {
        PublishedGeneration g = current;
        if (g == null || key == null) {
            out.setLength(0); // never the previous key's value, whatever happens
            requireOpen(g);
            return false;
        }
        try {
            return g.getInto(key, out, lockTimeoutNanos);
        } catch (LockTimeoutException e) {
            out.setLength(0);
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) { // InternalError: a fault surfacing past PublishedGeneration
            out.setLength(0);
            throw CallFailures.damaged(namespace, g, e);
        }
    }

    @Override
    public boolean getInto(CharSequence key, ValueBuffer out) {
        PublishedGeneration g = current;
        if (g == null || key == null) {
            out.empty(); // never the previous key's value, whatever happens
            requireOpen(g);
            return false;
        }
        try {
            return out.found = g.getInto(key, out.text, lockTimeoutNanos);
        } catch (LockTimeoutException e) {
            out.empty();
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) { // InternalError: a fault surfacing past PublishedGeneration
            out.empty();
            throw CallFailures.damaged(namespace, g, e);
        }
    }

    @Override
    public int getAllInto(CharSequence[] keys, ValueBuffer[] values, int count) {
        if (count < 0 || count > keys.length || count > values.length) {
            throw new IndexOutOfBoundsException("count " + count + " must be from 0 to the length of keys ("
                    + keys.length + ") and of values (" + values.length + ")");
        }
        PublishedGeneration g = current;
        if (g == null) {
            emptyAll(values, count);
            requireOpen(null);
        }
        LookupBatch batch = BATCH.get();
        if (batch.inUse) {
            batch = new LookupBatch(); // a lookup nested in a key's charAt: rare, so a batch of its own
        }
        batch.inUse = true;
        int present = 0;
        try {
            for (int from = 0; from < count; from += LookupBatch.SIZE) {
                int n = Math.min(LookupBatch.SIZE, count - from);
                for (int i = 0; i < n; i++) {
                    ValueBuffer value = values[from + i];
                    value.found = false;
                    batch.out[i] = value.text;
                }
                present += g.getAllInto(keys, from, n, batch, lockTimeoutNanos);
                for (int i = 0; i < n; i++) {
                    values[from + i].found = batch.found[i];
                }
            }
        } catch (LockTimeoutException e) {
            emptyAll(values, count);
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) { // InternalError: a fault surfacing past PublishedGeneration
            emptyAll(values, count);
            throw CallFailures.damaged(namespace, g, e);
        } finally {
            batch.release(); // the thread's batch keeps no caller's key or buffer alive
            batch.inUse = false;
        }
        return present;
    }

    /** After a failed batch: no buffer is left half-filled or saying found. */
    private static void emptyAll(ValueBuffer[] values, int count) {
        for (int i = 0; i < count; i++) {
            values[i].empty();
        }
    }

    @Override
    public long size() {
        PublishedGeneration g = acquire();
        try {
            return g.size(lockTimeoutNanos);
        } catch (LockTimeoutException e) {
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) {
            throw CallFailures.damaged(namespace, g, e);
        }
    }

    @Override
    public long version() {
        acquire();
        return manifest.contentVersion();
    }

    @Override
    public long contentStamp() {
        acquire();
        if (!stamp.followed()) {
            followStamp();
        }
        return stamp.value();
    }

    /**
     * Follows the stamp from now on ({@link ContentStamp#follow}), under the lock the refresh holds. A lookup closed
     * meanwhile keeps the stamp it had.
     */
    private synchronized void followStamp() {
        PublishedGeneration live = current;
        if (live != null) {
            stamp.follow(live, manifest);
        }
    }

    @Override
    public long generation() {
        return acquire().number(); // the generation lookups read, not the manifest, which is set just after it
    }

    @Override
    public boolean isCaughtUp() {
        acquire();
        return manifest.caughtUp();
    }

    @Override
    public Optional<String> contentDigest() {
        acquire();
        Long digest = manifest.contentDigest();
        return digest == null ? Optional.empty() : Optional.of(ContentDigest.hex(digest));
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        forEachWhile((k, v) -> {
            action.accept(k, v);
            return true;
        });
    }

    @Override
    public boolean forEachWhile(BiPredicate<? super String, ? super String> action) {
        PublishedGeneration g = acquire();
        try {
            return g.forEachWhile(action::test, lockTimeoutNanos);
        } catch (LockTimeoutException e) {
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) {
            throw CallFailures.damaged(namespace, g, e);
        }
    }

    @Override
    public boolean hasReverseIndex() {
        return acquire().hasReverseIndex();
    }

    @Override
    public List<String> keysOf(CharSequence value) {
        List<String> keys = new java.util.ArrayList<>();
        forEachKeyOf(value == null ? List.of() : List.of(value), keys::add); // closed: throws all the same
        return keys;
    }

    @Override
    public boolean forEachKeyOf(Collection<? extends CharSequence> values, Predicate<? super String> action) {
        PublishedGeneration g = acquire();
        try {
            Set<String> toScan = new HashSet<>();
            for (CharSequence value : values) {
                if (value == null) {
                    continue;
                }
                java.util.Optional<List<String>> indexed = g.keysOf(value, lockTimeoutNanos);
                if (indexed.isEmpty()) { // no index, or a value shared by too many keys for it
                    toScan.add(value.toString());
                    continue;
                }
                for (String key : indexed.get()) {
                    if (!action.test(key)) {
                        return false;
                    }
                }
            }
            // one pass for every value left; a key has one value, so no key is passed twice
            return toScan.isEmpty()
                    || g.forEachWhile((k, v) -> !toScan.contains(v) || action.test(k), lockTimeoutNanos);
        } catch (LockTimeoutException e) {
            throw CallFailures.timedOut(namespace, g, e, writer.liveness());
        } catch (StoreFormatException | InternalError e) {
            throw CallFailures.damaged(namespace, g, e);
        }
    }

    @Override
    public LookupStatus status() {
        requireOpen(current);
        return writer.status(manifest);
    }

    @Override
    public String toString() {
        PublishedGeneration g = current;
        return "Lookup[" + namespace + (g == null ? ", closed]" : ", generation " + g.number() + "]");
    }
}
