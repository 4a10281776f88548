package io.sharedlookup.druid;

import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainer;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;

/** Registered lookups by name, as Druid's LookupReferencesManager hands them to queries (the benchmarks use it too). */
public final class MapLookupProvider implements LookupExtractorFactoryContainerProvider {
    private final Map<String, LookupExtractorFactoryContainer> lookups;

    public MapLookupProvider(Map<String, ? extends LookupExtractorFactory> factories) {
        this.lookups = new java.util.HashMap<>();
        factories.forEach((name, f) -> lookups.put(name, new LookupExtractorFactoryContainer("v1", f)));
    }

    @Override
    public Set<String> getAllLookupNames() {
        return lookups.keySet();
    }

    @Override
    public Optional<LookupExtractorFactoryContainer> get(String lookupName) {
        return Optional.ofNullable(lookups.get(lookupName));
    }

    @Override
    public String getCanonicalLookupName(String lookupName) {
        return lookupName;
    }
}
