package io.sharedlookup.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The writer image's essentials, read from writer/Dockerfile. */
class DockerfileTest {
    private static List<String> instructions;

    @BeforeAll
    static void load() throws Exception {
        // Join continuation lines, drop comments: one entry per instruction.
        String text = Files.readString(ComposeFile.repoRoot().resolve("writer/Dockerfile"));
        String joined = text.lines()
                .filter(l -> !l.trim().startsWith("#"))
                .collect(Collectors.joining("\n"))
                .replaceAll("\\\\\n", " ");
        instructions =
                joined.lines().map(String::trim).filter(l -> !l.isEmpty()).toList();
    }

    private static List<String> all(String keyword) {
        return instructions.stream()
                .filter(l -> l.toUpperCase().startsWith(keyword + " "))
                .toList();
    }

    @Test
    void buildsWithTheWrapperInOneStageAndRunsOnAJreInAnother() {
        List<String> from = all("FROM");
        assertThat(from).hasSize(2);
        assertThat(from.get(0)).contains("-jdk").contains(" AS build");
        assertThat(from.get(1)).contains("-jre");
        assertThat(from).allSatisfy(f -> assertThat(f).doesNotContain(":latest"));
        assertThat(all("RUN")).anySatisfy(r -> assertThat(r).contains("./mvnw").contains("-pl writer"));
        assertThat(all("COPY"))
                .anySatisfy(c -> assertThat(c).contains("--from=build").contains("shared-lookup-writer.jar"));
    }

    @Test
    void theBuildStageHasEveryModuleTheRootPomLists() throws Exception {
        // Maven refuses a reactor whose listed module directories are missing, even when building only -pl writer.
        String pom = Files.readString(ComposeFile.repoRoot().resolve("pom.xml"));
        String defaultModules = pom.substring(0, pom.indexOf("<profiles>"));
        List<String> modules = java.util.regex.Pattern.compile("<module>([^<]+)</module>")
                .matcher(defaultModules)
                .results()
                .map(m -> m.group(1))
                .toList();
        assertThat(modules).contains("reader-lib", "writer");
        List<String> copies =
                all("COPY").stream().filter(c -> !c.contains("--from=")).toList();
        for (String module : modules) {
            assertThat(copies)
                    .as("COPY of module %s (its directory or its pom.xml)", module)
                    .anySatisfy(c -> assertThat(c).containsAnyOf(module + "/ ", module + "/pom.xml"));
        }
    }

    @Test
    void runsAsANonRootUserWithTheStoreAsAVolume() {
        List<String> user = all("USER");
        assertThat(user).isNotEmpty();
        assertThat(user.get(user.size() - 1)).doesNotContain("root").doesNotMatch("USER\\s+0(:.*)?");
        assertThat(all("VOLUME")).anySatisfy(v -> assertThat(v).contains("/var/lib/shared-lookup"));
    }

    @Test
    void exposesTheHttpPortChecksHealthAndBindsAllInterfacesOnlyInside() {
        assertThat(all("EXPOSE")).anySatisfy(e -> assertThat(e).contains("7070"));
        assertThat(all("HEALTHCHECK"))
                .singleElement()
                .satisfies(h -> assertThat(h).contains("/health"));
        // The image's settings are in its environment, where `docker run IMAGE --http-port 8080` can override them;
        // on the entrypoint they would make that an error (an option given twice).
        assertThat(all("ENTRYPOINT"))
                .singleElement()
                .satisfies(
                        e -> assertThat(e).contains("shared-lookup-writer.jar").doesNotContain("--"));
        assertThat(all("ENV"))
                .anySatisfy(e -> assertThat(e)
                        .contains("SHARED_LOOKUP_HTTP_HOST=0.0.0.0")
                        .contains("SHARED_LOOKUP_STORE_DIR=/var/lib/shared-lookup")
                        .contains("SHARED_LOOKUP_HTTP_PORT=7070"));
        assertThat(all("ENV")).anySatisfy(e -> assertThat(e).contains("-Xmx64m"));
    }

    @Test
    void theHealthCheckAsksHealthOnThePortTheEnvironmentSets() throws Exception {
        String script = healthCheckScript();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        AtomicInteger status = new AtomicInteger(200); // set by the test, read by the server's thread
        server.createContext("/health", exchange -> {
            byte[] body = "ok".getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(status.get(), body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String port = String.valueOf(server.getAddress().getPort());
            assertThat(bash(script, Map.of("SHARED_LOOKUP_HTTP_PORT", port)).exitCode)
                    .isZero();
            status.set(503);
            assertThat(bash(script, Map.of("SHARED_LOOKUP_HTTP_PORT", port)).exitCode)
                    .isNotZero();
        } finally {
            server.stop(0);
        }
    }

    @Test
    void theHealthCheckFallsBackToTheDefaultPortWhereTheWriterDoes() throws Exception {
        // Only the port choice: the script up to its connection, then the port it chose.
        String script = healthCheckScript();
        String choice = script.substring(0, script.indexOf("exec ")) + "echo \"$p\"";
        assertThat(bash(choice, Map.of("SHARED_LOOKUP_HTTP_PORT", "8080")).output)
                .isEqualTo("8080");
        assertThat(bash(choice, Map.of("SHARED_LOOKUP_HTTP_PORT", " 8080 ")).output)
                .as("trimmed, as the writer does")
                .isEqualTo("8080");
        assertThat(bash(choice, Map.of()).output).isEqualTo("7070");
        assertThat(bash(choice, Map.of("SHARED_LOOKUP_HTTP_PORT", "")).output).isEqualTo("7070");
        // Kubernetes' service link for a Service named shared-lookup-http; the writer ignores it (docs/writer.md).
        assertThat(bash(choice, Map.of("SHARED_LOOKUP_HTTP_PORT", "tcp://10.0.0.7:8080")).output)
                .isEqualTo("7070");
    }

    /** The bash script of the HEALTHCHECK's exec form, {@code CMD ["bash", "-c", "<script>"]}, unescaped. */
    private static String healthCheckScript() {
        String check = all("HEALTHCHECK").get(0);
        String prefix = "[\"bash\", \"-c\", \"";
        assertThat(check).contains(prefix).endsWith("\"]");
        String quoted = check.substring(check.indexOf(prefix) + prefix.length(), check.length() - 2);
        return quoted.replace("\\\"", "\"").replace("\\\\", "\\");
    }

    private record Result(int exitCode, String output) {}

    private static Result bash(String script, Map<String, String> environment) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true);
        builder.environment().remove("SHARED_LOOKUP_HTTP_PORT");
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("bash ended").isTrue();
        return new Result(process.exitValue(), output);
    }
}
