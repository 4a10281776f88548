package io.sharedlookup.testing;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Writes namespaces through the store format's write side, the way the writer does. Shared by the modules' tests
 * through the writer's test jar (not tests/fixtures: it drives the writer's store code, and the writer's own tests use
 * the fixtures module, so that module cannot depend on the writer).
 */
public final class TestStores {
    public static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    private TestStores() {}

    /**
     * A namespace's whole content as read through reader-lib, sorted; a store that cannot be read yields a one-entry
     * map naming the error, so that polling comparisons fail readably instead of throwing.
     */
    public static Map<String, String> contents(Path store, String namespace) {
        try (SharedLookupStore s = SharedLookupStore.builder(store)
                .lockTimeout(Duration.ofSeconds(1))
                .open()) {
            Map<String, String> all = new TreeMap<>();
            s.lookup(namespace).forEach(all::put);
            return all;
        } catch (RuntimeException e) {
            return Map.of("<unreadable>", e.toString());
        }
    }

    /** An open namespace writer with a published generation. */
    public static final class Published implements AutoCloseable {
        public final NamespaceDirectory writer;
        public GenerationFile generation;
        private final boolean reverseIndex;

        Published(NamespaceDirectory writer, GenerationFile generation, boolean reverseIndex) {
            this.writer = writer;
            this.generation = generation;
            this.reverseIndex = reverseIndex;
        }

        /** Builds a new generation holding {@code content} and publishes it as caught up. */
        public void republish(Map<String, String> content) throws IOException {
            GenerationFile next = fill(writer, content, reverseIndex);
            writer.publish(next, "topic", Map.of(0, (long) content.size()), true, Map.of());
            generation.close();
            generation = next;
        }

        /** Applies {@code updates} in place to the published generation and records a checkpoint. */
        public void update(Map<String, String> updates, boolean caughtUp) throws IOException {
            updates.forEach((k, v) -> generation.put(k, v, TIMEOUT));
            writer.checkpoint(Map.of(0, 1_000L), caughtUp, true);
        }

        /** Leaves every segment of the published generation as a writer killed in the middle of a change does. */
        public void leaveEverySegmentMidChange() throws IOException {
            setEverySequence(1);
        }

        /** Ends the changes {@link #leaveEverySegmentMidChange} left, as a writer that finished them would. */
        public void finishEveryChange() throws IOException {
            setEverySequence(2);
        }

        private void setEverySequence(long value) throws IOException {
            try (FileChannel sequences =
                    FileChannel.open(SequenceFile.of(generation.file()), StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.allocate(Long.BYTES)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putLong(0, value);
                for (int segment = 0; segment < generation.layout().segments(); segment++) {
                    sequences.write(bytes.rewind(), (long) segment * SequenceFile.STRIDE);
                }
            }
        }

        @Override
        public void close() throws IOException {
            generation.close();
            writer.close();
        }
    }

    public static Published publish(Path store, String namespace, Map<String, String> content) throws IOException {
        return publish(store, namespace, content, true);
    }

    public static Published publish(Path store, String namespace, Map<String, String> content, boolean caughtUp)
            throws IOException {
        return publish(store, namespace, content, caughtUp, false);
    }

    /** With {@code reverseIndex}, the generation carries the writer's reverse index (value to keys). */
    public static Published publish(
            Path store, String namespace, Map<String, String> content, boolean caughtUp, boolean reverseIndex)
            throws IOException {
        NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
        GenerationFile generation = fill(writer, content, reverseIndex);
        writer.publish(generation, "topic", Map.of(0, (long) content.size()), caughtUp, Map.of());
        return new Published(writer, generation, reverseIndex);
    }

    private static GenerationFile fill(NamespaceDirectory writer, Map<String, String> content, boolean reverseIndex)
            throws IOException {
        GenerationFile generation =
                writer.createGeneration(GenerationSizing.forExpected(content.size(), 8, 16), reverseIndex);
        content.forEach((k, v) -> generation.put(k, v, TIMEOUT));
        return generation;
    }
}
