package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.NoSuchFileException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

/** The one line made of what Kafka throws: its reason, not its wrappers, and nothing past the first line. */
class KafkaStartErrorsTest {
    @Test
    void refusedCredentialsNameKafkasReasonAndWhatToFix() {
        ConfigException e = KafkaStartErrors.authentication(new SaslAuthenticationException("Authentication failed "
                + "during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"), "k:9092");
        assertThat(e.getMessage()).isEqualTo("Kafka at k:9092 did not accept the writer's connection: Authentication "
                + "failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512: fix the "
                + "security settings (security.protocol, sasl.*, ssl.*) in --kafka-property or --kafka-config, or the "
                + "writer's principal on the broker");
    }

    @Test
    void theReasonSkipsKafkasWrappersAndKeepsTheFileUnderThem() {
        KafkaException wrapped = new KafkaException("Failed to construct kafka consumer",
                new KafkaException("Failed to create new NetworkClient",
                        new KafkaException("Failed to load SSL keystore /etc/ts.jks of type JKS",
                                new NoSuchFileException("/etc/ts.jks"))));
        assertThat(KafkaStartErrors.reason(wrapped))
                .isEqualTo("Failed to load SSL keystore /etc/ts.jks of type JKS (NoSuchFileException: /etc/ts.jks)");
        KafkaException jaas = new KafkaException("Failed to construct kafka consumer",
                new KafkaException(new IllegalArgumentException("Could not find a 'KafkaClient' entry\nin the JAAS "
                        + "configuration")));
        assertThat(KafkaStartErrors.reason(jaas))
                .isEqualTo("IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS configuration");
    }
}
