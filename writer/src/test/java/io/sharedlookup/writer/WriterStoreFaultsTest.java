package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestKafka;
import io.sharedlookup.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store directory in states the writer did not leave it in: an old generation that cannot be deleted, a manifest
 * that is empty or garbage, links and world-writable directories planted in it. A real writer against a real broker.
 */
class WriterStoreFaultsTest {
    @RegisterExtension
    static final TestKafka kafka = new TestKafka();

    private static WriterConfig config(Path store, String... topics) {
        List<TopicBinding> bindings =
                java.util.Arrays.stream(topics).map(t -> new TopicBinding(t, t)).toList();
        return WriterConfig.builder(kafka.bootstrap(), store)
                .topics(bindings)
                .httpPort(0)
                .build();
    }

    private static WriterApp start(WriterConfig config) throws Exception {
        return WriterApp.start(config, new PrintStream(new ByteArrayOutputStream()));
    }

    private static void awaitReady(WriterApp app) {
        await("writer ready")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> Http.get(app.httpPort(), "/ready").statusCode() == 200);
    }

    private static void put(Map<String, String> expected, String topic, String key, String value) {
        kafka.send(topic, key, value);
        expected.put(key, value);
    }

    private static double metric(WriterApp app, String name, String namespace) throws Exception {
        return Http.metric(Http.get(app.httpPort(), "/metrics").body(), name + "{namespace=\"" + namespace + "\"}");
    }

    private static void awaitContent(Path store, String namespace, Map<String, String> expected) {
        await(namespace + " as readers see it")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> TestStores.contents(store, namespace).equals(new TreeMap<>(expected)));
    }

    private static long publishedGeneration(Path store, String namespace) throws Exception {
        return Manifest.read(new StoreLayout(store).manifest(namespace)).generation();
    }

    /**
     * Issue 13 item 1: the manifest names the new generation, then deleting an old one fails. The new generation is
     * published all the same: later updates land in it, readers see them, a clean restart resumes from it.
     */
    @Test
    void aFailedCleanUpAfterPublishingLosesNoUpdate() throws Exception {
        String topic = "cleanup";
        kafka.createTopic(topic, 1);
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            put(expected, topic, "k" + i, "first-" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        Path nsDir = store.resolve(topic);
        Path blocker = nsDir.resolve("g0000000000.seq");
        try (WriterApp app = start(config(store, topic))) {
            awaitReady(app);
            long first = publishedGeneration(store, topic);
            // An "old generation" that cannot be deleted, even by root: a non-empty directory.
            Files.createDirectories(blocker);
            Files.writeString(blocker.resolve("keep"), "x");
            // Enough new keys to outgrow the first generation (1024 entries): the next publish deletes old files.
            for (int i = 100; i < 1500; i++) {
                put(expected, topic, "k" + i, "second-" + i);
            }
            kafka.flush();
            await("a grown generation published")
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> publishedGeneration(store, topic) > first);
            assertThat(blocker).as("clean-up failed, as arranged").isDirectory();
            // Updates after the failed clean-up reach readers.
            for (int i = 0; i < 50; i++) {
                put(expected, topic, "k" + i, "third-" + i);
                put(expected, topic, "new" + i, "third-" + i);
            }
            kafka.flush();
            awaitContent(store, topic, expected);
            try (SharedLookupStore s = SharedLookupStore.open(store)) {
                assertThat(s.lookup(topic).get("new49")).isEqualTo("third-49");
                assertThat(s.lookup(topic).generation()).isEqualTo(publishedGeneration(store, topic));
            }
            assertThat(Http.get(app.httpPort(), "/ready").statusCode()).isEqualTo(200);
            // The obstacle goes away: the clean-up is retried by itself.
            Files.delete(blocker.resolve("keep"));
            await("clean-up retried").atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(blocker));
            put(expected, topic, "after-cleanup", "yes");
            kafka.flush();
            awaitContent(store, topic, expected);
        }
        // A clean stop and restart resumes from the published generation with everything in it.
        for (int i = 0; i < 10; i++) {
            put(expected, topic, "restart" + i, "fourth-" + i);
        }
        kafka.flush();
        try (WriterApp app = start(config(store, topic))) {
            awaitReady(app);
            awaitContent(store, topic, expected);
            assertThat(metric(app, "sharedlookup_writer_resumes_total", topic)).isEqualTo(1);
            assertThat(metric(app, "sharedlookup_writer_records_total", topic)).isEqualTo(10);
        }
    }

    /**
     * Issue 13 item 8: a manifest emptied (a power loss after an unsynced rename) or overwritten with garbage. The
     * writer starts, serves the other namespace, and rebuilds the broken one from its topic under a new number.
     */
    @Test
    void anEmptyOrGarbageManifestIsRebuiltFromTheTopicWhileOtherNamespacesServe() throws Exception {
        kafka.createTopic("healthy", 1);
        kafka.createTopic("broken", 2);
        Map<String, String> healthy = new HashMap<>();
        Map<String, String> broken = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            put(healthy, "healthy", "h" + i, "hv" + i);
            put(broken, "broken", "b" + i, "bv" + i);
        }
        kafka.flush();
        Path store = TestKafka.tempStore();
        try (WriterApp app = start(config(store, "healthy", "broken"))) {
            awaitReady(app);
        }
        Path manifest = new StoreLayout(store).manifest("broken");
        long generation = publishedGeneration(store, "broken");
        byte[] garbage = new byte[600];
        new java.util.Random(13).nextBytes(garbage);
        byte[] whole = Files.readAllBytes(manifest);
        byte[] torn = java.util.Arrays.copyOf(whole, whole.length / 2);
        for (byte[] damage : List.of(new byte[0], garbage, torn)) {
            Files.write(manifest, damage);
            put(healthy, "healthy", "later", "hv-" + damage.length);
            put(broken, "broken", "later", "bv-" + damage.length);
            kafka.flush();
            try (WriterApp app = start(config(store, "healthy", "broken"))) {
                awaitReady(app);
                awaitContent(store, "broken", broken);
                awaitContent(store, "healthy", healthy);
                assertThat(metric(app, "sharedlookup_writer_resumes_total", "healthy"))
                        .isEqualTo(1);
                assertThat(metric(app, "sharedlookup_writer_rebuilds_total", "broken"))
                        .isEqualTo(1);
                long rebuilt = publishedGeneration(store, "broken");
                assertThat(rebuilt).as("generation numbers never repeat").isGreaterThan(generation);
                generation = rebuilt;
            }
        }
    }

    /**
     * Issue 13 item 2, the writer's side: a namespace whose directory was deleted (what the corrupt-manifest message
     * tells operators to do) is built again under numbers it never used, not from generation 1 again.
     */
    @Test
    void aNamespaceDeletedAndBuiltAgainNeverReusesAGenerationNumber() throws Exception {
        kafka.createTopic("renumbered", 1);
        Map<String, String> expected = new HashMap<>();
        put(expected, "renumbered", "k", "v1");
        kafka.flush();
        Path store = TestKafka.tempStore();
        long before = java.time.Instant.now().getEpochSecond();
        try (WriterApp app = start(config(store, "renumbered"))) {
            awaitReady(app);
        }
        long first = publishedGeneration(store, "renumbered");
        assertThat(first)
                .as("a fresh namespace is numbered from the Unix time in seconds")
                .isGreaterThanOrEqualTo(before);
        TempTrees.delete(store.resolve("renumbered"));
        await("the clock passes the first number")
                .atMost(Duration.ofSeconds(5))
                .until(() -> java.time.Instant.now().getEpochSecond() > first);
        put(expected, "renumbered", "k", "v2");
        kafka.flush();
        try (WriterApp app = start(config(store, "renumbered"))) {
            awaitReady(app);
            awaitContent(store, "renumbered", expected);
        }
        assertThat(publishedGeneration(store, "renumbered")).isGreaterThan(first);
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    /** Issue 13 item 10: a planted writer.lock link is refused and its target left alone. */
    @Test
    void aWriterLockSymlinkIsRefusedAndItsTargetLeftAlone() throws Exception {
        String topic = "planted";
        kafka.createTopic(topic, 1);
        kafka.send(topic, "1", "one");
        kafka.flush();
        Path store = TestKafka.tempStore();
        Path dir = Files.createDirectory(
                store.resolve(topic),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-x---")));
        Path target = Files.createFile(
                TestKafka.tempStore().resolve("precious"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(target, "secret");
        Path lock = Files.createSymbolicLink(dir.resolve(StoreLayout.WRITER_LOCK), target);
        assertThatThrownBy(() -> start(config(store, topic)).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(lock.toString())
                .hasMessageContaining("symbolic link")
                .hasMessageNotContaining("\n");
        assertThat(mode(target)).as("the link's target keeps its mode").isEqualTo("rw-------");
        assertThat(Files.readString(target)).isEqualTo("secret");
        assertThat(Files.isSymbolicLink(lock)).isTrue();
        // The operator removes the link as told: the writer starts.
        Files.delete(lock);
        try (WriterApp app = start(config(store, topic))) {
            awaitReady(app);
            assertThat(mode(lock)).isEqualTo("rw-r-----");
        }
        // A manifest replaced by a link: not followed, the namespace is rebuilt and the link replaced by a manifest.
        Path manifest = new StoreLayout(store).manifest(topic);
        Files.delete(manifest);
        Files.createSymbolicLink(manifest, target);
        try (WriterApp app = start(config(store, topic))) {
            awaitReady(app);
            awaitContent(store, topic, Map.of("1", "one"));
            assertThat(metric(app, "sharedlookup_writer_rebuilds_total", topic)).isEqualTo(1);
        }
        assertThat(Files.isSymbolicLink(manifest)).isFalse();
        assertThat(mode(manifest)).isEqualTo("rw-r-----");
        assertThat(mode(target)).isEqualTo("rw-------");
        assertThat(Files.readString(target)).isEqualTo("secret");
    }

    /** Issue 13 item 10: a namespace directory that is a link, or world-writable, and a world-writable store. */
    @Test
    void linkedOrWorldWritableDirectoriesAreRefused() throws Exception {
        String topic = "dirs";
        kafka.createTopic(topic, 1);
        kafka.send(topic, "1", "one");
        kafka.flush();
        Path store = TestKafka.tempStore();
        Path elsewhere = TestKafka.tempStore();
        Path linked = Files.createSymbolicLink(store.resolve(topic), elsewhere);
        assertThatThrownBy(() -> start(config(store, topic)).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(linked.toString())
                .hasMessageContaining("symbolic link")
                .hasMessageNotContaining("\n");
        try (var files = Files.list(elsewhere)) {
            assertThat(files).as("nothing written through the link").isEmpty();
        }
        Files.delete(linked);

        Path open = Files.createDirectory(store.resolve(topic));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> start(config(store, topic)).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(open.toString())
                .hasMessageContaining("world-writable")
                .hasMessageNotContaining("\n");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-x---"));

        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> start(config(store, topic)).close())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(store.toString())
                .hasMessageContaining("world-writable")
                .hasMessageNotContaining("\n");
        Files.setPosixFilePermissions(store, PosixFilePermissions.fromString("rwx------"));
        try (WriterApp app = start(config(store, topic))) {
            awaitReady(app);
        }
    }
}
