package io.sharedlookup.writer;

import io.sharedlookup.internal.store.NamespaceNames;
import java.util.regex.Pattern;

/**
 * One {@code --topic TOPIC[=NAMESPACE]}: which topic feeds which store namespace.
 *
 * @param topic     the Kafka topic
 * @param namespace the store namespace (defaults to the topic name)
 */
public record TopicBinding(String topic, String namespace) {
    // Kafka's own rule for topic names; checked here so a typo fails at start, not after connecting.
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");

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
}
