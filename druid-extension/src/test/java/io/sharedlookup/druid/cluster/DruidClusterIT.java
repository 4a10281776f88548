package io.sharedlookup.druid.cluster;

import static io.sharedlookup.druid.cluster.Checks.awaitOrFail;
import static io.sharedlookup.druid.cluster.Checks.awaitReportingStalls;
import static io.sharedlookup.druid.cluster.Checks.literal;
import static io.sharedlookup.druid.cluster.Checks.millisSince;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.testing.WriterProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged extension in a real Druid 33.0.0 cluster, end to end: a real Kafka broker and the real writer jar fill a
 * store from topic {@code users}; ZooKeeper, a coordinator (also the overlord), a broker and a historical run as
 * separate JVMs from druid-services' class path with {@code druid.extensions.loadList=["druid-shared-lookup"]} over
 * {@code target/druid-shared-lookup}; the lookup is registered through the coordinator's API; SQL {@code LOOKUP()} on
 * the broker answers what the writer's HTTP API answers, and follows a change produced to Kafka within a second. The
 * same writer reads topic {@code profiles} once into three namespaces, one JSON field each ({@link ProfileLookups}).
 *
 * <p>Needs the writer's executable jar ({@code writer/target/shared-lookup-writer.jar}, or system property
 * {@code sharedlookup.test.writerJar}), the demo's ({@code demo/target/shared-lookup-demo.jar}, or
 * {@code sharedlookup.test.demoJar}: the Kafka fixture's broker), the extension folder (package phase) and
 * {@code target/druid-cluster.classpath} (pre-integration-test). Services' output:
 * {@code target/druid-cluster-it/logs/<service>.log}, with the command lines beside them; timings in
 * {@code target/druid-cluster-it/summary.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DruidClusterIT {
    /**
     * JVM flags added to every Druid service besides Druid's own ({@link DruidCluster#DRUID_STRONG_ENCAPSULATION_FLAGS}).
     * Default: none, the goal — the extension must work with the flags Druid starts with. Until reader-lib stops
     * needing Chronicle Map's flags, runs set it to them: {@code -Dsharedlookup.druid.extraJvmFlags="<the root pom's
     * chronicle.jvm.flags>"}.
     */
    static final String EXTRA_JVM_FLAGS_PROPERTY = "sharedlookup.druid.extraJvmFlags";

    private static final String TOPIC = "users";
    private static final String LOOKUP = "users";
    private static final Path OUT = Path.of("target", "druid-cluster-it").toAbsolutePath();
    private static final Duration LOOKUP_LOAD_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration PROPAGATION_BUDGET = Duration.ofSeconds(1);

    /** The topic's records: ids to names, several of them non-ASCII (and one non-ASCII id). */
    private static final Map<String, String> USERS = new LinkedHashMap<>();

    static {
        USERS.put("1", "Ada Lovelace");
        USERS.put("2", "Grace Hopper");
        USERS.put("3", "Zoë Ørsted-Åberg");
        USERS.put("4", "José Müller-Łukasiewicz");
        USERS.put("5", "李雷");
        USERS.put("6", "Алиса 🚀");
        USERS.put("42", "Hedy Lamarr");
        USERS.put("ключ-7", "値 ✓");
    }

    @TempDir
    static Path tmp;

    private static KafkaBroker kafka;
    private static WriterProcess writer;
    private static DruidCluster druid;
    private static Path storeDir;
    private static Thread killOnExit;
    private static boolean lookupServing;
    private static Throwable lookupFailure;
    private static List<String> extraJvmFlags = List.of();
    private static final List<String> summary = new ArrayList<>();

    @BeforeAll
    static void startKafkaWriterAndDruid() throws Exception {
        Path writerJar = Path.of(System.getProperty(
                        "sharedlookup.test.writerJar",
                        Path.of("..", "writer", "target", "shared-lookup-writer.jar")
                                .toString()))
                .toAbsolutePath()
                .normalize();
        Path demoJar = Path.of(System.getProperty(
                        "sharedlookup.test.demoJar",
                        Path.of("..", "demo", "target", "shared-lookup-demo.jar")
                                .toString()))
                .toAbsolutePath()
                .normalize();
        Path extensionsDir = Path.of("target").toAbsolutePath();
        Path classPathFile = Path.of("target", "druid-cluster.classpath").toAbsolutePath();
        assertThat(writerJar)
                .as("the writer's executable jar (package the writer module first)")
                .isRegularFile();
        assertThat(demoJar)
                .as("the demo's executable jar, whose broker the Kafka fixture runs (package the demo module "
                        + "first)")
                .isRegularFile();
        assertThat(extensionsDir.resolve(DruidCluster.EXTENSION))
                .as("the packaged extension folder (package phase)")
                .isDirectory();
        assertThat(classPathFile)
                .as("Druid's class path (pre-integration-test phase)")
                .isRegularFile();
        String druidClassPath = Files.readString(classPathFile).trim();
        assertThat(druidClassPath.split(File.pathSeparator))
                .as("druid-services' runtime class path")
                .anyMatch(e -> e.contains("druid-services-33.0.0.jar"))
                .anyMatch(e -> e.contains("zookeeper-3."));
        Path fixture = Path.of(
                DruidClusterIT.class.getResource("/cluster/KafkaFixture.java").toURI());

        TempTrees.delete(OUT);
        Path logs = Files.createDirectories(OUT.resolve("logs"));
        storeDir = Files.createDirectories(tmp.resolve("store"));
        killOnExit = new Thread(DruidClusterIT::killAll, "kill the cluster's processes");
        Runtime.getRuntime().addShutdownHook(killOnExit);

        long t0 = System.nanoTime();
        kafka = KafkaBroker.start(
                demoJar,
                fixture,
                Files.createDirectories(tmp.resolve("kafka")),
                logs,
                List.of(TOPIC, ProfileLookups.TOPIC),
                2);
        extraJvmFlags = readExtraJvmFlags();
        druid = new DruidCluster(tmp.resolve("druid"), logs, druidClassPath, extensionsDir, extraJvmFlags);
        druid.start();

        kafka.awaitReady();
        USERS.forEach(kafka::send);
        ProfileLookups.PROFILES
                .keySet()
                .forEach(id -> kafka.send(ProfileLookups.TOPIC, id, ProfileLookups.document(id)));
        Path writerDir = Files.createDirectories(tmp.resolve("writer"));
        // The writer as users run it: java -jar (its JVM flags come from the jar's manifest), HTTP on 127.0.0.1.
        writer = WriterProcess.start(
                args -> {
                    List<String> cmd = new ArrayList<>(
                            List.of(ChildJvm.java(), "-Xms64m", "-Xmx192m", "-jar", writerJar.toString()));
                    cmd.addAll(List.of(args));
                    return ChildJvm.start("writer", cmd, writerDir, logs);
                },
                kafka.bootstrap(),
                storeDir,
                TOPIC,
                ProfileLookups.writerArgs());
        writer.awaitReady(Duration.ofSeconds(90));
        note("Kafka up, %d records produced, writer ready: %d ms", USERS.size(), millisSince(t0));

        druid.awaitUp();
        note("ZooKeeper, coordinator, broker and historical up: %d ms after the start", millisSince(t0));
    }

    @AfterAll
    static void stopEverything() throws IOException {
        try {
            if (druid != null) {
                druid.close();
            }
        } finally {
            try {
                if (writer != null) {
                    writer.close();
                }
            } finally {
                try {
                    if (kafka != null) {
                        kafka.close();
                    }
                } finally {
                    if (killOnExit != null) {
                        Runtime.getRuntime().removeShutdownHook(killOnExit);
                    }
                    Files.createDirectories(OUT);
                    Files.write(OUT.resolve("summary.txt"), summary, StandardCharsets.UTF_8);
                }
            }
        }
    }

    @Test
    @Order(1)
    void sqlLookupOnTheBrokerAnswersWhatTheWriterAnswers() {
        awaitLookupServing();

        List<String> ids = new ArrayList<>(USERS.keySet());
        ids.add("no-such-id");
        for (String id : ids) {
            String fromWriter = writer.lookup(LOOKUP, id);
            assertThat(fromWriter).as("the writer's answer for '%s'", id).isEqualTo(USERS.get(id));
            assertThat(sqlLookup(id))
                    .as("SQL LOOKUP('%s', 'users') on the broker", id)
                    .isEqualTo(fromWriter);
        }

        // The same through Druid's query engine (an inline datasource scanned on the broker), all ids at once.
        StringBuilder values = new StringBuilder();
        ids.forEach(id -> values.append(values.length() == 0 ? "" : ", ")
                .append("(")
                .append(literal(id))
                .append(")"));
        HttpJson.Answer rows =
                druid.sql("SELECT id, LOOKUP(id, '" + LOOKUP + "') FROM (VALUES " + values + ") AS t(id)");
        assertThat(rows.ok()).as("%s", rows).isTrue();
        Map<String, String> fromEngine = new LinkedHashMap<>();
        rows.json()
                .forEach(row -> fromEngine.put(
                        row.get(0).asText(),
                        row.get(1).isNull() ? null : row.get(1).asText()));
        Map<String, String> expected = new LinkedHashMap<>();
        ids.forEach(id -> expected.put(id, USERS.get(id)));
        assertThat(fromEngine).isEqualTo(expected);
    }

    @Test
    @Order(2)
    void theHistoricalServesTheSameLookup() {
        awaitLookupServing();
        // The historical loads the lookup from the same push; it may apply it a moment after the broker.
        HttpJson.Answer[] last = new HttpJson.Answer[1];
        awaitOrFail(
                "the historical's introspection lists the namespace",
                LOOKUP_LOAD_TIMEOUT,
                () -> {
                    last[0] = HttpJson.get(druid.historicalPort, "/druid/v1/lookups/introspect/" + LOOKUP);
                    return last[0].ok();
                },
                () -> "the historical's last answer: " + last[0] + druid.extensionLogExcerpts());
        // Converted, not iterated: JsonNode's iteration methods differ between Druid 33's Jackson and Druid 37's.
        Map<String, String> listed =
                HttpJson.JSON.convertValue(last[0].json(), new TypeReference<Map<String, String>>() {});
        assertThat(listed).isEqualTo(USERS);

        JsonNode version = HttpJson.get(druid.historicalPort, "/druid/v1/lookups/introspect/" + LOOKUP + "/version")
                .json();
        assertThat(version.get("initialized").asBoolean()).as("%s", version).isTrue();
        assertThat(version.get("namespace").asText()).isEqualTo(TOPIC);

        // The namespace's freshness as the node sees it: the real writer is running, so it is alive and current.
        JsonNode status = HttpJson.get(druid.historicalPort, "/druid/v1/lookups/introspect/" + LOOKUP + "/status")
                .json();
        assertThat(status.path("writerAlive").asBoolean()).as("%s", status).isTrue();
        assertThat(status.path("writer").asText()).as("%s", status).isEqualTo("ALIVE");
        assertThat(status.path("currentAsOf").asText()).as("%s", status).startsWith("20");
        assertThat(status.path("stale").asBoolean()).as("%s", status).isFalse();
        assertThat(version.path("freshness").path("writer").asText())
                .as("%s", version)
                .isNotEmpty();
        note("Historical's lookup status: %s", status);
    }

    @Test
    @Order(3)
    void aChangeProducedToKafkaReachesDruidSqlWithinASecond() {
        awaitLookupServing();
        Map<String, String> changes = new LinkedHashMap<>();
        changes.put("2", "Grace Brewster Murray Hopper ⚓"); // an update
        changes.put("100", "Ælfgifu Ünal 🌍"); // a new id
        changes.put("3", null); // a tombstone: the id goes away

        List<String> slow = new ArrayList<>();
        changes.forEach((id, value) -> {
            long t0 = System.nanoTime();
            kafka.send(id, value);
            long acked = System.nanoTime();
            String[] last = new String[1];
            awaitOrFail(
                    "SQL LOOKUP('" + id + "') shows the change",
                    Duration.ofSeconds(30),
                    Duration.ofMillis(5),
                    () -> {
                        last[0] = sqlLookup(id);
                        return Objects.equals(last[0], value);
                    },
                    () -> "the last SQL answer: " + last[0] + druid.extensionLogExcerpts() + "\n"
                            + writer.jvm.tail(20));
            long seen = System.nanoTime();
            note(
                    "Propagation of %s -> %s: %d ms from the send to Druid's SQL answer (Kafka ack after %d ms)",
                    id, value, (seen - t0) / 1_000_000, (acked - t0) / 1_000_000);
            if (seen - t0 > PROPAGATION_BUDGET.toNanos()) {
                slow.add(id + ": " + (seen - t0) / 1_000_000 + " ms");
            }
            assertThat(writer.lookup(LOOKUP, id))
                    .as("the writer's answer for '%s'", id)
                    .isEqualTo(value);
        });
        assertThat(slow)
                .as("changes that took longer than %s to reach SQL", PROPAGATION_BUDGET)
                .isEmpty();
    }

    /**
     * A lookup registered before its namespace is published: the coordinator must not show it loaded, the nodes must
     * not hold it, and each node must log why; once the writer publishes, the next lookup sync loads it everywhere.
     */
    @Test
    @Order(4)
    void aLookupOverAnUnpublishedNamespaceIsNotLoadedUntilPublished() throws Exception {
        awaitLookupServing(); // the coordinator's lookup config exists from here on
        String name = "later";
        Path laterStore = Files.createDirectories(tmp.resolve("store-later"));
        Map<String, Object> spec = Map.of(
                "version",
                "v1",
                "lookupExtractorFactory",
                Map.of("type", "sharedLookup", "namespace", name, "storeDir", laterStore.toString()));
        HttpJson.Answer posted =
                HttpJson.post(druid.coordinatorPort, "/druid/coordinator/v1/lookups/config/__default/" + name, spec);
        assertThat(posted.ok()).as("%s", posted).isTrue();
        long t0 = System.nanoTime();

        // Each node refuses the lookup at every sync and logs why; wait for two refusals on each.
        String reason = "sharedLookup '" + name + "' not loaded on this node: No namespace '" + name + "' in store "
                + laterStore;
        awaitOrFail(
                "broker and historical each refuse lookup '" + name + "' twice",
                LOOKUP_LOAD_TIMEOUT,
                () -> refusals(druid.broker(), reason) >= 2 && refusals(druid.historical(), reason) >= 2,
                druid::extensionLogExcerpts);
        note(
                "Unpublished namespace: both nodes refused lookup '%s' twice within %d ms of its registration; the "
                        + "broker logged %s",
                name,
                millisSince(t0),
                druid.broker().lines(l -> l.contains(reason)).get(0));
        String statusPath = "/druid/coordinator/v1/lookups/status/__default/" + name + "?detailed=true";
        HttpJson.Answer status = HttpJson.get(druid.coordinatorPort, statusPath);
        assertThat(status.ok()).as("%s", status).isTrue();
        assertThat(status.json().get("loaded").asBoolean())
                .as("coordinator status %s", status)
                .isFalse();
        assertThat(status.json().get("pendingNodes")).as("%s", status).hasSize(2);
        HttpJson.Answer introspection =
                HttpJson.get(druid.brokerPort, "/druid/v1/lookups/introspect/" + name + "/version");
        assertThat(introspection.status()).as("%s", introspection).isEqualTo(404);
        HttpJson.Answer sql = druid.sql("SELECT LOOKUP('1', '" + name + "')");
        assertThat(sql.ok()).as("%s", sql).isFalse();
        note(
                "Unpublished namespace: coordinator %s -> %s; broker introspection HTTP %d; SQL through it: %s",
                statusPath, status.body(), introspection.status(), sql);

        try (TestStores.Published published = TestStores.publish(laterStore, name, Map.of("1", "eins"), true)) {
            long published0 = System.nanoTime();
            HttpJson.Answer[] last = new HttpJson.Answer[1];
            awaitOrFail(
                    "the coordinator shows lookup '" + name + "' loaded once published",
                    LOOKUP_LOAD_TIMEOUT,
                    () -> {
                        last[0] = HttpJson.get(druid.coordinatorPort, statusPath);
                        return last[0].ok() && last[0].json().get("loaded").asBoolean();
                    },
                    () -> "the coordinator's last answer: " + last[0] + druid.extensionLogExcerpts());
            note("Namespace published to coordinator status loaded: %d ms", millisSince(published0));
            awaitOrFail(
                    "SQL through lookup '" + name + "'",
                    Duration.ofSeconds(10),
                    () -> {
                        last[0] = druid.sql("SELECT LOOKUP('1', '" + name + "')");
                        return last[0].ok()
                                && "eins".equals(last[0].json().get(0).get(0).asText());
                    },
                    () -> "the last SQL answer: " + last[0] + druid.extensionLogExcerpts());
            JsonNode version = HttpJson.get(druid.historicalPort, "/druid/v1/lookups/introspect/" + name + "/version")
                    .json();
            assertThat(version.get("initialized").asBoolean()).as("%s", version).isTrue();
        }
    }

    /** One topic read once into three namespaces: each its own sharedLookup, resolving its JSON field. */
    @Test
    @Order(5)
    void oneTopicIntoThreeLookupsEachResolvesItsField() {
        awaitLookupServing(); // the coordinator's lookup config exists from here on
        ProfileLookups.specs(storeDir)
                .forEach((ns, spec) -> assertThat(HttpJson.post(
                                        druid.coordinatorPort,
                                        "/druid/coordinator/v1/lookups/config/__default/" + ns,
                                        spec)
                                .ok())
                        .as("POST of %s", ns)
                        .isTrue());
        List<String> ids = new ArrayList<>(ProfileLookups.PROFILES.keySet());
        ids.add("no-such-id");
        Map<String, List<String>> expected = ProfileLookups.expected(ids);
        String sql = ProfileLookups.selectAll(ids);
        HttpJson.Answer[] last = new HttpJson.Answer[1];
        awaitReportingStalls(
                "broker SQL resolves the three profile lookups",
                LOOKUP_LOAD_TIMEOUT,
                Duration.ofMinutes(3),
                () -> {
                    last[0] = druid.sql(sql);
                    return last[0].ok() && ProfileLookups.rows(last[0].json()).equals(expected);
                },
                () -> "the last SQL answer: " + last[0] + "; expected " + expected + druid.extensionLogExcerpts(),
                DruidClusterIT::note,
                () -> druid.lookupThreadStacks() + druid.lookupSyncState() + druid.extensionLogExcerpts());
        List<String> namespaces = new ArrayList<>(ProfileLookups.FIELDS.keySet());
        ids.forEach(id -> namespaces.forEach(ns -> assertThat(writer.lookup(ns, id))
                .as("writer %s/%s", ns, id)
                .isEqualTo(expected.get(id).get(namespaces.indexOf(ns)))));

        // Two of them in one query: the names of the profiles whose country is FR.
        HttpJson.Answer fr = druid.sql("SELECT LOOKUP(id, 'profile_name') FROM " + ProfileLookups.from(ids)
                + " WHERE LOOKUP(id, 'profile_country') = 'FR'");
        assertThat(fr.ok()).as("%s", fr).isTrue();
        assertThat(fr.json()).as("%s", fr).hasSize(1);
        assertThat(fr.json().get(0).get(0).asText()).isEqualTo("Marie Curie");
        note("One topic into three lookups: %s -> %s", sql, last[0].body());
    }

    private static long refusals(ChildJvm node, String reason) {
        // Druid's lookup manager alerts each refusal, logged as one ERROR line that carries the start's message.
        return node.lines(l -> l.contains("Exception occurred while handling lookup notice") && l.contains(reason))
                .size();
    }

    /**
     * Registers the lookup through the coordinator's API and waits until the broker serves it (once per run: a failure
     * is remembered and fails the later tests at once).
     */
    private static synchronized void awaitLookupServing() {
        if (lookupFailure != null) {
            throw new AssertionError("the lookup never served (see the first test that needed it)", lookupFailure);
        }
        if (!lookupServing) {
            try {
                registerLookupAndAwaitIt();
                lookupServing = true;
            } catch (AssertionError | RuntimeException e) {
                lookupFailure = e;
                throw e;
            }
        }
    }

    private static void registerLookupAndAwaitIt() {
        long t0 = System.nanoTime();
        Map<String, Object> factory =
                Map.of("type", "sharedLookup", "namespace", TOPIC, "storeDir", storeDir.toString());
        Map<String, Object> spec =
                Map.of("__default", Map.of(LOOKUP, Map.of("version", "v1", "lookupExtractorFactory", factory)));
        String path = "/druid/coordinator/v1/lookups/config";
        HttpJson.Answer first = HttpJson.post(druid.coordinatorPort, path, spec);
        if (!first.ok()) {
            // A coordinator that never had lookups: "Not initialized ... post an empty map to initialize".
            assertThat(first.body()).as("%s", first).contains("Not initialized");
            HttpJson.Answer init = HttpJson.post(druid.coordinatorPort, path, "{}");
            assertThat(init.ok()).as("POST {} to %s: %s", path, init).isTrue();
            HttpJson.Answer second = HttpJson.post(druid.coordinatorPort, path, spec);
            assertThat(second.ok())
                    .as("POST of the lookup spec after initialising: %s", second)
                    .isTrue();
            note("First POST of the spec: %s; POST {} then the spec again: HTTP %d", first, second.status());
        }

        // The lookup's own introspection answers once the node holds the lookup, which it does once it serves.
        HttpJson.Answer[] last = new HttpJson.Answer[1];
        awaitOrFail(
                "the broker's lookup 'users' initialised",
                LOOKUP_LOAD_TIMEOUT,
                () -> {
                    last[0] = HttpJson.get(druid.brokerPort, "/druid/v1/lookups/introspect/" + LOOKUP + "/version");
                    return last[0].ok() && last[0].json().path("initialized").asBoolean();
                },
                () -> "the broker's introspection of the lookup: " + last[0]
                        + "\nthe coordinator's lookup status: "
                        + HttpJson.get(
                                druid.coordinatorPort, "/druid/coordinator/v1/lookups/status/__default?detailed=true")
                        + "\nThe Druid services ran with Druid's own JVM flags plus " + EXTRA_JVM_FLAGS_PROPERTY + ": "
                        + (extraJvmFlags.isEmpty() ? "none" : String.join(" ", extraJvmFlags))
                        + "; a lookup that needs more flags cannot open the store."
                        + druid.extensionLogExcerpts());
        note("Lookup registered to initialised on the broker: %d ms", millisSince(t0));

        String id = USERS.keySet().iterator().next();
        awaitOrFail(
                "SQL LOOKUP() on the broker resolves through the lookup",
                Duration.ofSeconds(10),
                () -> {
                    last[0] = sqlAnswer(id);
                    return last[0].ok()
                            && USERS.get(id).equals(last[0].json().get(0).get(0).asText());
                },
                () -> "the last SQL answer: " + last[0] + druid.extensionLogExcerpts());
        note("Lookup registered to SQL answering through it: %d ms", millisSince(t0));
    }

    /** SQL {@code SELECT LOOKUP('<id>', 'users')} on the broker: the value, or null. */
    private static String sqlLookup(String id) {
        HttpJson.Answer a = sqlAnswer(id);
        assertThat(a.ok()).as("SQL for '%s': %s", id, a).isTrue();
        JsonNode value = a.json().get(0).get(0);
        return value.isNull() ? null : value.asText();
    }

    private static HttpJson.Answer sqlAnswer(String id) {
        return druid.sql("SELECT LOOKUP(" + literal(id) + ", '" + LOOKUP + "')");
    }

    private static List<String> readExtraJvmFlags() {
        String flags = System.getProperty(EXTRA_JVM_FLAGS_PROPERTY, "").trim();
        List<String> list = flags.isEmpty() ? List.of() : Arrays.asList(flags.split("\\s+"));
        note(
                "Extra JVM flags for the Druid services (%s): %s",
                EXTRA_JVM_FLAGS_PROPERTY, list.isEmpty() ? "none" : String.join(" ", list));
        return list;
    }

    private static void note(String format, Object... args) {
        String line = String.format(format, args);
        summary.add(line);
        System.out.println("[DruidClusterIT] " + line);
    }

    private static void killAll() {
        if (druid != null) {
            druid.kill();
        }
        if (writer != null) {
            writer.kill();
        }
        if (kafka != null) {
            kafka.kill();
        }
    }
}
