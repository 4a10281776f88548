package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
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
 * publish within their refresh interval, and Linux keeps a deleted file's pages for whoever still maps it). Once the
 * manifest names a generation it is published, whatever happens after: a failure to delete old files is logged
 * (rate-limited) and retried on later checkpoints and publishes, never reported as a failed publish.
 *
 * <p>A manifest that cannot be read as one (empty after a power loss, garbage, a link) does not stop the writer: the
 * namespace is rebuilt from its topic under a number above every generation on disk, as for a version-1 manifest.
 * Nothing inside the namespace directory is followed if it is a link.
 */
public final class NamespaceWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NamespaceWriter.class);
    /** Between two attempts at deleting old generation files that could not be deleted. */
    private static final long CLEAN_UP_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** A manifest is a few hundred bytes; anything much larger is not one. */
    private static final int MAX_MANIFEST_BYTES = 1 << 20;

    private final StoreLayout layout;
    private final String namespace;
    private final StorePermissions permissions;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final long generationFloor;
    private final String rebuildReason;
    /** One WARN a minute at most per namespace for files that cannot be deleted, however often it is retried. */
    private final RateLimitedLog cleanUpWarnings = new RateLimitedLog(log, 60_000);
    private Manifest published;
    /** Set for a namespace seeded from a snapshot: the resume checks the copied entries against the digest. */
    private boolean verifyDigestOnResume;
    /** The published generation as this writer holds it open (published or resumed by it), for its digest. */
    private GenerationFile publishedFile;
    /** Generation files numbered below this are due for deletion (a deletion failed); 0 when none are. */
    private long cleanUpBefore;
    private long nextCleanUpAttempt;

    private NamespaceWriter(StoreLayout layout, String namespace, StorePermissions permissions,
                            FileChannel lockChannel, FileLock lock, Manifest published, long generationFloor,
                            String rebuildReason) {
        this.rebuildReason = rebuildReason;
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
        return open(layout, namespace, permissions, 0);
    }

    /**
     * Like {@link #open(StoreLayout, String, StorePermissions)}; a namespace that has no readable manifest numbers
     * its generations above {@code freshFloor} too. The writer passes the current Unix time in seconds, so that a
     * namespace deleted and built again does not reuse the numbers of the files it replaces (readers tell files
     * apart by identity anyway; people reading logs and introspection should not have to).
     */
    public static NamespaceWriter open(StoreLayout layout, String namespace, StorePermissions permissions,
                                       long freshFloor) throws IOException {
        // The store root may be a link (an operator's choice of --store-dir); nothing below it is followed.
        StorePermissions.requireNotWorldWritable(permissions.createDirectory(layout.storeDir()), "Store directory");
        Path dir = permissions.createOwnDirectory(layout.namespaceDir(namespace));
        Path lockFile = layout.writerLock(namespace);
        requireRegularOrAbsent(lockFile);
        FileChannel channel = permissions.openOrCreate(lockFile);
        FileLock lock;
        try {
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
        String rebuildReason = null;
        Path manifestFile = layout.manifest(namespace);
        try {
            manifest = readManifest(manifestFile);
        } catch (NoSuchFileException e) {
            // a new namespace, or one whose directory was deleted to rebuild it
            generationFloor = Math.max(freshFloor, highestGenerationIn(dir));
        } catch (Manifest.OldFormatException e) {
            // Written by a release whose readers went through Chronicle: build a version-2 generation from the topic.
            // Its number follows the old one, so readers of either release never mistake one for the other.
            log.warn("Namespace '{}' is store format version 1; rebuilding it from the topic as version {}",
                    namespace, Manifest.FORMAT_VERSION);
            generationFloor = Math.max(e.generation(), highestGenerationIn(dir));
            rebuildReason = "its manifest is store format version 1";
        } catch (UnreadableManifestException e) {
            // Empty after a power loss, garbage, a link: Kafka has everything, so rebuild this namespace from its topic.
            // Numbered above every generation on disk, so that no number is ever used for two different files.
            generationFloor = Math.max(freshFloor, highestGenerationIn(dir));
            rebuildReason = "its manifest " + manifestFile + " is unreadable: " + e.getMessage();
            log.warn("Namespace '{}': manifest {} is unreadable ({}); rebuilding the namespace from its topic as "
                    + "generation {} or later", namespace, manifestFile, e.getMessage(), generationFloor + 1);
        } catch (IOException | RuntimeException e) {
            lock.release();
            channel.close();
            throw e;
        }
        NamespaceWriter writer = new NamespaceWriter(layout, namespace, permissions, channel, lock, manifest,
                generationFloor, rebuildReason);
        writer.deleteStaleFiles(dir);
        return writer;
    }

    /** The writer's own files must be regular files: a link is never followed, a FIFO would block the open. */
    private static void requireRegularOrAbsent(Path file) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return;
        }
        if (a.isSymbolicLink()) {
            throw new UnsafeStoreException(file + " is a symbolic link, and the writer never follows links inside "
                    + "the store: delete it (rm " + file + ") and start the writer again");
        }
        if (!a.isRegularFile()) {
            throw new UnsafeStoreException(file + " is not a regular file: delete it and start the writer again");
        }
    }

    /**
     * Reads the manifest without following a link.
     *
     * @throws NoSuchFileException          when there is none
     * @throws UnreadableManifestException  when it is not a manifest at all (empty, garbage, a link, not a file)
     * @throws StoreFormatException         when it is one of another format version (version 1: OldFormatException)
     */
    private static Manifest readManifest(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new UnreadableManifestException(a.isSymbolicLink() ? "a symbolic link, never followed"
                    : "not a regular file");
        }
        if (a.size() > MAX_MANIFEST_BYTES) {
            throw new UnreadableManifestException(a.size() + " bytes, far too large for a manifest");
        }
        ByteBuffer bytes = ByteBuffer.allocate((int) a.size() + 1);
        try (SeekableByteChannel ch = Files.newByteChannel(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            while (bytes.hasRemaining() && ch.read(bytes) > 0) {
                // read it all
            }
        }
        bytes.flip();
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new UnreadableManifestException("not UTF-8 text");
        }
        if (text.isBlank()) {
            throw new UnreadableManifestException("empty");
        }
        try {
            return Manifest.parse(text, file);
        } catch (Manifest.OldFormatException | Manifest.NewerFormatException e) {
            throw e; // a newer release's store is an operator's mistake, not damage: never overwrite it
        } catch (StoreFormatException e) {
            String why = String.valueOf(e.getMessage());
            String prefix = "Corrupt manifest " + file + ": ";
            throw new UnreadableManifestException(why.startsWith(prefix) ? why.substring(prefix.length()) : why);
        }
    }

    /** The manifest is not one: the namespace is rebuilt. */
    private static final class UnreadableManifestException extends IOException {
        UnreadableManifestException(String message) {
            super(message);
        }
    }

    /**
     * Why the namespace must be rebuilt from its topic although a manifest exists (it was unreadable, or of format
     * version 1); empty otherwise.
     */
    public Optional<String> rebuildReason() {
        return Optional.ofNullable(rebuildReason);
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
                && Files.isRegularFile(dataFile(published), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Makes {@link #resume()} recompute the content digest from the entries and refuse the generation when it differs
     * from the manifest's: for a namespace seeded from a snapshot copied from another host.
     */
    public void verifyDigestOnResume() {
        verifyDigestOnResume = true;
    }

    /**
     * Reopens the published generation for writing and marks the manifest open. Requires {@link #canResume()}.
     *
     * @throws StoreFormatException when the generation cannot be opened or, with {@link #verifyDigestOnResume()}, its
     *                              entries do not give the manifest's digest
     */
    public GenerationFile resume() throws IOException {
        if (!canResume()) {
            throw new IllegalStateException("Namespace '" + namespace + "' was not closed cleanly; build a new generation");
        }
        GenerationFile generation = GenerationFile.open(dataFile(published), published.capacity(),
                hasReverseIndex(published));
        try {
            generation.restoreDigest(published.contentDigest());
            if (verifyDigestOnResume) {
                long scanned = generation.scanDigest();
                if (published.contentDigest() == null || scanned != published.contentDigest()) {
                    throw new StoreFormatException("Generation " + dataFile(published) + " gives content digest "
                            + ContentDigest.hex(scanned) + " but its manifest says " + (published.contentDigest() == null
                            ? "none" : ContentDigest.hex(published.contentDigest()))
                            + "; the namespace is rebuilt from its topic");
                }
            }
            write(published.withWriterState(Manifest.WriterState.OPEN, System.currentTimeMillis()), true);
        } catch (IOException | RuntimeException e) {
            generation.close();
            throw e;
        }
        publishedFile = generation;
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
        Files.deleteIfExists(StoreLayout.reverseIndexFile(generation.file()));
        Files.deleteIfExists(SequenceFile.of(generation.file()));
        Files.deleteIfExists(SequenceFile.of(StoreLayout.reverseIndexFile(generation.file())));
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
                generation.layout(), generation.reverseLayout(), generation.contentDigest());
        write(next, true);
        publishedFile = generation;
        // Published: whatever happens from here on, readers follow `next` and so must the caller.
        cleanUpBefore = Math.max(cleanUpBefore, number - 1);
        nextCleanUpAttempt = System.nanoTime();
        retryCleanUp();
        return next;
    }

    /**
     * Records progress of the published generation: offsets, whether caught up, and, when {@code contentChanged},
     * a new content version. The manifest's content is fsynced before the rename (so a power loss leaves the old or the
     * new one, never an empty one), its directory entry is not: a crash may lose the last checkpoint, and the next start
     * rebuilds anyway.
     */
    public Manifest checkpoint(Map<Integer, Long> offsets, boolean caughtUp, boolean contentChanged) throws IOException {
        requirePublished();
        long version = contentChanged ? nextContentVersion() : published.contentVersion();
        Long digest = publishedFile != null ? Long.valueOf(publishedFile.contentDigest()) : published.contentDigest();
        Manifest next = published.withOffsets(offsets, version, caughtUp, digest, System.currentTimeMillis());
        write(next, false);
        retryCleanUp();
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
        write(published.withOffsets(offsets, version, caughtUp, generation.contentDigest(), System.currentTimeMillis())
                .withWriterState(Manifest.WriterState.CLOSED, System.currentTimeMillis()), true);
        generation.close();
        retryCleanUp();
        close();
    }

    /**
     * Deletes old generation files whose deletion failed earlier, at most once a second; never throws (a failure is a
     * rate-limited WARN and is retried on the next call). Cheap when nothing is due.
     */
    public void retryCleanUp() {
        if (cleanUpBefore == 0 || System.nanoTime() - nextCleanUpAttempt < 0) {
            return;
        }
        nextCleanUpAttempt = System.nanoTime() + CLEAN_UP_RETRY_NANOS;
        try {
            if (deleteGenerationsBefore(cleanUpBefore)) {
                cleanUpBefore = 0;
            }
        } catch (IOException | RuntimeException e) {
            cleanUpWarnings.warn("Namespace '{}': cannot list {} to delete old generations (retrying): {}", namespace,
                    layout.namespaceDir(namespace), e.toString());
        }
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
        return highestGenerationIn(layout.namespaceDir(namespace));
    }

    private static long highestGenerationIn(Path dir) throws IOException {
        long max = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                OptionalLong g = StoreLayout.generationOfAnyFile(f.getFileName().toString());
                if (g.isPresent()) {
                    max = Math.max(max, g.getAsLong());
                }
            }
        }
        return max;
    }

    /** Deletes every generation file numbered below {@code keepFrom}; returns whether all went. */
    private boolean deleteGenerationsBefore(long keepFrom) throws IOException {
        boolean all = true;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(layout.namespaceDir(namespace))) {
            for (Path f : files) {
                OptionalLong g = StoreLayout.generationOfAnyFile(f.getFileName().toString());
                if (g.isPresent() && g.getAsLong() < keepFrom) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException e) {
                        all = false;
                        cleanUpWarnings.warn("Namespace '{}': cannot delete old generation file {} (retrying; "
                                + "readers are not affected): {}", namespace, f, e.toString());
                    }
                }
            }
        }
        return all;
    }

    /** Removes what a killed writer may have left: half-built generations and temporary manifests. */
    private void deleteStaleFiles(Path dir) throws IOException {
        // Without a readable manifest, files up to the floor are kept until a publish deletes them, as usual: a
        // reader may still be serving one of them.
        long current = published != null ? published.generation() : generationFloor > 0 ? generationFloor : -1;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                OptionalLong g = StoreLayout.generationOfAnyFile(name);
                boolean unpublishedGeneration = g.isPresent() && g.getAsLong() > current;
                if (unpublishedGeneration || name.startsWith(StoreLayout.MANIFEST + ".tmp-")) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException e) {
                        // Harmless where it is: new generations are numbered above every file on disk.
                        cleanUpWarnings.warn("Namespace '{}': cannot delete leftover {}: {}", namespace, f,
                                e.toString());
                    }
                }
            }
        }
    }
}
