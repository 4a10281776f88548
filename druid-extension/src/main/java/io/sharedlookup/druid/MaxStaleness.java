package io.sharedlookup.druid;

import java.time.Duration;
import org.joda.time.Period;

/**
 * The lookup spec's optional {@code "maxStaleness"}: how old the namespace's content may be (now minus the last time
 * the writer had it current with its topic) before queries using the lookup fail instead of being served stale values.
 * Written as Druid's own spec periods are, an ISO-8601 period such as {@code "PT5M"} (read with Joda's
 * {@link Period}, as Druid reads them), at least {@link #FLOOR}.
 *
 * @param spec   the value as the spec gave it, kept so that the spec reads back as written
 * @param millis the bound in milliseconds
 */
record MaxStaleness(String spec, long millis) {
    /**
     * The least bound accepted: the reader judges the writer's heartbeat over about 1.5 s and the content's stamp is
     * re-read every half second, so a bound under a second would fail the queries of a healthy, current writer.
     */
    static final Duration FLOOR = Duration.ofSeconds(1);

    /**
     * Reads the spec's value.
     *
     * @return null when the spec has none (queries are never failed for staleness)
     * @throws IllegalArgumentException with one line naming the lookup, the value and how to write it
     */
    static MaxStaleness parse(String namespace, Object value) {
        if (value == null || value instanceof String s && s.isBlank()) {
            return null;
        }
        String prefix = "sharedLookup '" + namespace + "': \"maxStaleness\" is " + quoted(value) + ", ";
        if (!(value instanceof String text)) {
            throw new IllegalArgumentException(prefix + "not an ISO-8601 period: write it as a string such as "
                    + "\"PT5M\" (5 minutes) or \"PT1H\"");
        }
        Period period;
        try {
            period = Period.parse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    prefix + "not an ISO-8601 period: write it as Druid's periods are "
                            + "written, e.g. \"PT5M\" (5 minutes), \"PT30S\" or \"PT1H\"",
                    e);
        }
        long millis;
        try {
            millis = period.toStandardDuration().getMillis();
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException(
                    prefix + "which has months or years, whose length varies: write it "
                            + "in weeks, days, hours, minutes or seconds, e.g. \"P30D\"",
                    e);
        }
        if (millis < FLOOR.toMillis()) {
            throw new IllegalArgumentException(prefix + "under the least allowed, " + FLOOR + ": the writer's "
                    + "heartbeat is judged over about 1.5 s, so a shorter bound would fail the queries of a healthy "
                    + "writer; use at least \"" + FLOOR + "\", or leave it out to never fail for staleness");
        }
        return new MaxStaleness(text, millis);
    }

    private static String quoted(Object value) {
        return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
    }

    @Override
    public String toString() {
        return spec;
    }
}
