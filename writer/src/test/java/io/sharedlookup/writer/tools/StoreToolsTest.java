package io.sharedlookup.writer.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.liveness.WriterHeartbeat;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The writer jar's operator commands against real stores (written through the writer's own store code). */
class StoreToolsTest {
    private static final Map<String, String> USERS =
            Map.of("1", "Ada", "2", "Grace", "tab\tkey", "line\nbreak", "ü-ключ", "名前 ✓");

    @TempDir
    Path store;

    /** One command's exit code and output. */
    record Run(int rc, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = StoreTools.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(rc, out.toString(), err.toString());
    }

    private static long digest(Map<String, String> content) {
        long sum = 0;
        for (Map.Entry<String, String> e : content.entrySet()) {
            sum += ContentDigest.of(e.getKey(), e.getValue());
        }
        return sum;
    }

    /** Each command's {@code -V}, which its usage line offers, prints the jar's version (it printed nothing). */
    @Test
    void everyCommandsVersionOptionPrintsTheJarsVersion() {
        for (String command : StoreTools.COMMANDS) {
            Run r = run(command, "--version");
            assertThat(r.rc()).as(command).isZero();
            assertThat(r.out()).as(command).startsWith("shared-lookup-writer ");
        }
    }

    @Test
    void inspect_listsEachNamespaceWithGenerationEntriesOffsetsAndDigest() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            Run r = run("inspect", store.toString());
            assertThat(r.rc()).isZero();
            assertThat(r.out())
                    .contains(
                            "users",
                            "generation   1 (g0000000001.cmap",
                            "entries      4 of capacity",
                            "digest " + ContentDigest.hex(digest(USERS)),
                            "writer       open");
        }
    }

    /** Item 3 of issue 38: inspect says whether the writer is alive and how fresh the namespace is. */
    @Test
    void inspect_printsTheWritersLivenessAndFreshness() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            assertThat(run("inspect", store.toString()).out()).contains("freshness    writer UNKNOWN");
            WriterHeartbeat heartbeat =
                    WriterHeartbeat.start(new StoreLayout(store), List.of("users"), StorePermissions.DEFAULT, Map::of);
            try {
                assertThat(run("inspect", store.toString()).out())
                        .contains(
                                "freshness    writer ALIVE, last seen " + "alive ",
                                ", content current as of 20",
                                ", lag unknown");
            } finally {
                heartbeat.close();
            }
            assertThat(run("inspect", store.toString()).out()).contains("freshness    writer NOT_ALIVE");
        }
    }

    @Test
    void get_printsTheValueOrSaysItIsAbsent() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            assertThat(run("get", store.toString(), "users", "ü-ключ")).isEqualTo(new Run(0, "名前 ✓\n", ""));
            Run absent = run("get", store.toString(), "users", "nobody");
            assertThat(absent.rc()).isEqualTo(1);
            assertThat(absent.err()).contains("'nobody' is not in namespace 'users'");
        }
    }

    @Test
    void dump_writesEveryEntryAsEscapedTsv() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            Run r = run("dump", store.toString(), "users");
            assertThat(r.rc()).isZero();
            assertThat(r.out().split("\n"))
                    .containsExactlyInAnyOrder("1\tAda", "2\tGrace", "tab\\tkey\tline\\nbreak", "ü-ключ\t名前 ✓");
        }
    }

    @Test
    void verify_matchesThePublishedDigest_andFindsAFileChangedBehindTheWritersBack() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            Run ok = run("verify", store.toString(), "users");
            assertThat(ok.rc()).as(ok.err()).isZero();
            assertThat(ok.out()).contains("ok: namespace 'users' digest " + ContentDigest.hex(digest(USERS)));
            // A change the manifest's digest does not account for (here: the digest itself altered).
            Path manifest = new StoreLayout(store).manifest("users");
            Files.writeString(
                    manifest,
                    Files.readString(manifest)
                            .replace(ContentDigest.hex(digest(USERS)), ContentDigest.hex(digest(USERS) + 1)));
            Run differs = run("verify", store.toString(), "users");
            assertThat(differs.rc()).isEqualTo(1);
            assertThat(differs.err()).contains("DIFFERS", "computed " + ContentDigest.hex(digest(USERS)));
        }
    }

    @Test
    void diff_listsTheKeysThatDifferBetweenTwoStores(@TempDir Path other) throws Exception {
        Map<String, String> changed = new LinkedHashMap<>(USERS);
        changed.put("2", "Grace Hopper");
        changed.remove("1");
        changed.put("3", "Linus");
        try (TestStores.Published a = TestStores.publish(store, "users", USERS);
                TestStores.Published b = TestStores.publish(other, "users", changed)) {
            Run r = run("diff", store.toString(), other.toString(), "users");
            assertThat(r.rc()).isEqualTo(1);
            assertThat(r.out().split("\n"))
                    .containsExactlyInAnyOrder(
                            "1\tAda\t\tonly-in-a", "2\tGrace\tGrace Hopper\tdiffers", "3\t\tLinus\tonly-in-b");
            assertThat(r.err()).contains("3 key(s) differ");
            assertThat(run("diff", store.toString(), store.toString(), "users").rc())
                    .isZero();
        }
    }

    @Test
    void snapshot_writesAClosedOneNamespaceStoreWithTheDigestOfItsEntries(@TempDir Path out) throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            Run r = run(
                    "snapshot", store.toString(), "users", out.resolve("snap").toString());
            assertThat(r.rc()).as(r.err()).isZero();
            assertThat(r.out())
                    .contains("snapshot of 'users': 4 entries", ContentDigest.hex(digest(USERS)))
                    .contains("with --seed " + out.resolve("snap") + "\n");
            assertThat(TestStores.contents(out.resolve("snap"), "users")).isEqualTo(new java.util.TreeMap<>(USERS));
            Run again = run(
                    "snapshot", store.toString(), "users", out.resolve("snap").toString());
            assertThat(again.rc()).isEqualTo(2);
            assertThat(again.err()).contains("is not empty").hasLineCount(1);
        }
    }

    @Test
    void badArgumentsGetOneLineAndExitCode2() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", USERS)) {
            Run missingStore = run("inspect", store.resolve("nope").toString());
            assertThat(missingStore.rc()).isEqualTo(2);
            assertThat(missingStore.err())
                    .startsWith("error: Store directory")
                    .contains("--store-dir")
                    .hasLineCount(1);
            Run badName = run("dump", store.toString(), "../etc");
            assertThat(badName.rc()).isEqualTo(2);
            assertThat(badName.err()).contains("is not a namespace name").hasLineCount(1);
            Run unknownNs = run("get", store.toString(), "items", "1");
            assertThat(unknownNs.rc()).isEqualTo(2);
            assertThat(unknownNs.err())
                    .contains("No namespace 'items'", "inspect")
                    .hasLineCount(1);
            Run missingArg = run("get", store.toString(), "users");
            assertThat(missingArg.rc()).isEqualTo(2);
            assertThat(missingArg.err())
                    .contains("Missing required parameter", "--help")
                    .hasLineCount(1);
        }
    }

    /** An I/O failure in one line with its kind: these exceptions' own messages are nothing but a path. */
    @Test
    void anIoFailureIsDescribedWithItsKindNotJustAPath() {
        assertThat(StoreTools.describe(new AccessDeniedException("/backup/users")))
                .isEqualTo("/backup/users: permission denied");
        assertThat(StoreTools.describe(new NoSuchFileException("/backup")))
                .isEqualTo("/backup: no such file or directory");
        assertThat(StoreTools.describe(new DirectoryNotEmptyException("/backup/users")))
                .isEqualTo("/backup/users: directory not empty");
        assertThat(StoreTools.describe(new NotDirectoryException("/backup"))).isEqualTo("/backup: not a directory");
        assertThat(StoreTools.describe(new FileSystemException("/backup", null, "Read-only file system")))
                .isEqualTo("/backup: Read-only file system");
        assertThat(StoreTools.describe(
                        new IOException("Snapshot directory /backup is not empty: pass a new " + "directory")))
                .isEqualTo("Snapshot directory /backup is not empty: pass a new directory");
    }
}
