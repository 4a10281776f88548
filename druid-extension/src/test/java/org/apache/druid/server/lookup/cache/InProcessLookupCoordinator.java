package org.apache.druid.server.lookup.cache;

import java.util.Map;
import java.util.Set;
import org.apache.druid.query.lookup.LookupsState;

/**
 * The coordinator's decisions in one lookup sync with a node, from Druid's own {@link LookupCoordinatorManager}: what
 * to ask the node to load and to drop, given the state the node reported and the tier's lookup specs. In Druid's
 * package because those methods are package-private, kept visible for Druid's own tests.
 */
public final class InProcessLookupCoordinator {
    // Only the two decision methods are used: they read neither discovery, nor configuration, nor HTTP.
    private final LookupCoordinatorManager manager =
            new LookupCoordinatorManager(null, null, new LookupCoordinatorManagerConfig(), null, null);

    /** The specs the coordinator sends the node in {@code toLoad}. */
    public Map<String, LookupExtractorFactoryMapContainer> toLoad(
            LookupsState<LookupExtractorFactoryMapContainer> nodeState,
            Map<String, LookupExtractorFactoryMapContainer> tierLookups) {
        return manager.getToBeLoadedOnNode(nodeState, tierLookups);
    }

    /** The lookup names the coordinator sends the node in {@code toDrop}. */
    public Set<String> toDrop(
            LookupsState<LookupExtractorFactoryMapContainer> nodeState,
            Map<String, LookupExtractorFactoryMapContainer> tierLookups) {
        return manager.getToBeDroppedFromNode(nodeState, tierLookups);
    }
}
