package io.sharedlookup.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** The compose file's wiring, checked without a Docker engine. */
class DockerComposeTest {
    private static final String STORE = "/var/lib/shared-lookup";
    private static final String EXTENSION_DIR = "/opt/druid/extensions/druid-shared-lookup";
    /** Druid services that resolve lookups, so they need the store. */
    private static final List<String> LOOKUP_SERVICES = List.of("broker", "historical", "middlemanager");

    private static final List<String> DRUID_SERVICES =
            List.of("coordinator", "broker", "historical", "middlemanager", "router");

    private static ComposeFile compose;

    @BeforeAll
    static void load() throws Exception {
        compose = ComposeFile.load();
    }

    @Test
    void theWriterAndEveryLookupServiceMountTheSameNamedVolumeAtTheSamePath() {
        assertThat(compose.volumes()).containsKey("shared-lookup");
        assertThat(compose.mounts("writer")).containsEntry("shared-lookup", STORE);
        for (String service : LOOKUP_SERVICES) {
            assertThat(compose.mounts(service)).as(service).containsEntry("shared-lookup", STORE);
            assertThat(compose.environment(service)).as(service).containsEntry("druid_sharedLookup_storeDir", STORE);
            assertThat(compose.mountsReadOnly(service, "shared-lookup"))
                    .as(service + ": readers need read access only")
                    .isTrue();
        }
        assertThat(compose.mountsReadOnly("writer", "shared-lookup")).isFalse();
    }

    @Test
    void everyDruidServiceLoadsTheExtensionWithoutAnyFlagOfOurs() {
        List<String> flags =
                List.of(System.getProperty("sharedlookup.test.jvmFlags").trim().split("\\s+"));
        for (String service : DRUID_SERVICES) {
            Map<String, String> env = compose.environment(service);
            assertThat(compose.mounts(service))
                    .as(service)
                    .containsEntry("./druid-extension/target/druid-shared-lookup", EXTENSION_DIR);
            List<Object> loadList = new Yaml().load(env.get("druid_extensions_loadList"));
            assertThat(loadList).as(service + " loadList").contains("druid-shared-lookup");
            String javaOpts = env.getOrDefault("JAVA_OPTS", "");
            assertThat(javaOpts.split("\\s+"))
                    .as(service + " JAVA_OPTS: readers need no flag")
                    .doesNotContainAnyElementsOf(flags);
            assertThat(javaOpts).as(service + " JAVA_OPTS").doesNotContainIgnoringCase("chronicle");
        }
        String peonOptions =
                compose.environment("middlemanager").getOrDefault("druid_indexer_runner_javaOptsArray", "");
        assertThat(peonOptions)
                .as("ingestion task JVM options")
                .doesNotContainIgnoringCase("chronicle")
                .doesNotContain("--add-opens=java.base/java.lang=ALL-UNNAMED");
    }

    @Test
    void imagesArePinned() {
        compose.services().forEach((name, s) -> {
            Object image = ComposeFile.map(s).get("image");
            if (image != null) {
                assertThat(String.valueOf(image))
                        .as(name + " image")
                        .matches("[^:]+:[0-9][\\w.-]*")
                        .doesNotEndWith(":latest");
            } else {
                assertThat(ComposeFile.map(s))
                        .as(name + " builds an image instead")
                        .containsKey("build");
            }
        });
    }

    @Test
    void longRunningServicesHaveHealthchecksAndStartInOrder() {
        compose.services().forEach((name, s) -> {
            boolean oneShot = "no".equals(String.valueOf(ComposeFile.map(s).get("restart")));
            if (!oneShot) {
                assertThat(ComposeFile.map(s)).as(name + " healthcheck").containsKey("healthcheck");
            }
        });
        assertThat(condition("kafka-seed", "kafka")).isEqualTo("service_healthy");
        assertThat(condition("writer", "kafka-seed")).isEqualTo("service_completed_successfully");
        for (String service : LOOKUP_SERVICES) {
            assertThat(condition(service, "writer")).as(service).isEqualTo("service_healthy");
            assertThat(condition(service, "coordinator")).as(service).isEqualTo("service_healthy");
        }
        assertThat(condition("coordinator", "zookeeper")).isEqualTo("service_healthy");
        assertThat(condition("coordinator", "postgres")).isEqualTo("service_healthy");
    }

    @Test
    void aOneShotJobRegistersTheSharedLookupsThroughTheCoordinator() throws Exception {
        assertThat(condition("druid-register", "coordinator")).isEqualTo("service_healthy");
        assertThat(compose.environment("druid-register").get("COORDINATOR")).isEqualTo("http://coordinator:8081");
        String script = Files.readString(ComposeFile.repoRoot().resolve("deploy/druid-register.sh"));
        assertThat(script)
                .contains(
                        "/druid/coordinator/v1/lookups/config",
                        "\"type\": \"sharedLookup\"",
                        "\"namespace\": \"users\"",
                        "__default");
        // The Coordinator keeps lookups across restarts and refuses a version that does not sort after its own: a
        // fixed version would make every later `docker compose up` fail this job.
        assertThat(script).doesNotContainPattern("\"version\":\\s*\"v\\d+\"").contains("date -u +%Y%m%d%H%M%S");
        assertThat(compose.mounts("druid-register"))
                .containsEntry("./deploy/druid-register.sh", "/deploy/druid-register.sh");
        // The lookups are registered last; nodes get them at the coordinator's next sync, Druid's default being 2 min.
        assertThat(compose.environment("coordinator")).containsEntry("druid_manager_lookups_period", "10000");
    }

    @Test
    void theWriterConsumesTheSeededTopicsAndPublishesOnlyOnLoopbackOfTheHost() throws Exception {
        @SuppressWarnings("unchecked")
        List<Object> command = (List<Object>) compose.service("writer").get("command");
        assertThat(command)
                .containsSequence("--bootstrap-servers", "kafka:9092")
                .containsSequence("--topic", "users");
        String seed = Files.readString(ComposeFile.repoRoot().resolve("deploy/kafka-seed.sh"));
        assertThat(seed).contains("--topic \"$topic\"", "cleanup.policy=compact", "pageviews");
        assertThat((List<?>) compose.service("writer").get("ports"))
                .allSatisfy(p -> assertThat(String.valueOf(p)).startsWith("127.0.0.1:"));
    }

    @Test
    void dockerComposeAcceptsTheFileWhereTheCliExists() throws Exception {
        Process version;
        try {
            version = new ProcessBuilder("docker", "compose", "version")
                    .redirectErrorStream(true)
                    .start();
        } catch (java.io.IOException e) {
            org.junit.jupiter.api.Assumptions.abort("no Docker CLI here; the structural checks above still ran");
            return;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(
                version.waitFor(20, TimeUnit.SECONDS) && version.exitValue() == 0,
                "the Docker CLI here has no compose plugin; the structural checks above still ran");
        Process config = new ProcessBuilder("docker", "compose", "config", "--quiet")
                .directory(ComposeFile.repoRoot().toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(config.getInputStream().readAllBytes());
        assertThat(config.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(config.exitValue()).as(output).isZero();
    }

    private static String condition(String service, String dependency) {
        Map<String, Object> dependsOn = ComposeFile.map(compose.service(service).get("depends_on"));
        assertThat(dependsOn).as(service + " depends_on").containsKey(dependency);
        return String.valueOf(ComposeFile.map(dependsOn.get(dependency)).get("condition"));
    }
}
