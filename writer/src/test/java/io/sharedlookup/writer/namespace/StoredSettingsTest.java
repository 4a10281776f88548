package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.writer.namespace.ResumeDecision.Published;
import io.sharedlookup.writer.namespace.ResumeDecision.TopicLog;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which stored settings a start would change, and what a namespace that does not record one means. */
class StoredSettingsTest {
    private static final Map<String, String> RAW = StoredSettings.attributes(Optional.empty(), false);

    @Test
    void aNamespaceFromAWriterThatDidNotRecordASettingHasItsDefault() {
        // Written before reverse.index was recorded: no attribute at all means the raw value, no reverse index.
        assertThat(StoredSettings.changes("users", Map.of(), "users", RAW)).isEmpty();
        assertThat(StoredSettings.changes("users", Map.of("topic.id", "x"), "users", RAW))
                .as("attributes that are not settings")
                .isEmpty();
        // And the restart resumes instead of rebuilding.
        long now = 1_000_000_000L;
        TopicLog log = new TopicLog(Map.of(0, 0L), Map.of(0, 10L), 86_400_000L);
        ResumeDecision d = ResumeDecision.decide(
                Optional.of(new Published("users", Map.of(), Map.of(0, 10L), now - 1_000, true)),
                Optional.empty(),
                "users",
                RAW,
                log,
                now);
        assertThat(d.resume()).as(d.toString()).isTrue();
    }

    @Test
    void eachSettingThatChangesWhatIsStoredIsAChange() {
        Map<String, String> built = StoredSettings.attributes(Optional.of("name.display"), false);
        assertThat(StoredSettings.changes("users", built, "users", RAW))
                .extracting(Object::toString)
                .containsExactly("value.field=name.display, now no value.field");
        assertThat(StoredSettings.changes(
                        "users", built, "users", StoredSettings.attributes(Optional.of("name.short"), true)))
                .extracting(Object::toString)
                .containsExactly(
                        "value.field=name.display, now value.field=name.short",
                        "reverse.index=false, now reverse.index=true");
        assertThat(StoredSettings.changes("people", built, "users", built))
                .extracting(Object::toString)
                .containsExactly("topic=people, now topic=users");
        assertThat(StoredSettings.changes("users", built, "users", built)).isEmpty();
    }

    @Test
    void eachChangeSaysHowToPutItBack() {
        assertThat(new StoredSettings.Change("value.field", "name", null).putBack())
                .isEqualTo("with --value-field name");
        assertThat(new StoredSettings.Change("value.field", null, "name").putBack())
                .isEqualTo("without --value-field");
        assertThat(new StoredSettings.Change("reverse.index", "true", "false").putBack())
                .isEqualTo("with --reverse-index");
        assertThat(new StoredSettings.Change("topic", "people", "users").putBack())
                .isEqualTo("with its topic 'people'");
    }
}
