package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 40 item 5: {@code --lookup NAMESPACE=TOPIC[:FIELD]} from the command line, the environment and the config
 * file, and its mistakes, each one line with the fix. (The fan-out itself: {@link OneTopicManyLookupsTest}.)
 */
class LookupOptionsTest {
    @TempDir
    Path tmp;

    private WriterConfig parse(Map<String, String> env, String... args) {
        return (WriterConfig) WriterMain.parse(args, env, new PrintStream(new ByteArrayOutputStream()));
    }

    /** Runs the command line; returns stderr. */
    private static String error(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = WriterMain.run(
                args,
                Map.of(),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void lookupsOfOneTopicEachNameTheirField() {
        WriterConfig c = parse(
                Map.of(),
                "--bootstrap-servers",
                "k:9092",
                "--store-dir",
                tmp.toString(),
                "--lookup",
                "users_name=users:name.display",
                "--lookup",
                "users_country=users:address.country",
                "--lookup",
                "users_raw=users",
                "--topic",
                "items=item_names");
        assertThat(c.topics())
                .containsExactlyInAnyOrder(
                        TopicBinding.lookup("users", "users_name", Optional.of("name.display")),
                        TopicBinding.lookup("users", "users_country", Optional.of("address.country")),
                        TopicBinding.lookup("users", "users_raw", Optional.empty()),
                        new TopicBinding("items", "item_names", Optional.empty()));
    }

    @Test
    void aLookupWithoutFieldStoresTheValueFieldOption() {
        WriterConfig c = parse(
                Map.of(),
                "--bootstrap-servers",
                "k:9092",
                "--store-dir",
                tmp.toString(),
                "--lookup",
                "a=users",
                "--lookup",
                "b=users:tier",
                "--value-field",
                "name");
        assertThat(c.topics())
                .containsExactly(
                        TopicBinding.lookup("users", "a", Optional.of("name")),
                        TopicBinding.lookup("users", "b", Optional.of("tier")));
    }

    @Test
    void environmentAndConfigFileTakeCommaLists() throws Exception {
        WriterConfig fromEnv = parse(
                Map.of("SHARED_LOOKUP_LOOKUP", "n=users:name.display,c=users:address.country"),
                "--bootstrap-servers",
                "k:9092",
                "--store-dir",
                tmp.toString());
        assertThat(fromEnv.topics())
                .containsExactly(
                        TopicBinding.lookup("users", "n", Optional.of("name.display")),
                        TopicBinding.lookup("users", "c", Optional.of("address.country")));

        Path file = Files.writeString(
                tmp.resolve("writer.properties"),
                "bootstrap-servers=k:9092\nlookup=n=users:name.display,t=users:tier\n");
        WriterConfig fromFile = parse(Map.of(), "--config", file.toString(), "--store-dir", tmp.toString());
        assertThat(fromFile.topics())
                .containsExactly(
                        TopicBinding.lookup("users", "n", Optional.of("name.display")),
                        TopicBinding.lookup("users", "t", Optional.of("tier")));
    }

    @Test
    void mistakesAreOneLineNamingTheFix() {
        String[] base = {"--bootstrap-servers", "k:9092", "--store-dir", tmp.toString()};
        assertThat(error(concat(base, "--lookup", "x=users:name", "--lookup", "x=users:tier")))
                .isEqualTo(
                        "error: Namespace 'x' is given twice (--lookup x=users:name and --lookup x=users:tier): give each "
                                + "lookup its own namespace\n");
        assertThat(error(concat(base, "--topic", "users", "--lookup", "users=items:name")))
                .isEqualTo(
                        "error: Namespace 'users' is given twice (--topic users=users and --lookup users=items:name): give "
                                + "each lookup its own namespace\n");
        assertThat(error(concat(base, "--lookup", "users:name")))
                .isEqualTo("error: Invalid --lookup users:name: use NAMESPACE=TOPIC[:FIELD], e.g. --lookup "
                        + "users_name=users:name.display\n");
        assertThat(error(concat(base, "--lookup", "a/b=users:name")))
                .isEqualTo("error: Invalid namespace 'a/b' in --lookup a/b=users:name: use 1 to 200 characters from "
                        + "[A-Za-z0-9._-], not '.' or '..', before the '='\n");
        assertThat(error(concat(base, "--lookup", "n=us ers:name")))
                .isEqualTo(
                        "error: Invalid topic 'us ers' in --lookup n=us ers:name: use NAMESPACE=TOPIC[:FIELD] with a topic "
                                + "of 1 to 249 characters from [A-Za-z0-9._-]\n");
        assertThat(error(concat(base, "--lookup", "n=users:name..display")))
                .isEqualTo(
                        "error: Invalid field 'name..display' in --lookup n=users:name..display: use a dotted path of field "
                                + "names after the topic, e.g. users:name.display, or no ':' for the whole value\n");
        assertThat(error(concat(base, "--lookup", "n=users:"))).startsWith("error: Invalid field '' in --lookup");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
