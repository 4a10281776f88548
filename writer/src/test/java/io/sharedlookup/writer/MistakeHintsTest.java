package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 40 item 2: an operator's mistake is answered with how to fix it, in one line. */
class MistakeHintsTest {
    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = WriterMain.run(
                args,
                Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aMistypedOptionNamesTheNearestOne() {
        Run kafkaSpelling = run("--bootstrap-server", "k:1", "--store-dir", tmp.toString(), "--topic", "t");
        assertThat(kafkaSpelling.exit()).isEqualTo(2);
        assertThat(kafkaSpelling.err().strip())
                .startsWith("error: Unknown option or argument [--bootstrap-server")
                .contains("(did you mean --bootstrap-servers?): run with --help to list the options")
                .doesNotContain("\n");
        Run swapped =
                run("--bootstrap-servers", "k:1", "--store-dir", tmp.toString(), "--topic", "t", "--value-feild=name");
        assertThat(swapped.exit()).isEqualTo(2);
        assertThat(swapped.err().strip())
                .isEqualTo("error: Unknown option or argument [--value-feild=name] (did you "
                        + "mean --value-field?): run with --help to list the options");
        assertThat(run("--bogus").err().strip())
                .as("nothing near: no guess")
                .isEqualTo("error: Unknown option or argument [--bogus]: run with --help to list the options");
    }

    @Test
    void aMistypedConfigKeyNamesTheNearestOneAndHowKeysAreSpelled() throws Exception {
        Map<String, String> expected = Map.of(
                "topics=users",
                        "error: Unknown setting 'topics' in the --config file: did you mean topic=...? (keys "
                                + "are the options without their leading --: topic for --topic)",
                "value_field=name",
                        "error: Unknown setting 'value_field' in the --config file: did you mean "
                                + "value-field=...? (keys are the options without their leading --: value-field for "
                                + "--value-field)",
                "--store-dir=/x",
                        "error: Unknown setting '--store-dir' in the --config file: did you mean "
                                + "store-dir=...? (keys are the options without their leading --: store-dir for --store-dir)",
                "colour=blue",
                        "error: Unknown setting 'colour' in the --config file: keys are the options without "
                                + "their leading --, e.g. bootstrap-servers=... for --bootstrap-servers (see --help for the "
                                + "list)");
        for (var e : expected.entrySet()) {
            Path file = Files.writeString(tmp.resolve("writer.properties"), e.getKey() + "\n");
            Run r = run(
                    "--config",
                    file.toString(),
                    "--bootstrap-servers",
                    "k:1",
                    "--store-dir",
                    tmp.toString(),
                    "--topic",
                    "t");
            assertThat(r.exit()).as(e.getKey()).isEqualTo(2);
            assertThat(r.err().strip()).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    @Test
    void aNamespaceDirectoryGivenAsTheStoreNamesTheStore() throws Exception {
        Path store = Files.createDirectory(tmp.resolve("store"));
        Path users = Files.createDirectory(store.resolve("users"));
        Files.writeString(users.resolve("manifest.properties"), "format.version=2\n");
        String advice = users + " is namespace 'users' of store " + store + ": use " + store;

        Run writer = run("--bootstrap-servers", "k:1", "--store-dir", users.toString(), "--topic", "users");
        assertThat(writer.exit()).isEqualTo(2);
        assertThat(writer.err().strip()).isEqualTo("error: " + advice + " as --store-dir");

        Run inspect = run("inspect", users.toString());
        assertThat(inspect.exit()).isEqualTo(2);
        assertThat(inspect.err().strip()).isEqualTo("error: " + advice);
        assertThat(inspect.out()).doesNotContain("No namespaces");

        assertThatThrownBy(() -> SharedLookupStore.open(users))
                .isInstanceOf(SharedLookupException.class)
                .hasMessage(advice);
        try (SharedLookupStore right = SharedLookupStore.open(store)) {
            assertThat(right.directory()).isEqualTo(store.toAbsolutePath().normalize());
        }
    }
}
