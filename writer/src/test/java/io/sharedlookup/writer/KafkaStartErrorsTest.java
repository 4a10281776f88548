package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.writer.ingest.ConsumerSettings;
import io.sharedlookup.writer.ingest.UnresolvedBootstrapException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;

/** The one line made of what Kafka throws: its reason, not its wrappers, and nothing past the first line. */
class KafkaStartErrorsTest {
    @Test
    void refusedCredentialsNameKafkasReasonAndWhatToFix() {
        ConfigException e = KafkaStartErrors.authentication(
                new SaslAuthenticationException("Authentication failed "
                        + "during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"),
                "k:9092");
        assertThat(e.getMessage())
                .isEqualTo("Kafka at k:9092 did not accept the writer's connection: Authentication "
                        + "failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512: fix the "
                        + "security settings (security.protocol, sasl.*, ssl.*) in --kafka-property or --kafka-config, or the "
                        + "writer's principal on the broker");
    }

    /** Hosts under .invalid never resolve; the loopback address and IP literals need no DNS. */
    @Test
    void bootstrapHostsThatDoNotResolveAreToldApartFromSettingsThatCannotWork() {
        assertThat(BootstrapServers.anyHostResolves("kafka.invalid:9092, SASL_SSL://other.invalid:9093"))
                .isFalse();
        for (String servers : List.of("kafka.invalid:9092,127.0.0.1:9092", "[::1]:9092", "PLAINTEXT://10.0.0.1:9092")) {
            assertThat(BootstrapServers.anyHostResolves(servers)).as(servers).isTrue();
        }
        // Kafka's own refusal, should a host stop resolving between that check and the build.
        Properties settings = ConsumerSettings.of(WriterConfig.builder("kafka.invalid:9092", Path.of("store"))
                .topics(List.of(new TopicBinding("t", "t")))
                .build());
        assertThatThrownBy(() -> KafkaStartErrors.consumer(settings))
                .isInstanceOf(UnresolvedBootstrapException.class)
                .hasMessage("Kafka bootstrap host(s) kafka.invalid:9092 do not resolve (yet)");
    }

    @Test
    void theReasonSkipsKafkasWrappersAndKeepsTheFileUnderThem() {
        KafkaException wrapped = new KafkaException(
                "Failed to construct kafka consumer",
                new KafkaException(
                        "Failed to create new NetworkClient",
                        new KafkaException(
                                "Failed to load SSL keystore /etc/ts.jks of type JKS",
                                new NoSuchFileException("/etc/ts.jks"))));
        assertThat(KafkaStartErrors.reason(wrapped))
                .isEqualTo("Failed to load SSL keystore /etc/ts.jks of type JKS (NoSuchFileException: /etc/ts.jks)");
        KafkaException jaas = new KafkaException(
                "Failed to construct kafka consumer",
                new KafkaException(new IllegalArgumentException(
                        "Could not find a 'KafkaClient' entry\nin the JAAS " + "configuration")));
        assertThat(KafkaStartErrors.reason(jaas))
                .isEqualTo("IllegalArgumentException: Could not find a 'KafkaClient' entry in the JAAS configuration");
    }
}
