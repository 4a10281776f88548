package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.Manifest;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Resume or rebuild: whether a namespace's published generation may be reopened and continued from the offsets stored
 * with it, or must be built afresh from the beginning of its topic, and why. A pure function of what the store holds,
 * what this writer was started with and what the topic holds now, so that each rule can be tested on its own; the
 * rules are checked in the order below and the first that refuses names the reason logged with the rebuild.
 *
 * <ol>
 *   <li>nothing is published (no manifest, or one that must be rebuilt: unreadable, store format version 1);</li>
 *   <li>the last writer did not stop cleanly;</li>
 *   <li>it was built from another topic;</li>
 *   <li>a setting this writer records (an attribute) differs;</li>
 *   <li>it was built with a {@code --value-field} that this writer does not have;</li>
 *   <li>it was built from a topic of the same name that has since been deleted and recreated (its topic id differs;
 *       generations record it since this rule exists);</li>
 *   <li>a stored offset is below its partition's log start offset;</li>
 *   <li>a stored offset is past its partition's log end offset (the topic was recreated);</li>
 *   <li>the offsets are stamped current at a moment more than {@link #CLOCK_SKEW_MILLIS} later than this host's clock
 *       now: the stamp came from a wall clock that ran ahead (here during the last run, or on the host a
 *       {@code --seed} snapshot was taken on), so it cannot say how old the offsets are;</li>
 *   <li>the offsets are older than the topic's {@code delete.retention.ms} (deletes may have been missed), or than
 *       Kafka's default of a day when the topic's own cannot be read.</li>
 * </ol>
 */
public final class ResumeDecision {
    /** Manifest attribute recording --value-field: a resumed generation must have been built with the same one. */
    public static final String VALUE_FIELD = "value.field";
    /**
     * Manifest attribute recording the id of the topic a generation was built from: a topic deleted and recreated
     * under the same name has a new one, even when it already holds more records than the stored offsets.
     */
    public static final String TOPIC_ID = "topic.id";
    /**
     * Kafka's default {@code delete.retention.ms}, one day: the bound assumed when the topic's own cannot be read (the
     * writer's principal lacks DESCRIBE_CONFIGS, or the broker did not answer). Without a bound a writer stopped for
     * a week would resume, and deletes compacted away meanwhile would stay in the store for good.
     */
    public static final long DEFAULT_DELETE_RETENTION_MILLIS = 86_400_000L;
    /**
     * How much later than this host's clock a stored {@code updated.at} may be and still be believed: a minute, well
     * above what NTP leaves between hosts (milliseconds) and what a clock stepped at boot corrects, well below
     * any {@code delete.retention.ms} worth having (Kafka's default is a day). A stamp later than that came from a
     * clock that was wrong, and would make offsets of any age pass for fresh.
     */
    public static final long CLOCK_SKEW_MILLIS = 60_000L;

    private static final ResumeDecision RESUME = new ResumeDecision(null);

    private final String rebuildReason;

    private ResumeDecision(String rebuildReason) {
        this.rebuildReason = rebuildReason;
    }

    /**
     * What the published manifest says, as far as the decision goes.
     *
     * @param topic           the topic the generation was built from
     * @param attributes      the settings it was built with
     * @param offsets         per partition, the next offset to read
     * @param updatedAtMillis since when the offsets are known current, when they last reached the log's end (wall
     *                        clock)
     * @param stoppedCleanly  the manifest says closed and the generation's file is there
     *                        ({@code NamespaceDirectory.canResume()})
     */
    record Published(
            String topic,
            Map<String, String> attributes,
            Map<Integer, Long> offsets,
            long updatedAtMillis,
            boolean stoppedCleanly) {
        static Published of(Manifest m, boolean stoppedCleanly) {
            return new Published(m.topic(), m.attributes(), m.offsets(), m.updatedAtMillis(), stoppedCleanly);
        }
    }

    /**
     * The topic now.
     *
     * @param beginning             per partition, the log start offset
     * @param end                   per partition, the end offset
     * @param deleteRetentionMillis the topic's delete.retention.ms, or -1 when unknown
     * @param topicId               the topic's id, or null when unknown
     */
    record TopicLog(Map<Integer, Long> beginning, Map<Integer, Long> end, long deleteRetentionMillis, String topicId) {
        TopicLog(Map<Integer, Long> beginning, Map<Integer, Long> end, long deleteRetentionMillis) {
            this(beginning, end, deleteRetentionMillis, null);
        }
    }

    /**
     * @param published         the published manifest, if any
     * @param unpublishedReason without one, why a manifest that exists cannot be used (unreadable, old format)
     * @param topic             the topic this writer reads into the namespace
     * @param attributes        the settings this writer records with a generation
     * @param log               the topic now
     * @param nowMillis         the wall clock now, to compare with {@code delete.retention.ms}
     */
    static ResumeDecision decide(
            Optional<Published> published,
            Optional<String> unpublishedReason,
            String topic,
            Map<String, String> attributes,
            TopicLog log,
            long nowMillis) {
        if (published.isEmpty()) {
            return rebuild(unpublishedReason.orElse("nothing published yet"));
        }
        Published m = published.get();
        if (!m.stoppedCleanly()) {
            return rebuild("the last writer did not stop cleanly");
        }
        Optional<String> different = builtDifferently(m.topic(), m.attributes(), topic, attributes);
        if (different.isPresent()) {
            return rebuild(different.get());
        }
        String builtFromId = m.attributes().get(TOPIC_ID);
        if (builtFromId != null && log.topicId() != null && !builtFromId.equals(log.topicId())) {
            return rebuild("topic '" + topic + "' was deleted and recreated since (its id was " + builtFromId + ", now "
                    + log.topicId() + ")");
        }
        for (Map.Entry<Integer, Long> b : log.beginning().entrySet()) {
            Long stored = m.offsets().get(b.getKey());
            if (stored != null && stored < b.getValue()) {
                return rebuild("stored offset " + stored + " of partition " + b.getKey()
                        + " is below the log start offset " + b.getValue());
            }
        }
        for (Map.Entry<Integer, Long> e : log.end().entrySet()) {
            Long stored = m.offsets().get(e.getKey());
            if (stored != null && stored > e.getValue()) {
                return rebuild("stored offset " + stored + " of partition " + e.getKey()
                        + " is past the log end offset " + e.getValue() + " (was the topic recreated?)");
            }
        }
        if (m.updatedAtMillis() - nowMillis > CLOCK_SKEW_MILLIS) {
            return rebuild("its offsets are stamped current as of " + Instant.ofEpochMilli(m.updatedAtMillis())
                    + ", later than this host's clock (" + Instant.ofEpochMilli(nowMillis) + ") by more than "
                    + CLOCK_SKEW_MILLIS / 1000 + " s: a wall clock ran ahead (here during the last run, or where a "
                    + "--seed snapshot was taken), so their age, and whether deletes were missed, is unknown");
        }
        long retentionMillis = log.deleteRetentionMillis();
        boolean known = retentionMillis >= 0;
        if (nowMillis - m.updatedAtMillis() > (known ? retentionMillis : DEFAULT_DELETE_RETENTION_MILLIS)) {
            return rebuild("its offsets are older than "
                    + (known
                            ? "the topic's delete.retention.ms (" + retentionMillis + " ms)"
                            : "a day, Kafka's default delete.retention.ms, and the topic's own "
                                    + "could not be read (grant the writer's Kafka principal DESCRIBE_CONFIGS on it)")
                    + ", so deletes may have been missed");
        }
        return RESUME;
    }

    /**
     * Why a generation built from {@code builtTopic} with {@code builtAttributes} is not what this writer builds from
     * {@code topic} with {@code attributes} (the rules on the topic and the settings above), or empty when it is.
     */
    public static Optional<String> builtDifferently(
            String builtTopic, Map<String, String> builtAttributes, String topic, Map<String, String> attributes) {
        if (!builtTopic.equals(topic)) {
            return Optional.of("it was built from topic '" + builtTopic + "'");
        }
        // Only the settings this writer records decide; the format may add attributes of its own. One a namespace
        // does not record (an older writer's) counts as its default, not as a change (StoredSettings).
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            String built = StoredSettings.valueOf(builtAttributes, a.getKey());
            if (!a.getValue().equals(built)) {
                return Optional.of("it was built with " + a.getKey() + "=" + built + ", not " + a.getValue());
            }
        }
        if (attributes.get(VALUE_FIELD) == null && builtAttributes.get(VALUE_FIELD) != null) {
            return Optional.of("it was built with " + VALUE_FIELD + "=" + builtAttributes.get(VALUE_FIELD));
        }
        return Optional.empty();
    }

    static ResumeDecision rebuild(String reason) {
        return new ResumeDecision(reason);
    }

    /** Whether the published generation may be reopened and continued from its stored offsets. */
    boolean resume() {
        return rebuildReason == null;
    }

    /** Why the namespace is rebuilt from the beginning of its topic; null when it resumes. */
    String rebuildReason() {
        return rebuildReason;
    }

    @Override
    public String toString() {
        return resume() ? "resume" : "rebuild (" + rebuildReason + ")";
    }
}
