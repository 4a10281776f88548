package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The record a stall left taken by some namespaces of its topic: given to the others only, once. */
class PartlyTakenTest {
    private static final TopicPartition P0 = new TopicPartition("users", 0);
    private static final TopicPartition P1 = new TopicPartition("users", 1);
    private final PartlyTaken partly = new PartlyTaken();

    @Test
    void readAgain_theRecordSaysWhoTookIt_once() {
        partly.remember(P0, 7, 1, true);
        assertThat(partly.take(P1, 7)).as("another partition").isNull();
        assertThat(partly.take(P0, 6)).as("an earlier record").isNull();
        assertThat(partly.take(P0, 7)).isEqualTo(new PartlyTaken.Taken(7, 1, true));
        assertThat(partly.take(P0, 7)).as("forgotten once taken").isNull();
    }

    @Test
    void noneTookIt_orTheReadWentPastIt_orTheTopicIsRebuilt_allTakeIt() {
        partly.remember(P0, 7, 1, false);
        partly.remember(P0, 7, 0, false); // stalled again, this time on the first namespace
        assertThat(partly.take(P0, 7)).isNull();

        partly.remember(P0, 7, 2, true);
        assertThat(partly.take(P0, 9))
                .as("offset 7 gone meanwhile (compacted): nothing to skip")
                .isNull();
        assertThat(partly.take(P0, 7)).isNull();

        partly.remember(P0, 7, 2, true);
        partly.remember(new TopicPartition("other", 0), 3, 1, true);
        partly.forget("users");
        assertThat(partly.take(P0, 7))
                .as("a rebuild gives every record to every namespace")
                .isNull();
        assertThat(partly.take(new TopicPartition("other", 0), 3)).isNotNull();
    }
}
