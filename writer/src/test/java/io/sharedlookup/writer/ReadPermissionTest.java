package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.namespace.Applied;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Read permission on one topic taken away from a running writer, on a real broker with Kafka's own authorizer. The
 * writer reads every topic with one consumer, whose polls fail while any partition is not authorized: the other
 * topics must flow on, and the topic must come back once permission is granted again.
 */
class ReadPermissionTest {
    /** Every client here is User:ANONYMOUS (plaintext); with no ACL on a resource, everyone may use it. */
    @RegisterExtension
    static final TestKafka kafka = new TestKafka(Map.of(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "allow.everyone.if.no.acl.found", "true"));

    private static final Path LOGS = Path.of("target", "child-logs");
    /**
     * A denied topic pauses for {@link Applied.Stalled#PAUSE_MILLIS} (30 s) at a time; the test must see it read
     * again at the end of a pause, so its writer runs in a JVM of its own with the pause shortened to this. The
     * checks made while the topic is paused await their answer, so a pause ending between two of them cannot fail
     * them.
     */
    private static final long SHORT_PAUSE_MILLIS = 5_000;

    /** A writer JVM of these topics ({@code TOPIC=NAMESPACE}); its stalled topics pause {@link #SHORT_PAUSE_MILLIS}. */
    private static WriterProcess startWithShortPause(String name, String topic, String... moreTopics) throws Exception {
        List<String> jvmOptions = new ArrayList<>(ChildJvm.chronicleFlags());
        jvmOptions.add("-D" + Applied.Stalled.PAUSE_PROPERTY + "=" + SHORT_PAUSE_MILLIS);
        List<String> extra = new ArrayList<>();
        for (String t : moreTopics) {
            extra.add("--topic");
            extra.add(t);
        }
        return WriterProcess.start(
                args -> ChildJvm.start(name, LOGS, jvmOptions, WriterMain.class, args),
                kafka.bootstrap(),
                TestKafka.tempStore(),
                topic,
                extra.toArray(String[]::new));
    }

    /**
     * ACLs on a topic replace "no ACL found": everything stays allowed but the {@code denied} operations (the test
     * producer keeps writing).
     */
    private static List<AclBinding> allowAllBut(String topic, List<AclOperation> denied) {
        ResourcePattern pattern = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        List<AclBinding> acls = new ArrayList<>();
        acls.add(new AclBinding(
                pattern, new AccessControlEntry("User:ANONYMOUS", "*", AclOperation.ALL, AclPermissionType.ALLOW)));
        denied.forEach(op -> acls.add(
                new AclBinding(pattern, new AccessControlEntry("User:ANONYMOUS", "*", op, AclPermissionType.DENY))));
        return acls;
    }

    /**
     * At start, a topic the writer may not describe is left out of the broker's topic list like a missing one: the
     * start is refused with a line that names both causes and both fixes.
     */
    @Test
    void aTopicItMayNotDescribeAtStartIsRefusedNamingThePermission() throws Exception {
        String hidden = "hidden-at-start";
        kafka.createTopic(hidden, 1);
        try (Admin admin = kafka.admin()) {
            admin.createAcls(allowAllBut(hidden, List.of(AclOperation.DESCRIBE)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            // Every client here is the same principal: once the admin no longer sees the topic, the writer will not.
            await("the denial in effect")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> !admin.listTopics()
                            .names()
                            .get(10, TimeUnit.SECONDS)
                            .contains(hidden));
        }
        WriterConfig config = WriterConfig.builder(kafka.bootstrap(), TestKafka.tempStore())
                .topics(List.of(new TopicBinding(hidden, "hidden")))
                .httpPort(0)
                .build();
        assertThatThrownBy(() -> WriterApp.start(config, new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Topic '" + hidden + "' does not exist on " + kafka.bootstrap() + ", or the writer's Kafka "
                        + "principal may not DESCRIBE it: create it or fix --topic, or grant the principal DESCRIBE "
                        + "and READ on it");
    }

    /** Read alone denied: the fetch fails. Describe denied too: end offsets and metadata fail as well. */
    @ParameterizedTest
    @EnumSource(
            value = AclOperation.class,
            names = {"READ", "DESCRIBE"})
    void aTopicNoLongerReadable_pausesAloneAndComesBackWhenGrantedAgain(AclOperation alsoDenied) throws Exception {
        String locked = "locked-" + alsoDenied.name().toLowerCase(java.util.Locale.ROOT);
        String open = "open-" + alsoDenied.name().toLowerCase(java.util.Locale.ROOT);
        List<AclBinding> denial = allowAllBut(locked, List.of(AclOperation.READ, alsoDenied));
        kafka.createTopic(locked, 1);
        kafka.createTopic(open, 1);
        kafka.send(locked, "l1", "before");
        kafka.send(open, "o1", "before");
        kafka.flush();
        try (WriterProcess writer = startWithShortPause(
                        "read-permission-" + alsoDenied.name().toLowerCase(java.util.Locale.ROOT),
                        locked + "=locked",
                        open + "=open");
                Admin admin = kafka.admin()) {
            int port = writer.port;
            writer.awaitReady(Duration.ofSeconds(60));

            admin.createAcls(denial).all().get(30, TimeUnit.SECONDS);
            await("the locked topic paused")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/ready")
                            .body()
                            .contains("not authorized to read topic " + "'" + locked
                                    + "': grant the writer's Kafka principal READ and DESCRIBE on it"));
            kafka.send(open, "o2", "while locked");
            kafka.send(locked, "l2", "while locked");
            kafka.flush();
            await("the other topic flows on")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/lookup/open/o2").statusCode() == 200);
            assertThat(Http.get(port, "/lookup/locked/l2").statusCode()).isEqualTo(404);
            assertThat(Http.get(port, "/health").statusCode()).isEqualTo(200);
            await("/namespaces says the locked namespace is paused")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/namespaces")
                            .body()
                            .contains("\"notReadyReason\" : \"paused: not authorized"));
            await("/ready names the locked topic, not the other one")
                    .atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        String ready = Http.get(port, "/ready").body();
                        return ready.contains("not authorized to read topic '" + locked + "'")
                                && !ready.contains("\"open\"");
                    });

            admin.deleteAcls(denial.stream().map(AclBinding::toFilter).toList())
                    .all()
                    .get(30, TimeUnit.SECONDS);
            // Paused SHORT_PAUSE_MILLIS at a time: read again at the end of the pause, nothing skipped. The bound fails
            // a writer that ignored the shortened pause (30 s) instead of slowing the build down by itself.
            await("the locked topic read again")
                    .atMost(Duration.ofMillis(SHORT_PAUSE_MILLIS + 15_000))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Http.get(port, "/lookup/locked/l2").body().equals("while locked"));
            await("ready again")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(port, "/ready").statusCode() == 200);
        }
    }
}
