package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.ReaderProbe;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reader JVM as users run one: reader-lib and slf4j-api alone on its class path, no JVM flag, and — when the tests
 * run as root — started as an unprivileged user with only read permission on the store (in the writer's group, as
 * docs/reader.md says). It reads, follows a change the writer makes while it runs, cannot write, and prints no
 * warning. On JDK 17 and, where the machine has it, JDK 25.
 */
class ReaderNeedsReadPermissionOnlyTest {
    private Path root;

    @BeforeEach
    void createRoot() throws IOException {
        root = Files.createTempDirectory("reader-permissions");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-x--x"));
    }

    @AfterEach
    void deleteRoot() throws IOException {
        TempTrees.delete(root);
    }

    static List<String> javaHomes() {
        List<String> homes = new ArrayList<>(List.of(System.getProperty("java.home")));
        File[] jvms = new File("/usr/lib/jvm").listFiles((d, n) -> n.startsWith("temurin-25"));
        if (jvms != null
                && jvms.length > 0
                && !System.getProperty("java.version").startsWith("25")) {
            homes.add(jvms[0].getAbsolutePath());
        }
        return homes;
    }

    @ParameterizedTest
    @MethodSource("javaHomes")
    void readerJvm_withReadPermissionAndNoFlags_readsAndFollowsTheWriter(String javaHome) throws Exception {
        Path store = root.resolve("store");
        Path classPath = root.resolve("lib");
        List<String> cp = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String unix = entry.replace('\\', '/');
            Path name = Path.of(entry).getFileName();
            if (unix.endsWith("reader-lib/target/classes")
                    || name.toString().matches("shared-lookup-reader-[^-]+.*\\.jar")
                            && !name.toString().contains("tests")
                    || name.toString().startsWith("slf4j-api-")) {
                cp.add(copyReadable(Path.of(entry), classPath).toString());
            }
        }
        assertThat(cp).as("reader-lib and slf4j-api").hasSize(2);
        // Under a path that matches its package: JDK 22+ runs a source file only from there.
        Path sources = root.resolve("probe");
        Path probe = Files.createDirectories(sources.resolve("io/sharedlookup/testing"))
                .resolve("ReaderProbe.java");
        try (var in = ReaderProbe.class.getResourceAsStream("ReaderProbe.java")) {
            Files.copy(in, probe);
        }
        makeReadable(classPath);
        makeReadable(sources);

        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "Ada", "2", "Grâce"))) {
            List<String> cmd = new ArrayList<>();
            if ("root".equals(System.getProperty("user.name"))) {
                // nobody, in the writer's group (root's here): read permission through the group, nothing else
                cmd.addAll(List.of("setpriv", "--reuid", "65534", "--regid", "0", "--clear-groups"));
            }
            cmd.addAll(List.of(
                    Path.of(javaHome, "bin", "java").toString(),
                    "-Xmx64m",
                    "-cp",
                    String.join(File.pathSeparator, cp),
                    probe.toString(),
                    "follow",
                    store.toString(),
                    "users",
                    "Ada L."));
            Process reader = new ProcessBuilder(cmd).start();
            var stdout = new java.io.BufferedReader(
                    new java.io.InputStreamReader(reader.getInputStream(), StandardCharsets.UTF_8));
            List<String> lines = new ArrayList<>();
            for (String line; (line = stdout.readLine()) != null; ) {
                lines.add(line);
                if (line.equals("READY")) {
                    published.generation.put("1", "Ada L.", TestStores.TIMEOUT);
                }
            }
            String stderr = new String(reader.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(reader.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(reader.exitValue()).as(lines + "\n" + stderr).isZero();
            assertThat(lines)
                    .containsExactly(
                            "GET 1=Ada",
                            "GET 2=Grâce",
                            "GET 3=null",
                            "SIZE=2",
                            "READY",
                            "FOLLOWED 1=Ada L.",
                            "WRITE_DENIED=" + "root".equals(System.getProperty("user.name")));
            assertThat(stderr).as("no warning of any kind").doesNotContainIgnoringCase("warn");
        }
    }

    private static Path copyReadable(Path source, Path dir) throws IOException {
        Path target = dir.resolve(
                source.getFileName().toString().equals("classes")
                        ? "reader-lib-classes"
                        : source.getFileName().toString());
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }

    private static void makeReadable(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.setPosixFilePermissions(
                        f, PosixFilePermissions.fromString(Files.isDirectory(f) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }
}
