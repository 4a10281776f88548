package io.sharedlookup.druid;

import io.sharedlookup.reader.Lookup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import javax.ws.rs.DefaultValue;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.apache.druid.query.lookup.LookupIntrospectHandler;

/**
 * Served by Druid under {@code /druid/v1/lookups/introspect/<lookup name>}: {@code /keys}, {@code /values},
 * {@code /version} and {@code /} (the map), like Druid's built-in lookups, and {@code /status}: how fresh the
 * namespace is on this node ({@link LookupFreshness}). Listings stop after {@code limit} entries
 * (default {@value #DEFAULT_LIMIT}, at most {@value #MAX_LIMIT}) so that a large namespace cannot flood a node.
 */
public final class SharedLookupIntrospectHandler implements LookupIntrospectHandler {
    static final int DEFAULT_LIMIT = 1000;
    static final int MAX_LIMIT = 100_000;

    private final SharedLookupExtractorFactory factory;

    SharedLookupIntrospectHandler(SharedLookupExtractorFactory factory) {
        this.factory = factory;
    }

    @GET
    @Path("/keys")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getKeys(@QueryParam("limit") @DefaultValue("" + DEFAULT_LIMIT) int limit) {
        return listing(limit, (k, v, out) -> out.add(k));
    }

    @GET
    @Path("/values")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getValues(@QueryParam("limit") @DefaultValue("" + DEFAULT_LIMIT) int limit) {
        return listing(limit, (k, v, out) -> out.add(v));
    }

    @GET
    @Path("/version")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getVersion() {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("namespace", factory.getNamespace());
        info.put("storeDir", factory.storeDirectory().toString());
        boolean ready = factory.isInitialized();
        info.put("initialized", ready);
        if (ready) {
            Lookup lookup = factory.readyLookup();
            info.put("version", lookup.version());
            info.put("generation", lookup.generation());
            info.put("size", lookup.size());
            info.put("caughtUp", lookup.isCaughtUp());
            // Compare with other nodes' and hosts' writers (/namespaces): equal offsets, equal digest.
            lookup.contentDigest().ifPresent(d -> info.put("digest", d));
            info.put("freshness", LookupFreshness.of(factory, lookup));
        } else {
            info.put("status", factory.status());
        }
        return Response.ok(info).build();
    }

    /**
     * The namespace's freshness as this node sees it ({@link LookupFreshness}): answered once the namespace is open,
     * even while it is still catching up or stale, since that is when an operator asks.
     */
    @GET
    @Path("/status")
    @Produces(MediaType.APPLICATION_JSON)
    public Response getStatus() {
        Lookup lookup = factory.lookupIfOpen();
        if (lookup == null) {
            return notReady();
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("namespace", factory.getNamespace());
        status.put("initialized", factory.isInitialized());
        status.putAll(LookupFreshness.of(factory, lookup));
        return Response.ok(status).build();
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response getMap(@QueryParam("limit") @DefaultValue("" + DEFAULT_LIMIT) int limit) {
        if (!factory.isInitialized()) {
            return notReady();
        }
        Map<String, String> map = new LinkedHashMap<>();
        scan(bounded(limit), (k, v) -> map.put(k, v));
        return Response.ok(map).build();
    }

    private interface Collector {
        void collect(String key, String value, List<String> out);
    }

    private Response listing(int limit, Collector collector) {
        if (!factory.isInitialized()) {
            return notReady();
        }
        List<String> out = new ArrayList<>();
        scan(bounded(limit), (k, v) -> collector.collect(k, v, out));
        return Response.ok(out).build();
    }

    private Response notReady() {
        return Response.status(Response.Status.SERVICE_UNAVAILABLE)
                .entity(Map.of("error", "Lookup not initialised: " + factory.status()))
                .type(MediaType.APPLICATION_JSON)
                .build();
    }

    private static int bounded(int limit) {
        return Math.max(0, Math.min(limit, MAX_LIMIT));
    }

    /** Calls {@code action} for up to {@code limit} entries, then stops the scan. */
    private void scan(int limit, BiConsumer<String, String> action) {
        if (limit == 0) {
            return;
        }
        int[] seen = {0};
        factory.readyLookup().forEachWhile((k, v) -> {
            action.accept(k, v);
            return ++seen[0] < limit;
        });
    }
}
