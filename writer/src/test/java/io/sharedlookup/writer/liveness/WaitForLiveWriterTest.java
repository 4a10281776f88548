package io.sharedlookup.writer.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.LookupStatus.WriterState;
import io.sharedlookup.reader.LookupTimeoutException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader meeting segments held in the middle of a change (their counters made odd as the writer's
 * {@code SegmentCounters.begin} does) waits past the short bound while the writer's heartbeat moves, and gives up at
 * the short bound once it has stopped.
 */
class WaitForLiveWriterTest {
    private static final String NS = "held";
    private static final VarHandle SEQ = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @TempDir
    Path store;

    @Test
    void aLookupWaitsForALiveWriterMidChangeAndGivesUpAtTheShortBoundOnceItsHeartbeatStops() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, NS, StorePermissions.DEFAULT)) {
            GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(100, 4, 8));
            for (int i = 0; i < 100; i++) {
                g.put("k" + i, "v" + i, TimeUnit.SECONDS.toNanos(1));
            }
            writer.publish(g, "topic", Map.of(0, 100L), true, Map.of());
            int segments = g.layout().segments();
            WriterHeartbeat heartbeat = WriterHeartbeat.start(layout, List.of(NS), StorePermissions.DEFAULT, Map::of);
            Path status = WriterStatusDescriptor.of(layout.namespaceDir(NS));
            assertThat(Files.getPosixFilePermissions(status)).doesNotContain(PosixFilePermission.OTHERS_WRITE);
            try (FileChannel ch = FileChannel.open(
                            SequenceFile.of(g.file()), StandardOpenOption.READ, StandardOpenOption.WRITE);
                    SharedLookupStore reader = SharedLookupStore.open(store)) { // lockTimeout: the default 50 ms
                ByteBuffer counters = ch.map(FileChannel.MapMode.READ_WRITE, 0, (long) segments * SequenceFile.STRIDE)
                        .order(ByteOrder.LITTLE_ENDIAN);
                Lookup lookup = reader.lookup(NS);
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> lookup.status().writerAlive());

                moveAll(counters, segments); // odd: every segment in the middle of a change
                CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> lookup.get("k7"));
                long began = System.nanoTime();
                // Held well past the 50 ms bound, as a writer preempted on a saturated host holds a segment.
                await().pollDelay(Duration.ofMillis(600))
                        .atMost(Duration.ofSeconds(5))
                        .until(() -> true);
                assertThat(answer).as("still waiting for the live writer").isNotDone();
                moveAll(counters, segments); // even again: the change is over
                assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo("v7");
                assertThat(System.nanoTime() - began).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(500));

                heartbeat.stopBeating(); // as a kill -9 leaves it
                await().atMost(Duration.ofSeconds(3))
                        .until(() -> lookup.status().writer() == WriterState.NOT_ALIVE);
                moveAll(counters, segments); // odd, and nobody will end the change
                long start = System.nanoTime();
                assertThatThrownBy(() -> lookup.get("k7"))
                        .isInstanceOf(LookupTimeoutException.class)
                        .hasMessageContaining("heartbeat has stopped");
                assertThat(System.nanoTime() - start)
                        .as("gave up at the short bound")
                        .isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
            } finally {
                heartbeat.close();
            }
        }
    }

    /** Moves every segment's counter on by one, as the writer's begin (to odd) or end (to even) does. */
    private static void moveAll(ByteBuffer counters, int segments) {
        for (int s = 0; s < segments; s++) {
            int at = s * SequenceFile.STRIDE;
            SEQ.setRelease(counters, at, (long) SEQ.getOpaque(counters, at) + 1);
        }
    }
}
