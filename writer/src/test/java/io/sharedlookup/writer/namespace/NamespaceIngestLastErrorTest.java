package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.OwnFileSizeLimit;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@code lastError} as {@code /namespaces} shows it: a checkpoint that cannot write the manifest says so, and says so
 * no longer once a checkpoint succeeds. Before, the error stayed after the volume had room again, on a namespace that
 * was live and checkpointing, until some stall happened to clear it.
 */
class NamespaceIngestLastErrorTest {
    @TempDir
    Path store;

    @Test
    void aCheckpointThatCannotWriteTheManifestIsShownUntilOneSucceeds() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceIngest ingest =
                TestNamespaces.over(NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT));
        Map<Integer, Long> start = Map.of(0, 0L);
        ingest.start(start, Map.of(0, 1L), -1, null);
        ingest.apply("1", "Ada", topic -> Map.of(0, 1L));
        ingest.afterBatch(true, topic -> Map.of(0, 1L));
        assertThat(lastError(ingest)).isNull();

        // An update in place needs no room; the manifest that records it does.
        ingest.apply("1", "Ada Lovelace", topic -> Map.of(0, 2L));
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(16)) {
            ingest.checkpoint(topic -> Map.of(0, 2L));
        }
        assertThat(lastError(ingest)).startsWith("cannot write the manifest: ").contains("File too large");
        assertThat(Manifest.read(layout.manifest("users")).offsets()).isEqualTo(Map.of(0, 1L));

        ingest.checkpoint(topic -> Map.of(0, 2L));
        assertThat(Manifest.read(layout.manifest("users")).offsets()).isEqualTo(Map.of(0, 2L));
        assertThat(lastError(ingest)).as("over once a checkpoint succeeds").isNull();
        ingest.close(topic -> Map.of(0, 2L));
    }

    /**
     * A checkpoint that failed is over once the manifest says what it would have (a publish wrote it since), even on
     * a topic that has gone quiet: the error used to stay until the next record came.
     */
    @Test
    void aFailedCheckpointIsOverWhenAPublishHasWrittenTheManifestSince() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceIngest ingest =
                TestNamespaces.over(NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT));
        Map<Integer, Long> offsets = Map.of(0, 1L);
        Positions positions = topic -> offsets;
        ingest.start(Map.of(0, 0L), offsets, -1, null);
        ingest.apply("000", "v000", positions); // sized as large as the entries below: no growth for lack of bytes
        ingest.afterBatch(true, positions);
        long capacity = ingest.status(Map.of(), null, Positions.UNKNOWN).capacity();
        ingest.apply("1", "v1", positions);
        try (OwnFileSizeLimit full = OwnFileSizeLimit.lowerTo(16)) {
            ingest.checkpoint(positions);
        }
        assertThat(lastError(ingest)).startsWith("cannot write the manifest: ");

        // Records fill the generation: it grows in the background, and the bigger one is published after a batch,
        // with the offsets and the caught-up flag a checkpoint would write. Then the topic is quiet.
        for (int i = 2; i < 0.8 * capacity; i++) {
            ingest.apply(Integer.toString(i), "v" + i, positions);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            ingest.afterBatch(true, positions);
            return ingest.status(Map.of(), null, Positions.UNKNOWN).capacity() > capacity;
        });
        // A generation grown within the batch (for low free space) is published as not caught up, and the
        // checkpoint below would then write the manifest: not the case this test is about.
        Assumptions.assumeTrue(Manifest.read(layout.manifest("users")).caughtUp(), "grown after a batch");
        ingest.checkpoint(positions);
        assertThat(lastError(ingest)).isNull();
        ingest.close(positions);
    }

    /**
     * A rebuilt generation that cannot be published is retried after every poll: shown in {@code /namespaces} all the
     * while, but logged as one ERROR rather than one per poll (five a second), and published once the manifest can be
     * written.
     */
    @Test
    void aRebuiltGenerationThatCannotBePublishedLogsOneErrorAndIsPublishedLater() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        NamespaceDirectory directory = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT);
        NamespaceIngest ingest = TestNamespaces.over(directory);
        Map<Integer, Long> end = Map.of(0, 1L);
        ingest.start(Map.of(0, 0L), end, -1, null);
        ingest.apply("1", "Ada", topic -> end);
        Logger life = (Logger) LoggerFactory.getLogger(GenerationLife.class);
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        life.addAppender(log);
        try {
            // A non-empty directory where the manifest goes: no manifest can be put in its place.
            Path manifest = layout.manifest("users");
            Files.createDirectories(manifest.resolve("in-the-way"));
            for (int poll = 0; poll < 5; poll++) {
                ingest.afterBatch(true, topic -> end);
            }
            assertThat(directory.published()).isEmpty();
            assertThat(lastError(ingest)).startsWith("cannot publish generation g0000000001.cmap: ");
            assertThat(log.list).filteredOn(e -> e.getLevel() == Level.ERROR).hasSize(1);

            TempTrees.delete(manifest);
            ingest.afterBatch(true, topic -> end);
            assertThat(directory.published()).isPresent();
            assertThat(lastError(ingest)).isNull();
            assertThat(ingest.status(Map.of(), null, Positions.UNKNOWN).entries())
                    .isEqualTo(1);
        } finally {
            life.detachAppender(log);
        }
        ingest.close(topic -> end);
    }

    private static String lastError(NamespaceIngest ingest) {
        return ingest.status(Map.of(), null, Positions.UNKNOWN).lastError();
    }
}
