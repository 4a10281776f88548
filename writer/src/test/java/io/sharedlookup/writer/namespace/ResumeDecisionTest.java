package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.namespace.ResumeDecision.Published;
import io.sharedlookup.writer.namespace.ResumeDecision.TopicLog;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One test per rule of {@link ResumeDecision}, each starting from a state that resumes and breaking one thing. */
class ResumeDecisionTest {
    private static final long NOW = 1_000_000_000L;
    private static final Map<String, String> ATTRIBUTES = Map.of("reverse.index", "false");
    /** Published cleanly a second ago from topic "users", offsets inside the log. */
    private static final Published CLEAN =
            new Published("users", Map.of("reverse.index", "false"), Map.of(0, 50L, 1, 70L), NOW - 1_000, true);

    private static final TopicLog LOG = new TopicLog(Map.of(0, 10L, 1, 0L), Map.of(0, 100L, 1, 70L), 86_400_000L);

    private static ResumeDecision decide(Published published) {
        return decide(published, ATTRIBUTES, LOG);
    }

    private static ResumeDecision decide(Published published, Map<String, String> attributes, TopicLog log) {
        return ResumeDecision.decide(Optional.ofNullable(published), Optional.empty(), "users", attributes, log, NOW);
    }

    @Test
    void decide_cleanStopWithOffsetsInsideTheLog_resumes() {
        ResumeDecision d = decide(CLEAN);
        assertThat(d.resume()).isTrue();
        assertThat(d.rebuildReason()).isNull();
    }

    @Test
    void decide_nothingPublished_rebuildsSayingSo() {
        ResumeDecision d = decide(null);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("nothing published yet");
    }

    @Test
    void decide_manifestUnreadableOrOldFormat_rebuildsWithTheStoresReason() {
        ResumeDecision d = ResumeDecision.decide(
                Optional.empty(), Optional.of("its manifest is store format version 1"), "users", ATTRIBUTES, LOG, NOW);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("its manifest is store format version 1");
    }

