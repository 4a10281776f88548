package io.sharedlookup.writer.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.WriterMain;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator commands run by a user outside the writer's group: they say that the directory is not readable, and
 * what to do. Before, {@code get}, {@code dump}, {@code verify} and {@code snapshot} said "No namespace 'users'" and
 * {@code inspect} printed a raw {@code AccessDeniedException}. When the tests run as root, the commands run in a JVM of
 * their own as {@code nobody} (root reads anything), with the few class path entries they need copied where nobody can
 * read them.
 */
class StoreToolsPermissionTest {
    private static final boolean ROOT = uid() == 0;

    private Path root;
    private Path store;

    @BeforeEach
    void publish() throws IOException {
        root = Files.createTempDirectory("tools-permissions");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        store = root.resolve("store");
        TestStores.publish(store, "users", Map.of("1", "Ada")).close();
    }

    @AfterEach
    void deleteRoot() throws IOException {
        // opened again first: a failed assertion leaves a directory closed, which would stop the delete
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxr-x---"));
        Files.setPosixFilePermissions(store.resolve("users"), PosixFilePermissions.fromString("rwxr-x---"));
        TempTrees.delete(root);
    }

    private static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @Test
    void anUnreadableStoreOrNamespaceDirectoryIsSaidSoNotTakenForAMissingNamespace() throws Exception {
        // nobody is not in the writer's group (root's): the default 0750 keeps it out of the store directory
        String closed = ROOT ? "rwxr-x---" : "---------";
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString(closed));
        assumeAnotherUserCannotRead(store);
        for (String command : List.of("get", "dump", "verify", "inspect")) {
            List<String> args = new ArrayList<>(List.of(command, store.toString()));
            if (!command.equals("inspect")) {
                args.add("users");
            }
            if (command.equals("get")) {
                args.add("1");
            }
            String[] run = runAsAnotherUser(args);
            assertThat(run[0]).as(command).isEqualTo("2");
            assertThat(run[1])
                    .as(command)
                    .isEqualTo("error: Store directory " + store + " is not readable by this "
                            + "user: run the command as a user in the writer's group (store files and directories are "
                            + "group-readable)\n");
        }

        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(store.resolve("users"), PosixFilePermissions.fromString(closed));
        String[] run = runAsAnotherUser(List.of("get", store.toString(), "users", "1"));
        assertThat(run[0]).isEqualTo("2");
        assertThat(run[1])
                .startsWith("error: Namespace directory " + store.resolve("users") + " is not readable "
                        + "by this user: ");
        // inspect lists it as unreadable: it used to leave it out and say the store had no namespaces
        String[] inspect = runAsAnotherUser(List.of("inspect", store.toString()));
        assertThat(inspect[2])
                .contains("users\n  unreadable   Namespace directory " + store.resolve("users")
                        + " is not readable by this user: ");
        Files.setPosixFilePermissions(store.resolve("users"), PosixFilePermissions.fromString("rwxr-x---"));
    }

    /**
     * Directories open, the manifest not: every command names the manifest and what to do. Before, {@code snapshot}
     * said nothing but the manifest's path, {@code inspect} listed the namespace as unreadable with the same path,
     * and the others printed a raw {@code AccessDeniedException}.
     */
    @Test
    void anUnreadableManifestIsSaidSo() throws Exception {
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(store.resolve("users"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path manifest = store.resolve("users").resolve("manifest.properties");
        Files.setPosixFilePermissions(manifest, PosixFilePermissions.fromString("---------"));
        assumeAnotherUserCannotRead(manifest);
        String said = "Manifest " + manifest + " is not readable by this user: run the command as a user in the "
                + "writer's group (store files and directories are group-readable)";
        for (String command : List.of("get", "dump", "verify", "snapshot")) {
            List<String> args = new ArrayList<>(List.of(command, store.toString(), "users"));
            if (command.equals("get")) {
                args.add("1");
            }
            if (command.equals("snapshot")) {
                args.add(root.resolve("snapshot").toString());
            }
            String[] run = runAsAnotherUser(args);
            assertThat(run[0]).as(command).isEqualTo("2");
            assertThat(run[1]).as(command).endsWith("error: " + said + "\n");
        }
        String[] inspect = runAsAnotherUser(List.of("inspect", store.toString()));
        assertThat(inspect[2]).contains("users\n  unreadable   " + said + "\n");
    }

    private void assumeAnotherUserCannotRead(Path file) {
        if (ROOT) {
            Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "util-linux setpriv is missing");
        } else {
            Assumptions.assumeFalse(Files.isReadable(file), "this user reads what has mode 000");
        }
    }

    /** Exit code, stderr and stdout of the writer jar's command {@code args}, run by a user without access to the store. */
    private String[] runAsAnotherUser(List<String> args) throws Exception {
        if (!ROOT) { // the store is mode 000 here: this user is as good as another one
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int rc = StoreTools.run(args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
            return new String[] {Integer.toString(rc), err.toString(), out.toString()};
        }
        List<String> command = new ArrayList<>(List.of(
                "setpriv",
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                readableClassPath(),
                WriterMain.class.getName()));
        command.addAll(args);
        Path errFile = root.resolve("tool.err");
        Path outFile = root.resolve("tool.out");
        Process tool = new ProcessBuilder(command)
                .redirectOutput(outFile.toFile())
                .redirectError(errFile.toFile())
                .start();
        if (!tool.waitFor(60, TimeUnit.SECONDS)) {
            tool.destroyForcibly();
            throw new AssertionError("the command did not end within 60 s: " + command);
        }
        return new String[] {
            Integer.toString(tool.exitValue()),
            Files.readString(errFile, StandardCharsets.UTF_8),
            Files.readString(outFile, StandardCharsets.UTF_8)
        };
    }

    /** The writer's and reader-lib's classes, picocli and slf4j-api: all the operator commands load. */
    private String readableClassPath() throws IOException {
        Path lib = Files.createDirectories(root.resolve("lib"));
        List<String> cp = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path source = Path.of(entry);
            String unix = entry.replace('\\', '/');
            String name = source.getFileName().toString();
            if (unix.endsWith("writer/target/classes")
                    || unix.endsWith("reader-lib/target/classes")
                    || name.matches("shared-lookup-reader-[^-]+.*\\.jar") && !name.contains("tests")
                    || name.startsWith("picocli-")
                    || name.startsWith("slf4j-api-")) {
                Path target = lib.resolve(cp.size() + "-" + name);
                copy(source, target);
                cp.add(target.toString());
            }
        }
        assertThat(cp).as("writer, reader-lib, picocli, slf4j-api").hasSize(4);
        return String.join(File.pathSeparator, cp);
    }

    private static void copy(Path source, Path target) throws IOException {
        try (Stream<Path> files = Files.walk(source)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
                } else {
                    Files.createDirectories(to.getParent());
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
    }
}
