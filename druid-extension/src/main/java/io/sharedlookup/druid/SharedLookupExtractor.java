package io.sharedlookup.druid;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.ValueBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.Nullable;
import org.apache.druid.query.lookup.LookupExtractor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LookupExtractor} over one namespace of the shared store. Every call reads the namespace's current
 * generation in place; nothing is held on the heap, so {@link #estimateHeapFootprint()} is 0.
 *
 * <p>Reverse lookups ({@link #unapplyAll}) use the writer's reverse index when the namespace has one
 * ({@code --reverse-index}); otherwise they, like iteration of {@link #asMap()}, scan the namespace and cost time
 * proportional to its size.
 */
public final class SharedLookupExtractor extends LookupExtractor {
    private static final Logger LOG = LoggerFactory.getLogger(SharedLookupExtractor.class);
    private static final byte CACHE_KEY_PREFIX = 0x53; // 'S'
    /** Keys per {@link Lookup#getAllInto} call in {@link #applyAll}. */
    private static final int BATCH = 64;

    private final SharedLookupExtractorFactory factory;
    private final Map<String, String> mapView;
    /** The spec's maxStaleness, enforced on every use of the lookup by a query; null when unset. */
    @Nullable
    private final StalenessCheck staleness;

    SharedLookupExtractor(SharedLookupExtractorFactory factory) {
        this.factory = factory;
        this.mapView = new SharedLookupMap(this);
        this.staleness = factory.staleness();
    }

    /**
     * The namespace's current lookup; fails with a clear error while the lookup is not initialised, or while its
     * content is older than the spec's maxStaleness.
     */
    Lookup lookup() {
        Lookup lookup = factory.readyLookup();
        if (staleness != null) {
            staleness.check(lookup);
        }
        return lookup;
    }

    @Nullable
    @Override
    public String apply(@Nullable String key) {
        if (key == null) {
            return null;
        }
        return lookup().get(key); // the String made straight from the value's copied bytes
    }

    /**
     * Every key's value, an absent key mapped to null (as Druid's own {@code applyAll} does), looked up
     * {@value #BATCH} keys at a time through {@link Lookup#getAllInto}, which is faster per key than {@link #apply}
     * once the namespace outgrows the processor's caches. For callers that hold many keys at once: Druid 33's own
     * query engine never calls it (it applies a lookup row by row, through {@link #apply}).
     */
    @Override
    public Map<String, String> applyAll(@Nullable Iterable<String> keys) {
        if (keys == null) {
            return Collections.emptyMap();
        }
        Lookup lookup = lookup();
        Map<String, String> values = new HashMap<>();
        String[] batch = new String[BATCH];
        ValueBuffer[] buffers = new ValueBuffer[BATCH];
        for (int i = 0; i < BATCH; i++) {
            buffers[i] = new ValueBuffer();
        }
        int n = 0;
        for (String key : keys) {
            if (key == null) {
                values.put(null, null); // as apply
            } else {
                batch[n++] = key;
                if (n == BATCH) {
                    putAll(lookup, batch, buffers, n, values);
                    n = 0;
                }
            }
        }
        putAll(lookup, batch, buffers, n, values);
        return values;
    }

    private static void putAll(Lookup lookup, String[] keys, ValueBuffer[] buffers, int n, Map<String, String> into) {
        lookup.getAllInto(keys, buffers, n);
        for (int i = 0; i < n; i++) {
            into.put(keys[i], buffers[i].found() ? buffers[i].toString() : null);
        }
    }

    @Override
    protected List<String> unapply(@Nullable String value) {
        if (value == null) {
            return Collections.emptyList();
        }
        return lookup().keysOf(value);
    }

    /**
     * Keys whose value is in {@code values}, or null ("cannot", which Druid's callers accept: they then leave the
     * filter as it is) when more than {@code druid.sharedLookup.maxReverseLookupKeys} keys match. Values the writer's
     * reverse index holds cost one index read each; the rest are found together in one scan of the namespace, which
     * stops at the bound, so no query collects millions of keys for a value most keys share.
     */
    @Nullable
    @Override
    public Iterator<String> unapplyAll(Set<String> values) {
        List<String> wanted = new ArrayList<>(values.size());
        for (String value : values) {
            if (value != null) { // no key maps to null: a null value has no keys
                wanted.add(value);
            }
        }
        if (wanted.isEmpty()) {
            return Collections.emptyIterator();
        }
        int max = factory.maxReverseLookupKeys();
        List<String> keys = new ArrayList<>();
        boolean all;
        try {
            all = lookup().forEachKeyOf(wanted, key -> keys.size() < max && keys.add(key));
        } catch (SharedLookupException e) {
            // A segment left mid-change or a damaged file: the rewrite is an optimisation, so give it up ("cannot")
            // and let Druid filter on the value row by row, where each lookup reports its own failure.
            LOG.warn("sharedLookup '{}': reverse lookup given up: {}", factory.getNamespace(), e.getMessage());
            return null;
        }
        return all ? keys.iterator() : null;
    }

    @Override
    public boolean supportsAsMap() {
        return true;
    }

    /** A read-only, live view: gets read the current generation; iteration scans it. */
    @Override
    public Map<String, String> asMap() {
        return mapView;
    }

    /**
     * Namespace, store directory, content version, generation and content stamp: changes within the store's refresh
     * interval (20 ms) of any change to the namespace's content, whether or not the writer has checkpointed it.
     */
    @Override
    public byte[] getCacheKey() {
        Lookup lookup = lookup();
        long version = lookup.version();
        long generation = lookup.generation();
        long stamp = lookup.contentStamp(); // updates applied in place since the writer's last checkpoint
        byte[] namespace = factory.getNamespace().getBytes(StandardCharsets.UTF_8);
        byte[] dir = factory.storeDirectory().toString().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(1 + namespace.length + 1 + dir.length + 1 + 3 * Long.BYTES + 1)
                .put(CACHE_KEY_PREFIX)
                .put(namespace)
                .put((byte) 0xFF)
                .put(dir)
                .put((byte) 0xFF)
                .putLong(version)
                .putLong(generation)
                .putLong(stamp)
                .put((byte) (factory.isInjective() ? 1 : 0))
                .array();
    }

    @Override
    public boolean isOneToOne() {
        return factory.isInjective();
    }

    @Override
    public long estimateHeapFootprint() {
        return 0;
    }

    @Override
    public String toString() {
        return "SharedLookupExtractor{" + factory.getNamespace() + "}";
    }
}
