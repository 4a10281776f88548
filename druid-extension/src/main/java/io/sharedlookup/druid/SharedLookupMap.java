package io.sharedlookup.druid;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Read-only live {@link Map} view of a namespace, for Druid's lookup joins and {@code SELECT * FROM lookup.x}.
 * {@code get}/{@code containsKey} read the current generation; {@code size} is the current entry count; iterating
 * takes a snapshot of the current generation when the iterator is created (it holds the entries on the heap while
 * iterating, so iterate only small namespaces). Mutators throw {@link UnsupportedOperationException}.
 */
final class SharedLookupMap extends AbstractMap<String, String> {
    private final SharedLookupExtractor extractor;
    private final Set<Map.Entry<String, String>> entries = new Entries();

    SharedLookupMap(SharedLookupExtractor extractor) {
        this.extractor = extractor;
    }

    @Override
    public String get(Object key) {
        return key instanceof String s ? extractor.apply(s) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return get(key) != null;
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, extractor.lookup().size());
    }

    @Override
    public boolean isEmpty() {
        return extractor.lookup().size() == 0;
    }

    @Override
    public Set<Map.Entry<String, String>> entrySet() {
        return entries;
    }

    private final class Entries extends AbstractSet<Map.Entry<String, String>> {
        @Override
        public Iterator<Map.Entry<String, String>> iterator() {
            List<Map.Entry<String, String>> snapshot = new ArrayList<>();
            extractor.lookup().forEach((k, v) -> snapshot.add(new SimpleImmutableEntry<>(k, v)));
            return Collections.unmodifiableList(snapshot).iterator();
        }

        @Override
        public int size() {
            return SharedLookupMap.this.size();
        }
    }
}
