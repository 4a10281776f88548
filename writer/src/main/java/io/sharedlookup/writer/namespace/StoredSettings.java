package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.StoreLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings that change what a namespace stores, recorded with each of its generations (manifest attributes), and
 * how a namespace's stored ones compare with a start's. A start may not change them silently: readers would see other
 * values (another JSON field, the whole document) or another file layout without anybody asking for it.
 *
 * <p>They are per namespace: the writer computes them for each namespace from wherever its settings came from
 * ({@code --value-field} today), so that namespaces fed differently are compared each with its own.
 *
 * <ul>
 *   <li>the topic the namespace is built from (the manifest's own {@code topic});</li>
 *   <li>{@value #VALUE_FIELD}: the dotted JSON field stored as the value; absent means the raw UTF-8 value;</li>
 *   <li>{@value #REVERSE_INDEX}: whether a reverse index is kept beside each generation; absent means false.</li>
 * </ul>
 *
 * <p>A setting a namespace does not record (written by a writer from before it was recorded) counts as that setting's
 * default, never as a change. {@code --max-value-bytes} is not one of them: it decides which records are skipped (each
 * counted and listed), not what a stored value is.
 */
public final class StoredSettings {
    /** The dotted JSON field stored as the value; not recorded when the raw value is stored. */
    public static final String VALUE_FIELD = ResumeDecision.VALUE_FIELD;
    /** Whether a reverse index is kept beside each generation ({@code true}/{@code false}). */
    public static final String REVERSE_INDEX = StoreLayout.REVERSE_INDEX_ATTRIBUTE;
    /** What an unrecorded setting means: the default of a writer from before it was recorded. */
    private static final Map<String, String> DEFAULTS = Map.of(REVERSE_INDEX, "false");

    private StoredSettings() {}

    /**
     * The attributes a namespace's generations record for these settings.
     *
     * @param valueField   the JSON field stored as the value, or empty for the raw value
     * @param reverseIndex whether a reverse index is kept
     */
    public static Map<String, String> attributes(Optional<String> valueField, boolean reverseIndex) {
        Map<String, String> attributes = new LinkedHashMap<>();
        valueField.ifPresent(f -> attributes.put(VALUE_FIELD, f));
        attributes.put(REVERSE_INDEX, Boolean.toString(reverseIndex));
        return attributes;
    }

    /** The value of setting {@code key} in {@code attributes}: the recorded one, else its default (null: none). */
    static String valueOf(Map<String, String> attributes, String key) {
        String recorded = attributes.get(key);
        return recorded != null ? recorded : DEFAULTS.get(key);
    }

    /**
     * One stored setting a start would change.
     *
     * @param setting the setting's name as recorded ({@code topic}, {@value #VALUE_FIELD}, {@value #REVERSE_INDEX})
     * @param stored  its stored value, null when none (the raw value)
     * @param now     the start's value, null when none
     */
    public record Change(String setting, String stored, String now) {
        /** {@code value.field=name.display}, or {@code no value.field} when there is none. */
        static String show(String setting, String value) {
            return value == null ? "no " + setting : setting + "=" + value;
        }

        /** {@code value.field=name.display, now no value.field}. */
        @Override
        public String toString() {
            return show(setting, stored) + ", now " + show(setting, now);
        }

        /** How to give this setting its stored value again, as a command-line option. */
        public String putBack() {
            return switch (setting) {
                case VALUE_FIELD -> stored == null ? "without --value-field" : "with --value-field " + stored;
                case REVERSE_INDEX -> Boolean.parseBoolean(stored) ? "with --reverse-index" : "without --reverse-index";
                case "topic" -> "with its topic '" + stored + "'";
                default -> "with " + show(setting, stored);
            };
        }
    }

    /**
     * The settings a namespace stored (built from {@code builtTopic} with {@code builtAttributes}) that a start
     * feeding it from {@code topic} with {@code attributes} would change, in a fixed order; empty when none. Only the
     * settings listed above count: the store format and the writer record other attributes of their own (the topic's
     * id, for one) that are not settings.
     */
    public static List<Change> changes(
            String builtTopic, Map<String, String> builtAttributes, String topic, Map<String, String> attributes) {
        List<Change> changes = new ArrayList<>();
        if (!builtTopic.equals(topic)) {
            changes.add(new Change("topic", builtTopic, topic));
        }
        for (String key : List.of(VALUE_FIELD, REVERSE_INDEX)) {
            String stored = valueOf(builtAttributes, key);
            String now = valueOf(attributes, key);
            if (stored == null ? now != null : !stored.equals(now)) {
                changes.add(new Change(key, stored, now));
            }
        }
        return changes;
    }
}
