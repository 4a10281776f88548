package io.sharedlookup.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.NamespaceNotFoundException;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.Contents;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.WriterProcess;
import io.sharedlookup.writer.CapturedLog;
import io.sharedlookup.writer.WriterMain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scenario f: a catalogue of bad input, on the Kafka side (records) and on the store side (files, directories). Each
 * case must end in a clear error or a counted skip, and never cost other data.
 */
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class BadInputTest {
    private static final long SEED = 0xF6L;

    @RegisterExtension
    static final TestKafka broker = Suite.broker();

    private static int cases;

    @RegisterExtension
    static final Suite.FailedTests failed = new Suite.FailedTests();

    @AfterAll
    static void stop() {
        Suite.figures(
                "f-bad-input",
                "bad input catalogue (records, files, directories)",
                SEED,
                cases,
                failed.count(),
                -1,
                -1,
                "each case asserted: counted skip or a clear error, other keys intact");
    }

    private static Map<String, String> deleteTopic() {
        // Delete policy: compacted topics reject null keys (the whole batch).
        return Map.of("cleanup.policy", "delete", "max.message.bytes", Integer.toString(16 << 20));
    }

    private static String ns(String topic) {
        return "{namespace=\"" + topic + "\"}";
    }

    private static void sendGood(String topic, Map<String, String> expected, String prefix) {
        for (int i = 0; i < 100; i++) {
            broker.send(topic, prefix + i, "good-" + i);
            expected.put(prefix + i, "good-" + i);
        }
    }

    @Test
    void badRecordsAreCountedAndSkippedAndOddKeysAreStoredAsIs() throws Exception {
        String topic = "bad";
        broker.createTopic(topic, 1, deleteTopic());
        Map<String, String> expected = new HashMap<>();
        sendGood(topic, expected, "g");
        broker.send(topic, "huge", "small");
        broker.send(topic, "badutf-key", "kept");
        expected.put("huge", "small");
        expected.put("badutf-key", "kept");
        // Counted skips.
        broker.send(topic, (byte[]) null, "value of a null key".getBytes(StandardCharsets.UTF_8));
        broker.send(topic, "badutf-key".getBytes(StandardCharsets.UTF_8), new byte[] {'x', (byte) 0xC3, (byte) 0x28});
        broker.send(topic, new byte[] {(byte) 0xFF, (byte) 0xFE}, "v".getBytes(StandardCharsets.UTF_8));
        byte[] tenMb = new byte[10 << 20];
        Arrays.fill(tenMb, (byte) 'x');
        broker.send(topic, "huge".getBytes(StandardCharsets.UTF_8), tenMb);
        // Applied: a tombstone for a key that never existed, an empty value, keys that look like paths or carry NUL.
        broker.send(topic, "never-existed", null);
        broker.send(topic, "empty", "");
        expected.put("empty", "");
        String tenKb = "k".repeat(10 * 1024);
        for (String odd : List.of("a/b", "..", "../../etc/passwd", "nul\u0000key", tenKb, "ünï©ødé ☃")) {
            broker.send(topic, odd, "odd:" + odd.length());
            expected.put(odd, "odd:" + odd.length());
        }
        sendGood(topic, expected, "h");
        broker.flush();
        Path store = Stores.temp("bad-");
        try (WriterProcess w = Children.writer("f-writer", broker.bootstrap(), store, topic)) {
            w.awaitReady(Duration.ofSeconds(120));
            AtomicReference<String> diff = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> {
                        diff.set(Contents.diff(Stores.dump(store, topic), expected));
                        return diff.get() == null;
                    });
            assertThat(w.metric("sharedlookup_writer_null_keys_total" + ns(topic)))
                    .isEqualTo(1.0);
            assertThat(w.metric("sharedlookup_writer_decode_errors_total" + ns(topic)))
                    .isEqualTo(2.0);
            assertThat(w.metric("sharedlookup_writer_oversize_skips_total" + ns(topic)))
                    .isEqualTo(1.0);
            assertThat(w.metric("sharedlookup_writer_tombstones_total" + ns(topic)))
                    .isEqualTo(1.0);
            assertThat(w.jvm.lines()).anyMatch(l -> l.contains("WARN") && l.contains(topic));
            // The HTTP lookup of an odd key answers the stored value, the URL-escaped '/' included.
            assertThat(w.get("/lookup/" + topic + "/a%2Fb").body()).isEqualTo("odd:3");
            assertThat(w.get("/lookup/" + topic + "/..").body()).isEqualTo("odd:2");
            assertThat(w.jvm.terminate(Duration.ofSeconds(15)))
                    .as("exit code after SIGTERM")
                    .isIn(0, 143);
        }
        cases += 10;
        storeSideCases(store, topic, expected);
    }

    @Test
    void malformedJsonWithValueFieldIsCountedNotFatal() throws Exception {
        String topic = "json";
        broker.createTopic(topic, 1, deleteTopic());
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            broker.send(topic, "j" + i, "{\"name\":\"n" + i + "\",\"x\":1}");
            expected.put("j" + i, "n" + i);
        }
        broker.send(topic, "j1", "{not json");
        broker.send(topic, "j2", "{\"other\":\"no name field\"}");
        broker.send(topic, "j3", "[1,2");
        broker.send(topic, "j4", "{\"name\":{\"first\":\"a\"}}");
        expected.put("j4", "{\"first\":\"a\"}");
        broker.flush();
        Path store = Stores.temp("json-");
        try (WriterProcess w =
                Children.writer("f-json-writer", broker.bootstrap(), store, topic, "--value-field", "name")) {
            w.awaitReady(Duration.ofSeconds(120));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Contents.diff(Stores.dump(store, topic), expected) == null);
            assertThat(w.metric("sharedlookup_writer_decode_errors_total" + ns(topic)))
                    .isEqualTo(3.0);
        }
        cases++;
    }

    /** Store-side damage, tried on copies of a cleanly closed store so that each case starts from good files. */
    private static void storeSideCases(Path store, String topic, Map<String, String> expected) throws Exception {
        // Missing directory.
        assertThatThrownBy(() -> SharedLookupStore.open(store.resolve("missing")))
                .isInstanceOf(SharedLookupException.class)
                .hasMessageContaining("does not exist");
        // Wrong or malicious namespace names.
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            assertThatThrownBy(() -> s.lookup("nope"))
                    .isInstanceOf(NamespaceNotFoundException.class)
                    .hasMessageContaining("No namespace 'nope'");
            for (String bad : List.of("..", "../" + topic, "a/b", "", ".")) {
                assertThatThrownBy(() -> s.lookup(bad))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("Invalid namespace name");
            }
            assertThat(s.lookup(topic).get("g1")).isEqualTo("good-1");
        }
        // Unknown format version.
        Path v3 = copy(store);
        Path manifest = v3.resolve(topic).resolve("manifest.properties");
        Files.writeString(manifest, Files.readString(manifest).replace("format.version=2", "format.version=3"));
        try (SharedLookupStore s = SharedLookupStore.open(v3)) {
            assertThatThrownBy(() -> s.lookup(topic)).hasMessageContaining("Unsupported store format version 3");
        }
        // Corrupt and truncated generation files.
        for (String damage : List.of("corrupt", "truncated")) {
            Path copy = copy(store);
            Path gen = generation(copy, topic);
            if (damage.equals("corrupt")) {
                try (var ch = Files.newByteChannel(gen, StandardOpenOption.WRITE)) {
                    ch.write(java.nio.ByteBuffer.wrap(new byte[4096]));
                }
            } else {
                try (var ch = Files.newByteChannel(gen, StandardOpenOption.WRITE)) {
                    ch.truncate(100);
                }
            }
            long t0 = System.nanoTime();
            try (SharedLookupStore s = SharedLookupStore.open(copy)) {
                assertThatThrownBy(() -> s.lookup(topic)).as(damage).hasMessageContaining("corrupt or truncated");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - t0))
                    .as("refused at once, not after Chronicle's 60 s")
                    .isLessThan(Duration.ofSeconds(10));
        }
        // A reader serving a generation keeps serving it when a corrupt newer one is published.
        Path live = copy(store);
        try (SharedLookupStore s = SharedLookupStore.open(live);
                CapturedLog log = CapturedLog.named("io.sharedlookup.reader.LiveLookup")) {
            Lookup lookup = s.lookup(topic);
            long generation = lookup.generation();
            Path dir = live.resolve(topic);
            String next = String.format("g%010d.cmap", generation + 1);
            Files.write(dir.resolve(next), new byte[8192]);
            Properties p = new Properties();
            try (var in = Files.newBufferedReader(dir.resolve("manifest.properties"))) {
                p.load(in);
            }
            p.setProperty("generation", Long.toString(generation + 1));
            p.setProperty("data.file", next);
            p.setProperty("content.version", Long.toString(Long.parseLong(p.getProperty("content.version")) + 1));
            Path tmp = dir.resolve("manifest.properties.tmp-test");
            try (var out = Files.newBufferedWriter(tmp)) {
                p.store(out, null);
            }
            Files.move(tmp, dir.resolve("manifest.properties"), StandardCopyOption.ATOMIC_MOVE);
            // The reader tried the corrupt generation, and the old one keeps answering, every key of it.
            await().atMost(Duration.ofSeconds(10))
                    .until(() ->
                            log.warnings().stream().anyMatch(m -> m.contains("cannot follow") && m.contains(next)));
            await().during(Duration.ofMillis(300))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> "good-7".equals(lookup.get("g7")) && lookup.generation() == generation);
            Map<String, String> served = new HashMap<>();
            lookup.forEach(served::put);
            assertThat(Contents.diff(served, expected)).isNull();
        }
        // The writer, restarted on a store whose live generation is corrupt, rebuilds from the topic.
        Path corrupt = copy(store);
        try (var ch = Files.newByteChannel(generation(corrupt, topic), StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[4096]));
        }
        try (WriterProcess w = Children.writer("f-writer-corrupt", broker.bootstrap(), corrupt, topic)) {
            w.awaitReady(Duration.ofSeconds(120));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Contents.diff(Stores.dump(corrupt, topic), expected) == null);
            assertThat(w.metric("sharedlookup_writer_rebuilds_total" + ns(topic)))
                    .isEqualTo(1.0);
        }
        // An unwritable store directory: a clear error and exit code 2. As root, permissions do not stop writes, so
        // a regular file stands where the directory should be.
        Path unwritable;
        if ("root".equals(System.getProperty("user.name"))) {
            Path file = Files.createFile(Stores.temp("rofile-").resolve("not-a-dir"));
            unwritable = file.resolve("store");
        } else {
            unwritable = Stores.temp("ro-");
            Files.setPosixFilePermissions(
                    unwritable, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        }
        ChildJvm ro = Children.start(
                "f-writer-readonly",
                WriterMain.class,
                "--bootstrap-servers",
                broker.bootstrap(),
                "--store-dir",
                unwritable.toString(),
                "--topic",
                topic,
                "--http-port",
                "0");
        try {
            assertThat(ro.waitFor()).isEqualTo(2);
            assertThat(ro.lines()).anyMatch(l -> l.contains("store directory") || l.contains("Store directory"));
        } finally {
            Children.close(ro);
        }
        cases += 9;
    }

    private static Path generation(Path store, String topic) throws Exception {
        try (Stream<Path> files = Files.list(store.resolve(topic))) {
            return files.filter(f -> f.getFileName().toString().matches("g\\d{10}\\.cmap"))
                    .max(Path::compareTo)
                    .orElseThrow();
        }
    }

    private static Path copy(Path store) throws Exception {
        Path target = Stores.temp("copy-");
        try (Stream<Path> files = Files.walk(store)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().equals("writer.lock")) {
                    continue;
                }
                Path t = target.resolve(store.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(f, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }
}
