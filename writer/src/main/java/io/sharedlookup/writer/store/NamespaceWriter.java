package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import io.sharedlookup.internal.store.SequenceFile;
import org.slf4j.LoggerFactory;

/**
 * The write side of one namespace: owns its directory while open (an OS file lock, released even by kill -9), creates
 * generations, and publishes them and their metadata through the manifest.
 *
 * <p>Protocol: a new generation file is created under a number no manifest has named yet, filled, fsynced, and only
 * then published by replacing the manifest. Readers only ever open the file the manifest names, so a half-built
 * generation is never visible. The manifest says {@code writer.state=open} while a writer may be changing the published
 * file; only a clean {@link #close} records {@code closed}, which is what allows the next writer to {@link #resume}.
 * Files of generations older than the previous one are deleted on publish (readers have long moved on: they follow a
 * publish within their refresh interval, and Linux keeps a deleted file's pages for whoever still maps it).
 */
public final class NamespaceWriter implements AutoCloseable {
    private final StoreLayout layout;
    private final String namespace;
    private final StorePermissions permissions;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final long generationFloor;
    private Manifest published;

    private NamespaceWriter(StoreLayout layout, String namespace, StorePermissions permissions,
                            FileChannel lockChannel, FileLock lock, Manifest published, long generationFloor) {
        this.layout = layout;
        this.namespace = namespace;
        this.permissions = permissions;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.published = published;
        this.generationFloor = generationFloor;
    }

