package io.sharedlookup.writer;

import io.sharedlookup.internal.store.NamespaceNames;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One namespace's settings: which topic feeds it and which JSON field of the topic's values it stores. Given as
 * {@code --topic TOPIC[=NAMESPACE]} (one namespace per topic, the value field from {@code --value-field}) or as
 * {@code --lookup NAMESPACE=TOPIC[:FIELD]} (several namespaces may share a topic, each with its own field). Where a
 * namespace's settings are known, this is what says them.
 *
 * @param topic      the Kafka topic
 * @param namespace  the store namespace (defaults to the topic name)
 * @param valueField the dotted JSON path stored for this namespace, or empty for the raw UTF-8 value (or, before
 *                   {@link WriterConfig} resolves it, for {@code --value-field})
 * @param fromLookup whether it was given as {@code --lookup} (so that an error says how to give it again: a
 *                   {@code --lookup} namespace's field comes from its own option, not from {@code --value-field})
 */
public record TopicBinding(String topic, String namespace, Optional<String> valueField, boolean fromLookup) {
    // Kafka's own rule for topic names; checked here so a typo fails at start, not after connecting.
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

    public TopicBinding {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(valueField, "valueField");
    }

    /** A {@code --topic} namespace storing the value field the writer's {@code --value-field} says, if any. */
    public TopicBinding(String topic, String namespace) {
        this(topic, namespace, Optional.empty());
    }

    /** A {@code --topic} namespace storing {@code valueField} (empty: the raw value, or {@code --value-field}). */
    public TopicBinding(String topic, String namespace, Optional<String> valueField) {
        this(topic, namespace, valueField, false);
    }

    /** A {@code --lookup NAMESPACE=TOPIC[:FIELD]} namespace. */
    public static TopicBinding lookup(String topic, String namespace, Optional<String> valueField) {
        return new TopicBinding(topic, namespace, valueField, true);
    }

    /** This binding, storing {@code defaultField} unless it names its own field. */
    TopicBinding withDefaultField(Optional<String> defaultField) {
        return valueField.isPresent() || defaultField.isEmpty()
                ? this
                : new TopicBinding(topic, namespace, defaultField, fromLookup);
    }

    /** Parses {@code TOPIC} or {@code TOPIC=NAMESPACE}; throws {@link ConfigException} naming the fix. */
    public static TopicBinding parse(String text) {
        String t = text.trim();
        int eq = t.indexOf('=');
        String topic = eq < 0 ? t : t.substring(0, eq).trim();
        String namespace = eq < 0 ? topic : t.substring(eq + 1).trim();
        if (!TOPIC.matcher(topic).matches()) {
            throw new ConfigException("Invalid topic '" + topic + "' in --topic " + text
                    + ": use 1 to 249 characters from [A-Za-z0-9._-], optionally followed by =NAMESPACE");
        }
        if (!NamespaceNames.isValid(namespace)) {
            throw new ConfigException("Invalid namespace '" + namespace + "' in --topic " + text
                    + ": use 1 to 200 characters from [A-Za-z0-9._-], not '.' or '..'");
        }
        return new TopicBinding(topic, namespace);
    }

    /**
     * Parses {@code NAMESPACE=TOPIC} or {@code NAMESPACE=TOPIC:FIELD} (a topic name has no colon, so the first one
     * after the topic starts the field); throws {@link ConfigException} naming the fix.
     */
    public static TopicBinding parseLookup(String text) {
        String t = text.trim();
        int eq = t.indexOf('=');
        if (eq < 0) {
            throw new ConfigException("Invalid --lookup " + text + ": use NAMESPACE=TOPIC[:FIELD], e.g. --lookup "
                    + "users_name=users:name.display");
        }
        String namespace = t.substring(0, eq).trim();
        String rest = t.substring(eq + 1).trim();
        int colon = rest.indexOf(':');
        String topic = colon < 0 ? rest : rest.substring(0, colon).trim();
        Optional<String> field = colon < 0
                ? Optional.empty()
                : Optional.of(rest.substring(colon + 1).trim());
        if (!NamespaceNames.isValid(namespace)) {
            throw new ConfigException("Invalid namespace '" + namespace + "' in --lookup " + text
                    + ": use 1 to 200 characters from [A-Za-z0-9._-], not '.' or '..', before the '='");
        }
        if (!TOPIC.matcher(topic).matches()) {
            throw new ConfigException("Invalid topic '" + topic + "' in --lookup " + text
                    + ": use NAMESPACE=TOPIC[:FIELD] with a topic of 1 to 249 characters from [A-Za-z0-9._-]");
        }
        if (field.isPresent() && !JsonField.isPath(field.get())) {
            throw new ConfigException("Invalid field '" + field.get() + "' in --lookup " + text + ": use a dotted "
                    + "path of field names after the topic, e.g. users:name.display, or no ':' for the whole value");
        }
        return lookup(topic, namespace, field);
    }
}
