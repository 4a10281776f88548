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
 * path, in a JVM without the jdk.compiler module (Druid's images are JRE-only), with Chronicle's flags. Runs after
 * packaging (failsafe), since it needs target/druid-shared-lookup.
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
        assertThat(bundled).noneMatch(n -> n.startsWith("chronicle-analytics"))
                .noneMatch(n -> n.startsWith("druid-") || n.startsWith("jackson-") || n.startsWith("guice")
                        || n.startsWith("guava") || n.startsWith("slf4j"));

        // Druid's class path: everything the tests see except what the extension folder brings.
        String druidClassPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !bundled.contains(Path.of(entry).getFileName().toString()))
                .filter(entry -> !entry.replace('\\', '/').contains("druid-extension/target/classes"))
                .filter(entry -> !entry.replace('\\', '/').contains("reader-lib/target/classes"))
                .filter(entry -> !entry.replace('\\', '/').contains("reader-lib/target/test-classes"))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("shared-lookup-reader-"))
                .collect(Collectors.joining(File.pathSeparator));

        try (TestStores.Published ignored = TestStores.publish(store, "users", Map.of("1", "Ada", "2", "Grace"))) {
            // A JRE without jdk.compiler, some of Druid's own JVM settings, and the documented flag list as it is
            // (its two jdk.compiler flags only draw an "Unknown module" warning there).
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--limit-modules", "java.se,jdk.unsupported,jdk.management,jdk.zipfs",
                    "-XX:+ExitOnOutOfMemoryError", "-Duser.timezone=UTC", "-Dfile.encoding=UTF-8",
                    "-Dchronicle.analytics.disable=true", "-Xmx256m"));
            for (String flag : System.getProperty("sharedlookup.test.jvmFlags", "").trim().split("\\s+")) {
                if (!flag.isEmpty()) {
                    cmd.add(flag);
                }
            }
            cmd.addAll(List.of("-cp", druidClassPath, ExtensionFolderMain.class.getName(),
                    extension.toString(), store.toString(), "users", "1", "2", "3"));
            Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as(output).isZero();
            assertThat(output).as("the documented flags include the two jdk.compiler ones")
                    .contains("Unknown module: jdk.compiler");
            assertThat(output.lines()).as(output).contains(
                    "JDK_COMPILER_PRESENT=false",
                    "READER_LIB_ON_CLASS_PATH=false",
                    "MODULE io.sharedlookup.druid.SharedLookupDruidModule loader=druid-shared-lookup",
                    "APPLY 1=Ada", "APPLY 2=Grace", "APPLY 3=null", "DONE");
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
        Process tar = new ProcessBuilder("tar", "-tzf", tarballs.get(0).toString()).redirectErrorStream(true).start();
        List<String> entries = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines()
                .map(e -> e.endsWith("/") ? e.substring(0, e.length() - 1) : e).toList();
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(String.join("\n", entries)).isZero();
        Set<String> folder;
        try (var files = Files.list(target.resolve("druid-shared-lookup"))) {
            folder = files.map(p -> "druid-shared-lookup/" + p.getFileName()).collect(Collectors.toSet());
        }
        assertThat(folder).isNotEmpty();
        assertThat(entries).allMatch(e -> e.equals("druid-shared-lookup") || e.startsWith("druid-shared-lookup/"));
        assertThat(entries.stream().filter(e -> e.startsWith("druid-shared-lookup/")).collect(Collectors.toSet()))
                .isEqualTo(folder);
    }
}