    /**
     * Takes ownership of {@code namespace} in the store, creating its directory if needed.
     *
     * @throws IllegalStateException when another live writer owns it
     * @throws IOException           when the directory cannot be created or written
     */
    public static NamespaceWriter open(StoreLayout layout, String namespace, StorePermissions permissions)
            throws IOException {
        Path dir = permissions.createDirectory(layout.namespaceDir(namespace));
        Path lockFile = layout.writerLock(namespace);
        FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            permissions.applyToFile(lockFile);
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw new IllegalStateException("Another writer owns namespace '" + namespace + "' (" + lockFile
                    + " is locked): run one writer per store directory and namespace");
        }
        Manifest manifest = null;
        long generationFloor = 0;
        try {
            manifest = Manifest.read(layout.manifest(namespace));
        } catch (NoSuchFileException e) {
            // a new namespace
        } catch (Manifest.OldFormatException e) {
            // Written by a release whose readers went through Chronicle: build a version-2 generation from the topic.
            // Its number follows the old one, so readers of either release never mistake one for the other.
            LoggerFactory.getLogger(NamespaceWriter.class).warn("Namespace '{}' is store format version 1; "
                    + "rebuilding it from the topic as version {}", namespace, Manifest.FORMAT_VERSION);
            generationFloor = e.generation();
        } catch (IOException | RuntimeException e) {
            lock.release();
            channel.close();
            throw e;
        }
        NamespaceWriter writer = new NamespaceWriter(layout, namespace, permissions, channel, lock, manifest,
                generationFloor);
        writer.deleteStaleFiles(dir);
        return writer;
    }

    public String namespace() {
        return namespace;
    }

    /** The manifest readers see now, if any generation was ever published. */
    public Optional<Manifest> published() {
        return Optional.ofNullable(published);
    }

    /**
     * Whether the published generation may be reopened and continued from its recorded offsets: only after a clean
     * stop. After a kill, the file may hold a half-applied update or a lock nobody will release.
     */
    public boolean canResume() {
        return published != null && published.writerState() == Manifest.WriterState.CLOSED
                && Files.isRegularFile(dataFile(published));
    }

    /** Reopens the published generation for writing and marks the manifest open. Requires {@link #canResume()}. */
    public GenerationFile resume() throws IOException {
        if (!canResume()) {
            throw new IllegalStateException("Namespace '" + namespace + "' was not closed cleanly; build a new generation");
        }
        GenerationFile generation = GenerationFile.open(dataFile(published), published.capacity(),
                hasReverseIndex(published));
        write(published.withWriterState(Manifest.WriterState.OPEN, System.currentTimeMillis()), true);
        return generation;
    }

    /** Creates the next generation file, empty and invisible to readers until {@link #publish}. */
    public GenerationFile createGeneration(GenerationSizing sizing) throws IOException {
        return createGeneration(sizing, false);
    }

    /** Like {@link #createGeneration(GenerationSizing)}, with a reverse index (value to keys) kept beside it. */
    public GenerationFile createGeneration(GenerationSizing sizing, boolean reverseIndex) throws IOException {
        long next = Math.max(Math.max(published == null ? 0 : published.generation(), generationFloor),
                highestGenerationOnDisk()) + 1;
        return GenerationFile.create(layout.namespaceDir(namespace).resolve(StoreLayout.generationFileName(next)),
                sizing, permissions, reverseIndex);
    }

    static boolean hasReverseIndex(Manifest manifest) {
        return Boolean.parseBoolean(manifest.attributes().get(StoreLayout.REVERSE_INDEX_ATTRIBUTE));
    }

    /** Abandons a generation that was never published (a failed or cancelled build) and deletes its file. */
    public void discard(GenerationFile generation) throws IOException {
        if (published != null && generation.file().equals(dataFile(published))) {
            throw new IllegalArgumentException("Cannot discard the published generation " + generation.file());
        }
        generation.close();
        Files.deleteIfExists(generation.file());
        Files.deleteIfExists(GenerationFile.reverseIndexFile(generation.file()));
        Files.deleteIfExists(SequenceFile.of(generation.file()));
        Files.deleteIfExists(SequenceFile.of(GenerationFile.reverseIndexFile(generation.file())));
    }

    /**
     * Publishes {@code generation} with its metadata: fsyncs the file, then atomically replaces the manifest.
     * The content version moves past every earlier one.
     */
    public Manifest publish(GenerationFile generation, String topic, Map<Integer, Long> offsets, boolean caughtUp,
                            Map<String, String> attributes) throws IOException {
        generation.force();
        String fileName = generation.file().getFileName().toString();
        long number = StoreLayout.generationOf(fileName).orElseThrow();
        long now = System.currentTimeMillis();
        Map<String, String> recorded = new java.util.TreeMap<>(attributes);
        recorded.put(StoreLayout.REVERSE_INDEX_ATTRIBUTE, Boolean.toString(generation.hasReverseIndex()));
        Manifest next = new Manifest(Manifest.FORMAT_VERSION, namespace, number, fileName, generation.capacity(),
                topic, offsets, nextContentVersion(), caughtUp, Manifest.WriterState.OPEN, now, now, recorded,
                generation.layout(), generation.reverseLayout());
        write(next, true);
        deleteGenerationsBefore(number - 1);
        return next;
    }

    /**
     * Records progress of the published generation: offsets, whether caught up, and, when {@code contentChanged},
     * a new content version. Not fsynced: a crash loses only a checkpoint, and the next start rebuilds anyway.
     */
    public Manifest checkpoint(Map<Integer, Long> offsets, boolean caughtUp, boolean contentChanged) throws IOException {
        requirePublished();
        long version = contentChanged ? nextContentVersion() : published.contentVersion();
        Manifest next = published.withOffsets(offsets, version, caughtUp, System.currentTimeMillis());
        write(next, false);
        return next;
    }

    /**
     * Clean stop: fsyncs {@code generation} (the published one), records the final offsets and
     * {@code writer.state=closed}, closes the file and releases the namespace.
     */
    public void closeCleanly(GenerationFile generation, Map<Integer, Long> offsets, boolean caughtUp,
                             boolean contentChanged) throws IOException {
        requirePublished();
        generation.force();
        long version = contentChanged ? nextContentVersion() : published.contentVersion();
        write(published.withOffsets(offsets, version, caughtUp, System.currentTimeMillis())
                .withWriterState(Manifest.WriterState.CLOSED, System.currentTimeMillis()), true);
        generation.close();
        close();
    }

    /** Releases the namespace without marking it closed (the next writer will rebuild). */
    @Override
    public void close() throws IOException {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } finally {
            lockChannel.close();
        }
    }

    private long nextContentVersion() {
        // Wall-clock based so that versions keep increasing even if a namespace directory is deleted and rebuilt.
        long previous = published == null ? 0 : published.contentVersion();
        return Math.max(previous + 1, System.currentTimeMillis() * 1000);
    }

    private void write(Manifest manifest, boolean durable) throws IOException {
        ManifestFiles.write(manifest, layout.manifest(namespace), permissions, durable);
        published = manifest;
    }

    private void requirePublished() {
        if (published == null) {
            throw new IllegalStateException("Namespace '" + namespace + "' has no published generation yet");
        }
    }

    private Path dataFile(Manifest manifest) {
        return layout.namespaceDir(namespace).resolve(manifest.dataFile());
    }

    private long highestGenerationOnDisk() throws IOException {
        long max = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(layout.namespaceDir(namespace))) {
            for (Path f : files) {
                OptionalLong g = StoreLayout.generationOfAnyFile(f.getFileName().toString());
                if (g.isPresent()) {
                    max = Math.max(max, g.getAsLong());
                }
            }
        }
        return max;
    }

    private void deleteGenerationsBefore(long keepFrom) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(layout.namespaceDir(namespace))) {
            for (Path f : files) {
                OptionalLong g = StoreLayout.generationOfAnyFile(f.getFileName().toString());
                if (g.isPresent() && g.getAsLong() < keepFrom) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Removes what a killed writer may have left: half-built generations and temporary manifests. */
    private void deleteStaleFiles(Path dir) throws IOException {
        long current = published == null ? Long.MAX_VALUE : published.generation();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                OptionalLong g = StoreLayout.generationOfAnyFile(name);
                boolean unpublishedGeneration = g.isPresent() && (published == null || g.getAsLong() > current);
                if (unpublishedGeneration || name.startsWith(StoreLayout.MANIFEST + ".tmp-")) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
