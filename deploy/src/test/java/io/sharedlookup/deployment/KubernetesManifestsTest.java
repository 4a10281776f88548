package io.sharedlookup.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Gson;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1ConfigMap;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1NetworkPolicy;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1StatefulSet;
import io.kubernetes.client.openapi.models.V1Volume;
import io.kubernetes.client.openapi.models.V1VolumeMount;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/kubernetes, checked without a cluster: every manifest is validated against the Kubernetes API schema (the
 * official Java client's models reject unknown fields and missing required ones), then the wiring shared-lookup
 * depends on is asserted: one writer per node on a hostPath, readiness on /ready, metrics annotations, limits above
 * the measured footprint, and Druid mounting the same hostPath read-only.
 */
class KubernetesManifestsTest {
    private static final Path DIR = ComposeFile.repoRoot().resolve("deploy/kubernetes");
    private static final String STORE = "/var/lib/shared-lookup";
    /**
     * The writer's resident memory outside the store, the highest measured (docs/benchmarks.md, section 5: 148-163 MiB
     * across runs; 154 MiB at 1k updates/s and 150 MiB at 10k/s in the complete run).
     */
    private static final long MEASURED_RSS_BYTES = 163L << 20;

    /** Each manifest file's single document, as JSON (what the client's models read). */
    private static String json(String file) throws IOException {
        Object doc = new Yaml().load(Files.readString(DIR.resolve(file)));
        return new Gson().toJson(doc);
    }

    @Test
    void kustomizationListsEveryManifestAndEachIsValidAgainstTheKubernetesSchema() throws Exception {
        Map<String, Object> kustomization = new Yaml().load(Files.readString(DIR.resolve("kustomization.yaml")));
        @SuppressWarnings("unchecked")
        List<String> resources = (List<String>) kustomization.get("resources");
        Set<String> onDisk = new TreeSet<>();
        try (Stream<Path> files = Files.list(DIR)) {
            files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml"))
                    .filter(n -> !n.equals("kustomization.yaml"))
                    .forEach(onDisk::add);
        }
        // The Druid example needs the cluster's own druid-common ConfigMap: applied, it would never start.
        Set<String> examples = Set.of("druid-historical.yaml");
        Set<String> applied = new TreeSet<>(onDisk);
        applied.removeAll(examples);
        assertThat(new TreeSet<>(resources)).isEqualTo(applied);
        for (String file : onDisk) {
            String kind = String.valueOf(new Yaml()
                    .<Map<String, Object>>load(Files.readString(DIR.resolve(file)))
                    .get("kind"));
            // fromJson throws on a field the schema does not have or a required field that is missing.
            switch (kind) {
                case "Namespace" -> V1Namespace.fromJson(json(file));
                case "ConfigMap" -> V1ConfigMap.fromJson(json(file));
                case "DaemonSet" -> V1DaemonSet.fromJson(json(file));
                case "StatefulSet" -> V1StatefulSet.fromJson(json(file));
                case "NetworkPolicy" -> V1NetworkPolicy.fromJson(json(file));
                default -> throw new AssertionError(file + ": no schema check for kind " + kind);
            }
        }
    }

    @Test
    void theSchemaCheckRejectsAMisspelledField() throws Exception {
        String misspelled = json("writer-daemonset.yaml").replace("\"readinessProbe\"", "\"readynessProbe\"");
        assertThatThrownBy(() -> V1DaemonSet.fromJson(misspelled)).hasMessageContaining("readynessProbe");
    }

    @Test
    void oneWriterPerNodeKeepsTheStoreOnAHostPathAndIsReadyOnlyWhenCaughtUp() throws Exception {
        V1DaemonSet writer = V1DaemonSet.fromJson(json("writer-daemonset.yaml"));
        assertThat(writer.getSpec()
                        .getUpdateStrategy()
                        .getRollingUpdate()
                        .getMaxSurge()
                        .getIntValue())
                .as("never two writers on one node")
                .isZero();
        V1PodSpec pod = writer.getSpec().getTemplate().getSpec();
        assertThat(pod.getTerminationGracePeriodSeconds())
                .as("a clean stop takes up to 10 s")
                .isGreaterThan(10);
        assertThat(hostPath(pod, "store")).isEqualTo(STORE);
        V1Container c = container(pod, "writer");
        assertThat(mount(c, "store").getMountPath()).isEqualTo(STORE);
        assertThat(mount(c, "store").getReadOnly()).isNotEqualTo(Boolean.TRUE);
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(c.getPorts())
                .anySatisfy(p -> assertThat(p.getContainerPort()).isEqualTo(7070));
        assertThat(writer.getSpec().getTemplate().getMetadata().getAnnotations())
                .containsEntry("prometheus.io/scrape", "true")
                .containsEntry("prometheus.io/port", "7070")
                .containsEntry("prometheus.io/path", "/metrics");
        Quantity limit = c.getResources().getLimits().get("memory");
        Quantity request = c.getResources().getRequests().get("memory");
        assertThat(request.getNumber().longValue())
                .as("request covers the measured resident set")
                .isGreaterThanOrEqualTo(MEASURED_RSS_BYTES);
        assertThat(limit.getNumber().longValue())
                .isGreaterThanOrEqualTo(request.getNumber().longValue());
        assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(env(c)).containsEntry("SHARED_LOOKUP_CONFIG", "/etc/shared-lookup/writer.properties");
    }

    /** /lookup answers with the store's data, and the writer listens on all of its pod's interfaces. */
    @Test
    void onlyItsNamespaceAndLabelledNamespacesReachTheWritersPort() throws Exception {
        V1DaemonSet writer = V1DaemonSet.fromJson(json("writer-daemonset.yaml"));
        V1NetworkPolicy policy = V1NetworkPolicy.fromJson(json("writer-networkpolicy.yaml"));
        assertThat(writer.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(policy.getSpec().getPodSelector().getMatchLabels());
        assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");
        assertThat(policy.getSpec().getIngress()).singleElement().satisfies(rule -> {
            assertThat(rule.getPorts())
                    .singleElement()
                    .satisfies(p -> assertThat(p.getPort().getIntValue()).isEqualTo(7070));
            assertThat(rule.getFrom())
                    .hasSize(2)
                    .anySatisfy(peer -> {
                        assertThat(peer.getNamespaceSelector())
                                .as("this namespace")
                                .isNull();
                        assertThat(peer.getPodSelector())
                                .isNotNull()
                                .satisfies(pods -> assertThat(pods.getMatchLabels())
                                        .as("any pod of it")
                                        .isNullOrEmpty());
                    })
                    .anySatisfy(peer -> assertThat(peer.getNamespaceSelector())
                            .isNotNull()
                            .satisfies(namespaces -> assertThat(namespaces.getMatchLabels())
                                    .containsExactly(Map.entry("shared-lookup.io/scrape", "true"))));
        });
    }

    @Test
    void theWritersSettingsAreOptionsTheWriterKnows() throws Exception {
        V1ConfigMap config = V1ConfigMap.fromJson(json("writer-configmap.yaml"));
        Properties props = new Properties();
        props.load(new StringReader(config.getData().get("writer.properties")));
        // The option table of docs/writer.md is the writer's list (a config file key is an option without dashes).
        Matcher m = Pattern.compile("^\\| `--([a-z-]+)", Pattern.MULTILINE)
                .matcher(Files.readString(ComposeFile.repoRoot().resolve("docs/writer.md")));
        Set<String> known = new TreeSet<>();
        while (m.find()) {
            known.add(m.group(1));
        }
        assertThat(props.stringPropertyNames()).isNotEmpty().isSubsetOf(known).contains("bootstrap-servers", "topic");
    }

    @Test
    void druidMountsTheSameHostPathReadOnlyAndNeedsNoFlag() throws Exception {
        V1StatefulSet druid = V1StatefulSet.fromJson(json("druid-historical.yaml"));
        V1PodSpec pod = druid.getSpec().getTemplate().getSpec();
        assertThat(hostPath(pod, "shared-lookup")).isEqualTo(STORE);
        V1Container c = container(pod, "historical");
        V1VolumeMount store = mount(c, "shared-lookup");
        assertThat(store.getReadOnly()).as("readers need read permission only").isTrue();
        Map<String, String> env = env(c);
        assertThat(env).containsEntry("druid_sharedLookup_storeDir", store.getMountPath());
        assertThat(env.get("druid_extensions_loadList")).contains("\"druid-shared-lookup\"");
        assertThat(String.valueOf(c.getArgs()) + env)
                .doesNotContainIgnoringCase("chronicle")
                .doesNotContain("--add-opens");
        String dockerfile = Files.readString(DIR.resolve("druid.Dockerfile"));
        assertThat(dockerfile)
                .contains("FROM apache/druid:")
                .contains("druid-extension/target/druid-shared-lookup /opt/druid/extensions/druid-shared-lookup");
        // The root .dockerignore leaves every target/ out of the context: the Druid image has an ignore file of its
        // own.
        assertThat(Files.readString(DIR.resolve("druid.Dockerfile.dockerignore"))
                        .lines()
                        .toList())
                .containsSubsequence("*", "!druid-extension/target/druid-shared-lookup");
        assertThat(druid.getSpec().getTemplate().getSpec().getSecurityContext().getFsGroup())
                .isEqualTo(1000L);
    }

    private static String hostPath(V1PodSpec pod, String volume) {
        V1Volume v = pod.getVolumes().stream()
                .filter(x -> x.getName().equals(volume))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + volume));
        assertThat(v.getHostPath()).as(volume + " is a hostPath").isNotNull();
        return v.getHostPath().getPath();
    }

    private static V1Container container(V1PodSpec pod, String name) {
        return pod.getContainers().stream()
                .filter(x -> x.getName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no container " + name));
    }

    private static V1VolumeMount mount(V1Container c, String volume) {
        return c.getVolumeMounts().stream()
                .filter(x -> x.getName().equals(volume))
                .findFirst()
                .orElseThrow(() -> new AssertionError(c.getName() + " does not mount " + volume));
    }

    private static Map<String, String> env(V1Container c) {
        Map<String, String> out = new java.util.HashMap<>();
        for (V1EnvVar e : c.getEnv() == null ? new ArrayList<V1EnvVar>() : c.getEnv()) {
            out.put(e.getName(), e.getValue());
        }
        return out;
    }
}
