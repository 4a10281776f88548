package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TestStores;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged extension folder works the way Druid uses it: loaded by its own class loader on top of Druid's class
 * path, in a JVM without the jdk.compiler module (Druid's images are JRE-only) and without any JVM flag of ours. It
 * holds the extension jar and reader-lib, nothing else. Runs after packaging (failsafe), since it needs
 * target/druid-shared-lookup.
 */
class ExtensionFolderIT {
    @TempDir
    Path store;

    @Test
    void theExtensionFolderResolvesLookupsInItsOwnClassLoaderOnAJre() throws Exception {
        Path extension = Path.of("target", "druid-shared-lookup").toAbsolutePath();
        assertThat(extension).isDirectory();
        Set<String> bundled;
        try (var files = Files.list(extension)) {
            bundled = files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
        assertThat(bundled)
                .hasSize(2)
                .anyMatch(n -> n.matches("shared-lookup-druid-extension-.+\\.jar"))
                .anyMatch(n -> n.matches("shared-lookup-reader-.+\\.jar"));

        // Druid's class path: everything the tests see except what the extension folder brings, and except the
        // writer's store code and Chronicle Map, which only the tests use to write the store.
        String druidClassPath = java.util.Arrays.stream(
                        System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !bundled.contains(Path.of(entry).getFileName().toString()))
                .filter(entry -> !entry.replace('\\', '/').contains("/net/openhft/"))
                .filter(entry -> !entry.replace('\\', '/').contains("/writer/target/"))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("shared-lookup-writer-"))
                .filter(entry -> !entry.replace('\\', '/').contains("druid-extension/target/classes"))
                .filter(entry -> !entry.replace('\\', '/').contains("reader-lib/target/classes"))
                .filter(entry -> !entry.replace('\\', '/').contains("reader-lib/target/test-classes"))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("shared-lookup-reader-"))
                .collect(Collectors.joining(File.pathSeparator));

        try (TestStores.Published ignored = TestStores.publish(store, "users", Map.of("1", "Ada", "2", "Grace"))) {
            // A JRE without jdk.compiler and some of Druid's own JVM settings; no flag of ours.
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--limit-modules",
                    "java.se,jdk.unsupported,jdk.management,jdk.zipfs",
                    "-XX:+ExitOnOutOfMemoryError",
                    "-Duser.timezone=UTC",
                    "-Dfile.encoding=UTF-8",
                    "-Xmx256m"));
            cmd.addAll(List.of(
                    "-cp",
                    druidClassPath,
                    ExtensionFolderMain.class.getName(),
                    extension.toString(),
                    store.toString(),
                    "users",
                    "1",
                    "2",
                    "3"));
            Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as(output).isZero();
            assertThat(output).as("nothing of Chronicle Map in a reader").doesNotContainIgnoringCase("chronicle");
            assertThat(output.lines())
                    .as(output)
                    .contains(
                            "JDK_COMPILER_PRESENT=false",
                            "READER_LIB_ON_CLASS_PATH=false",
                            "MODULE io.sharedlookup.druid.SharedLookupDruidModule loader=druid-shared-lookup",
                            "APPLY 1=Ada",
                            "APPLY 2=Grace",
                            "APPLY 3=null",
                            "DONE");
        }
    }

    @Test
    void theTarballHoldsExactlyTheExtensionFolder() throws Exception {
        Path target = Path.of("target").toAbsolutePath();
        List<Path> tarballs;
        try (var files = Files.list(target)) {
            tarballs = files.filter(p -> p.getFileName().toString().matches("druid-shared-lookup-.+\\.tar\\.gz"))
                    .toList();
        }
        assertThat(tarballs).hasSize(1);
        Process tar = new ProcessBuilder("tar", "-tzf", tarballs.get(0).toString())
                .redirectErrorStream(true)
                .start();
        List<String> entries = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines()
                .map(e -> e.endsWith("/") ? e.substring(0, e.length() - 1) : e)
                .toList();
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(String.join("\n", entries)).isZero();
        Set<String> folder;
        try (var files = Files.list(target.resolve("druid-shared-lookup"))) {
            folder = files.map(p -> "druid-shared-lookup/" + p.getFileName()).collect(Collectors.toSet());
        }
        assertThat(folder).isNotEmpty();
        assertThat(entries).allMatch(e -> e.equals("druid-shared-lookup") || e.startsWith("druid-shared-lookup/"));
        assertThat(entries.stream()
                        .filter(e -> e.startsWith("druid-shared-lookup/"))
                        .collect(Collectors.toSet()))
                .isEqualTo(folder);
    }
}
