package io.sharedlookup.writer.namespace;

import java.util.Map;

/** Per topic, the consumer's position on each partition: the next offset to read, i.e. what has been applied. */
@FunctionalInterface
public interface Positions {
    Map<Integer, Long> of(String topic);
}
