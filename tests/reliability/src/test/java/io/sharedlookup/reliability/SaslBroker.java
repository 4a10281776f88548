package io.sharedlookup.reliability;

import io.sharedlookup.demo.kafka.EmbeddedKafka;
import io.sharedlookup.testing.TempTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * A real single-node KRaft broker whose client listener requires SASL/PLAIN (SASL_PLAINTEXT), in the test JVM: the
 * demo-kafka module's {@link EmbeddedKafka} with its client listener switched to SASL. Users: {@code admin/admin-secret}
 * (inter-broker) and {@code writer/writer-secret}.
 */
final class SaslBroker implements AutoCloseable {
    static final String WRITER_JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"writer\" password=\"writer-secret\";";
    private final Path dataDir;
    private final EmbeddedKafka kafka;

    SaslBroker() throws Exception {
        dataDir = Files.createTempDirectory("reliability-sasl-kafka-");
        String listener = EmbeddedKafka.CLIENT_LISTENER.toLowerCase(Locale.ROOT);
        kafka = EmbeddedKafka.start(
                dataDir,
                Map.of(
                        "listener.security.protocol.map",
                        EmbeddedKafka.CLIENT_LISTENER + ":SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
                        "sasl.enabled.mechanisms",
                        "PLAIN",
                        "sasl.mechanism.inter.broker.protocol",
                        "PLAIN",
                        "listener.name." + listener + ".plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\" "
                                + "password=\"admin-secret\" user_admin=\"admin-secret\" user_writer=\"writer-secret\";"));
    }

    String bootstrap() {
        return kafka.bootstrapServers();
    }

    /** Client settings for user {@code writer}. */
    Map<String, String> clientSettings() {
        return Map.of(
                "bootstrap.servers",
                bootstrap(),
                "security.protocol",
                "SASL_PLAINTEXT",
                "sasl.mechanism",
                "PLAIN",
                "sasl.jaas.config",
                WRITER_JAAS);
    }

    @Override
    public void close() {
        kafka.close();
        TempTrees.delete(dataDir);
    }
}
