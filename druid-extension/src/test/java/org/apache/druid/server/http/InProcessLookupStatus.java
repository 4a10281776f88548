package org.apache.druid.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.net.HostAndPort;
import java.util.Collection;
import java.util.Map;
import org.apache.druid.query.lookup.LookupsState;
import org.apache.druid.server.lookup.cache.LookupExtractorFactoryMapContainer;

/**
 * One lookup's entry of {@code GET /druid/coordinator/v1/lookups/status/<tier>?detailed=true}, computed by Druid's
 * own {@link LookupCoordinatorResource} from the nodes' last reported states. In Druid's package because that method
 * is package-private, kept visible for Druid's own tests.
 */
public final class InProcessLookupStatus {
    private InProcessLookupStatus() {}

    /** {@code {"loaded": …, "pendingNodes": [...]}}, as the coordinator answers it. */
    public static JsonNode status(
            ObjectMapper mapper,
            String lookupName,
            LookupExtractorFactoryMapContainer spec,
            Collection<HostAndPort> nodes,
            Map<HostAndPort, LookupsState<LookupExtractorFactoryMapContainer>> lastKnown) {
        // getLookupStatus reads only its arguments; the resource's collaborators are not needed.
        LookupCoordinatorResource resource = new LookupCoordinatorResource(null, mapper, mapper);
        return mapper.valueToTree(resource.getLookupStatus(lookupName, spec, nodes, lastKnown, true));
    }
}
