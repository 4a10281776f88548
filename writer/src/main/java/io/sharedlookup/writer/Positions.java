package io.sharedlookup.writer;

import java.util.Map;

/** Per topic, the consumer's position on each partition: the next offset to read, i.e. what has been applied. */
@FunctionalInterface
interface Positions {
    Map<Integer, Long> of(String topic);
}