    @Test
    void decide_writerDidNotStopCleanly_rebuilds() {
        ResumeDecision d = decide(new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW - 1_000, false));
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("the last writer did not stop cleanly");
    }

    @Test
    void decide_builtFromAnotherTopic_rebuilds() {
        ResumeDecision d = decide(new Published("people", CLEAN.attributes(), CLEAN.offsets(), NOW - 1_000, true));
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("it was built from topic 'people'");
    }

    @Test
    void decide_recordedSettingChanged_rebuilds() {
        ResumeDecision d = decide(CLEAN, Map.of("reverse.index", "true"), LOG);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("it was built with reverse.index=false, not true");
    }

    @Test
    void decide_valueFieldAddedNow_rebuilds() {
        ResumeDecision d = decide(CLEAN, Map.of("reverse.index", "false", ResumeDecision.VALUE_FIELD, "name"), LOG);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("it was built with value.field=null, not name");
    }

    @Test
    void decide_valueFieldDroppedNow_rebuilds() {
        Published withField = new Published(
                "users",
                Map.of("reverse.index", "false", ResumeDecision.VALUE_FIELD, "name"),
                CLEAN.offsets(),
                NOW - 1_000,
                true);
        ResumeDecision d = decide(withField);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("it was built with value.field=name");
    }

    @Test
    void decide_formatAttributeThisWriterDoesNotRecord_resumes() {
        Published withMore = new Published(
                "users", Map.of("reverse.index", "false", "format.extra", "x"), CLEAN.offsets(), NOW - 1_000, true);
        assertThat(decide(withMore).resume()).isTrue();
    }

    @Test
    void decide_storedOffsetBelowLogStart_rebuilds() {
        TopicLog truncated = new TopicLog(Map.of(0, 51L, 1, 0L), LOG.end(), LOG.deleteRetentionMillis());
        ResumeDecision d = decide(CLEAN, ATTRIBUTES, truncated);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).isEqualTo("stored offset 50 of partition 0 is below the log start offset 51");
    }

    @Test
    void decide_storedOffsetPastLogEnd_rebuilds() {
        TopicLog recreated = new TopicLog(Map.of(0, 0L, 1, 0L), Map.of(0, 100L, 1, 3L), LOG.deleteRetentionMillis());
        ResumeDecision d = decide(CLEAN, ATTRIBUTES, recreated);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason())
                .isEqualTo("stored offset 70 of partition 1 is past the log end offset 3 (was the topic recreated?)");
    }

    @Test
    void decide_topicRecreatedWithMoreRecordsThanTheStoredOffsets_rebuildsByItsId() {
        Published builtFromA = new Published(
                "users", Map.of("reverse.index", "false", "topic.id", "A"), CLEAN.offsets(), NOW - 1_000, true);
        TopicLog nowB = new TopicLog(LOG.beginning(), LOG.end(), LOG.deleteRetentionMillis(), "B");
        ResumeDecision d = decide(builtFromA, ATTRIBUTES, nowB);
        assertThat(d.resume()).as("its offsets alone look fine").isFalse();
        assertThat(d.rebuildReason()).isEqualTo("topic 'users' was deleted and recreated since (its id was A, now B)");

        TopicLog nowA = new TopicLog(LOG.beginning(), LOG.end(), LOG.deleteRetentionMillis(), "A");
        assertThat(decide(builtFromA, ATTRIBUTES, nowA).resume()).isTrue();
        assertThat(decide(builtFromA, ATTRIBUTES, LOG).resume())
                .as("id unknown now")
                .isTrue();
        assertThat(decide(CLEAN, ATTRIBUTES, nowB).resume())
                .as("built before ids were recorded")
                .isTrue();
    }

    @Test
    void decide_offsetsOlderThanDeleteRetention_rebuilds() {
        TopicLog shortRetention = new TopicLog(LOG.beginning(), LOG.end(), 999);
        ResumeDecision d = decide(CLEAN, ATTRIBUTES, shortRetention);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason())
                .isEqualTo("its offsets are older than the topic's delete.retention.ms (999 ms),"
                        + " so deletes may have been missed");
    }

    @Test
    void decide_deleteRetentionUnknownOrNotExceeded_resumes() {
        assertThat(decide(CLEAN, ATTRIBUTES, new TopicLog(LOG.beginning(), LOG.end(), -1))
                        .resume())
                .isTrue();
        assertThat(decide(CLEAN, ATTRIBUTES, new TopicLog(LOG.beginning(), LOG.end(), 1_000))
                        .resume())
                .isTrue();
    }

    /** Unknown (no DESCRIBE_CONFIGS): Kafka's default, a day, bounds the stop instead of nothing. */
    @Test
    void decide_deleteRetentionUnknownAndOffsetsOlderThanADay_rebuilds() {
        Published twoDaysOld = new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW - 2 * 86_400_000L, true);
        TopicLog unknown = new TopicLog(LOG.beginning(), LOG.end(), -1);
        ResumeDecision d = decide(twoDaysOld, ATTRIBUTES, unknown);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).contains("older than a day", "DESCRIBE_CONFIGS");
        Published hourOld = new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW - 3_600_000L, true);
        assertThat(decide(hourOld, ATTRIBUTES, unknown).resume()).isTrue();
    }

    @Test
    void decide_offsetsStampedLaterThanTheClockBeyondTheSkew_rebuilds() {
        // A clock an hour ahead during the last run (or on the host a seed was taken on): the stamp cannot say how old
        // the offsets are, however long ago the stop was.
        Published fromTheFuture = new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW + 3_600_000L, true);
        ResumeDecision d = decide(fromTheFuture);
        assertThat(d.resume()).isFalse();
        assertThat(d.rebuildReason()).contains("later than this host's clock", "ran ahead", "--seed");
    }

    @Test
    void decide_offsetsStampedLaterThanTheClockWithinTheSkew_resume() {
        long skew = ResumeDecision.CLOCK_SKEW_MILLIS;
        assertThat(decide(new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW + skew, true))
                        .resume())
                .isTrue();
        assertThat(decide(new Published("users", CLEAN.attributes(), CLEAN.offsets(), NOW + skew + 1, true))
                        .resume())
                .isFalse();
    }

    @Test
    void decide_partitionsAddedSinceTheStop_resumes() {
        // New partitions have no stored offset: they are read from their beginning, the others resume.
        TopicLog morePartitions = new TopicLog(Map.of(0, 10L, 1, 0L, 2, 0L), Map.of(0, 100L, 1, 70L, 2, 5L), -1);
        assertThat(decide(CLEAN, ATTRIBUTES, morePartitions).resume()).isTrue();
    }

    @Test
    void decide_severalRulesBroken_namesTheFirst() {
        ResumeDecision d = decide(new Published("people", CLEAN.attributes(), CLEAN.offsets(), 0, false));
        assertThat(d.rebuildReason()).isEqualTo("the last writer did not stop cleanly");
    }
}
