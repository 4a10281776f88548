package io.sharedlookup.druid;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupStatus;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A namespace's {@link LookupStatus} as JSON for Druid's lookup introspection ({@code /status}, and
 * {@code "freshness"} in {@code /version}). The field names are part of the extension's interface (docs/druid.md):
 * <ul>
 * <li>{@code writerAlive} (boolean) and {@code writer} ({@code ALIVE}, {@code NOT_ALIVE}, {@code UNKNOWN}): the
 * writer's liveness as judged from its heartbeat by this node;</li>
 * <li>{@code writerLastSeen}: when this node last saw the heartbeat move (ISO-8601, UTC), null if never;</li>
 * <li>{@code currentAsOf}: the last time the writer had the content current with its topic, null when unknown;</li>
 * <li>{@code contentAgeMillis}: how old the content is by this node's clock ({@link ContentAge}: since
 * {@code currentAsOf}, which a live writer moves on every few seconds), null when unknown;</li>
 * <li>{@code lagRecords}: records the writer had yet to apply when it last said, null when unknown;</li>
 * <li>{@code maxStaleness}: the spec's bound, null when unset; {@code stale}: whether queries using the lookup fail
 * now because the content is older than that (always false without a bound).</li>
 * </ul>
 */
final class LookupFreshness {
    private LookupFreshness() {}

    static Map<String, Object> of(SharedLookupExtractorFactory factory, Lookup lookup) {
        LookupStatus status = lookup.status();
        long now = System.currentTimeMillis();
        StalenessCheck check = factory.staleness();
        Instant asOf = status.currentAsOf();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("writerAlive", status.writerAlive());
        json.put("writer", status.writer().name());
        json.put("writerLastSeen", text(status.writerLastSeen()));
        json.put("currentAsOf", text(asOf));
        long age = factory.contentAge().ageMillis(status, now);
        json.put("contentAgeMillis", age < 0 ? null : age);
        json.put("lagRecords", status.lagRecords() < 0 ? null : status.lagRecords());
        json.put("maxStaleness", factory.getMaxStaleness());
        json.put("stale", check != null && check.staleness(status, now) != null);
        return json;
    }

    private static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }
}
