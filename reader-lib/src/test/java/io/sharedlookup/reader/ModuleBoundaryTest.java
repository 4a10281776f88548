package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * reader-lib's module descriptor keeps applications on the module path out of {@code io.sharedlookup.internal}: a
 * tiny application module is compiled with the JDK's javac against reader-lib's compiled module (the classes its jar
 * holds) and slf4j-api, once using the public package (it compiles, and runs in a JVM with only the module path) and
 * once importing the internal one (refused).
 */
class ModuleBoundaryTest {
    @TempDir
    Path dir;

    @Test
    void anApplicationModuleCompilesAndRunsAgainstThePublicPackage() throws Exception {
        Compilation result = compileApplication("""
                package app;

                import io.sharedlookup.reader.NamespaceNotFoundException;
                import io.sharedlookup.reader.SharedLookupStore;

                public class Main {
                    public static void main(String[] args) throws Exception {
                        try (SharedLookupStore store = SharedLookupStore.open(java.nio.file.Path.of(args[0]))) {
                            store.lookup("users");
                        } catch (NamespaceNotFoundException expected) {
                            System.out.println("NOT FOUND: " + expected.getMessage());
                        }
                    }
                }
                """);
        assertThat(result.exitCode()).as("javac output:%n%s", result.output()).isZero();

        // And it runs as a module: a JVM with only the module path (reader-lib, slf4j-api, the application).
        Path store = Files.createDirectories(dir.resolve("store"));
        Path log = dir.resolve("app.log");
        Process run = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "--module-path",
                        modulePath() + java.io.File.pathSeparator + dir.resolve("out"),
                        "--module",
                        "app/app.Main",
                        store.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        String output;
        try {
            // Output to a file, so that the bound holds even if the application hangs (a pipe would block first).
            assertThat(run.waitFor(30, TimeUnit.SECONDS))
                    .as("the application JVM exits within 30 s")
                    .isTrue();
        } finally {
            run.destroyForcibly();
            output = Files.readString(log, StandardCharsets.UTF_8);
        }
        assertThat(run.exitValue()).as("exit code; output:%n%s", output).isZero();
        assertThat(output).contains("NOT FOUND: ").contains("users");
    }

    @Test
    void anApplicationModuleCannotUseTheInternalPackage() throws Exception {
        Compilation result = compileApplication("""
                package app;

                import io.sharedlookup.internal.store.Manifest;

                public class Main {
                    public static void main(String[] args) {
                        System.out.println(Manifest.FORMAT_VERSION);
                    }
                }
                """);
        assertThat(result.exitCode()).as("javac output:%n%s", result.output()).isNotZero();
        assertThat(result.output())
                .contains("package io.sharedlookup.internal.store is declared in module "
                        + "io.sharedlookup.reader, which does not export it");
    }

    private record Compilation(int exitCode, String output) {}

    /** Compiles module {@code app} (requires io.sharedlookup.reader) with {@code source} as its class app.Main. */
    private Compilation compileApplication(String source) throws IOException, URISyntaxException {
        Path sources = dir.resolve("src");
        Files.createDirectories(sources.resolve("app"));
        Files.writeString(sources.resolve("module-info.java"), "module app { requires io.sharedlookup.reader; }\n");
        Files.writeString(sources.resolve("app/Main.java"), source);
        // javac through java.util.spi.ToolProvider (java.base): no compile-time dependency on the java.compiler module.
        ToolProvider javac = ToolProvider.findFirst("javac")
                .orElseThrow(() -> new IllegalStateException("this test needs a JDK (javac), not a JRE"));
        StringWriter output = new StringWriter();
        try (PrintWriter out = new PrintWriter(output)) {
            // An explicit, empty class path: in this JVM javac would otherwise take the test's own (java.class.path),
            // where reader-lib's classes sit in the unnamed module.
            Path noClasses = Files.createDirectories(dir.resolve("no-classes"));
            int exitCode = javac.run(
                    out,
                    out,
                    "--release",
                    "17",
                    "--module-path",
                    modulePath(),
                    "--class-path",
                    noClasses.toString(),
                    "-d",
                    dir.resolve("out").toString(),
                    sources.resolve("module-info.java").toString(),
                    sources.resolve("app/Main.java").toString());
            out.flush();
            return new Compilation(exitCode, output.toString());
        }
    }

    /** reader-lib's compiled module and slf4j-api, as a module path. */
    private static String modulePath() throws URISyntaxException {
        return location(SharedLookupStore.class) + java.io.File.pathSeparator + location(Logger.class);
    }

    /** Where a class was loaded from: reader-lib's compiled module (target/classes) or slf4j-api's jar. */
    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
