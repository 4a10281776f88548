package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One namespace's directory on disk, as the writer holds it: owns it while open (an OS file lock, released even by
 * kill -9), numbers and creates generation files, publishes them and their metadata through the manifest, and deletes
 * the files of old generations. It decides nothing about when: {@code namespace.GenerationLife} does, and is its only
 * caller once the namespace is open.
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
public final class NamespaceDirectory implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NamespaceDirectory.class);

    private final StoreLayout layout;
    private final String namespace;
    private final StorePermissions permissions;
    private final NamespaceLock lock;
    private final long generationFloor;
    private final String rebuildReason;
    /** One WARN a minute at most per namespace for files that cannot be deleted, however often it is retried. */
    private final OldGenerations oldGenerations;

    private Manifest published;
    /** resume() could not write "open" into the manifest: no change may reach the generation until it is. */
    private boolean openMarkPending;
    /** The published generation as this writer holds it open (published or resumed by it), for its digest. */
    private GenerationFile publishedFile;

    private NamespaceDirectory(
            StoreLayout layout,
            String namespace,
            StorePermissions permissions,
            NamespaceLock lock,
            ManifestAtOpen found) {
        this.rebuildReason = found.rebuildReason();
        this.layout = layout;
        this.namespace = namespace;
        this.permissions = permissions;
        this.lock = lock;
        this.published = found.published();
        this.generationFloor = found.generationFloor();
        this.oldGenerations = new OldGenerations(layout.namespaceDir(namespace), namespace);
    }

    /**
     * Takes ownership of {@code namespace} in the store, creating its directory if needed.
     *
     * @throws IllegalStateException when another live writer owns it
     * @throws IOException           when the directory cannot be created or written
     */
    public static NamespaceDirectory open(StoreLayout layout, String namespace, StorePermissions permissions)
            throws IOException {
        return open(layout, namespace, permissions, 0);
    }

    /**
     * Like {@link #open(StoreLayout, String, StorePermissions)}; a namespace that has no readable manifest numbers
     * its generations above {@code freshFloor} too. The writer passes the current Unix time in seconds, so that a
     * namespace deleted and built again does not reuse the numbers of the files it replaces (readers tell files
     * apart by identity anyway; people reading logs and introspection should not have to).
     */
    public static NamespaceDirectory open(
            StoreLayout layout, String namespace, StorePermissions permissions, long freshFloor) throws IOException {
        // The store root may be a link (an operator's choice of --store-dir); nothing below it is followed.
        StorePermissions.requireNotWorldWritable(permissions.createDirectory(layout.storeDir()), "Store directory");
        Path dir = permissions.createOwnDirectory(layout.namespaceDir(namespace));
        NamespaceLock lock = NamespaceLock.take(layout.writerLock(namespace), namespace, permissions);
        ManifestAtOpen found;
        try {
            found = ManifestAtOpen.read(layout.manifest(namespace), dir, namespace, freshFloor);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        NamespaceDirectory writer = new NamespaceDirectory(layout, namespace, permissions, lock, found);
        writer.oldGenerations.deleteLeftovers(found.newestInUse());
        return writer;
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
        return published != null
                && published.writerState() == Manifest.WriterState.CLOSED
                && Files.isRegularFile(dataFile(published), LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Reopens the published generation for writing and marks the manifest open. Requires {@link #canResume()}.
     *
     * @throws StoreFormatException when the generation cannot be opened
     */
    public GenerationFile resume() throws IOException {
        if (!canResume()) {
            throw new IllegalStateException(
                    "Namespace '" + namespace + "' was not closed cleanly; build a new generation");
        }
        GenerationFile generation =
                GenerationFile.open(dataFile(published), published.capacity(), hasReverseIndex(published));
        try {
            generation.restoreDigest(published.contentDigest());
        } catch (RuntimeException e) {
            generation.close();
            throw e;
        }
        // A new content version as well: the sequence counters are not fsynced, so after a power loss that followed
        // the clean stop they may count less than readers last saw, and a (version, generation, content stamp) cache
        // key of the content to come could repeat one that named the content before (Lookup.contentStamp).
        // updated.at unchanged: the offsets are as current as when they were stored, until a checkpoint says more.
        long asOf = published.updatedAtMillis();
        Manifest opened = published
                .withOffsets(
                        published.offsets(),
                        nextContentVersion(),
                        published.caughtUp(),
                        published.contentDigest(),
                        asOf)
                .withWriterState(Manifest.WriterState.OPEN, asOf);
        try {
            write(opened, true);
        } catch (IOException e) {
            // A full volume at start: resuming needs a few hundred bytes of manifest, a rebuild a whole new generation
            // and a replay of the topic. So keep the generation, unchanged until the manifest says open
            // (requireMarkedOpen, before every change): a kill meanwhile still finds a closed manifest over the very
            // file it describes. Every later manifest write says open.
            log.warn(
                    "Namespace '{}': cannot mark its manifest open ({}); changes wait until it can be written: free "
                            + "disk space",
                    namespace,
                    e.toString());
            published = opened;
            openMarkPending = true;
        }
        publishedFile = generation;
        return generation;
    }

    /**
     * Before a change to {@code target}: when it is the generation {@link #resume()} reopened, makes sure its manifest
     * says open, durably, so that a kill (or a power loss) after the change is never mistaken for a clean stop. Other
     * generations (a rebuild's, a growth copy) are not published: nothing to mark.
     *
     * @throws IOException when the manifest still cannot be written (the change must wait)
     */
    public void requireMarkedOpen(GenerationFile target) throws IOException {
        if (openMarkPending && target == publishedFile) {
            write(published, true);
        }
    }

    /** Creates the next generation file, empty and invisible to readers until {@link #publish}. */
    public GenerationFile createGeneration(GenerationSizing sizing) throws IOException {
        return createGeneration(sizing, false);
    }

    /** Bytes the store's file system has for this namespace now; {@link DiskFit#UNKNOWN} when it cannot say. */
    public long usableSpace() {
        return DiskFit.usableSpace(layout.namespaceDir(namespace));
    }

    /** Like {@link #createGeneration(GenerationSizing)}, with a reverse index (value to keys) kept beside it. */
    public GenerationFile createGeneration(GenerationSizing sizing, boolean reverseIndex) throws IOException {
        DiskFit.require(sizing, reverseIndex, usableSpace(), layout.namespaceDir(namespace)); // before any file
        long next = Math.max(
                        Math.max(published == null ? 0 : published.generation(), generationFloor),
                        oldGenerations.highest())
                + 1;
        return GenerationFile.create(
                layout.namespaceDir(namespace).resolve(StoreLayout.generationFileName(next)),
                sizing,
                permissions,
                reverseIndex);
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
    public Manifest publish(
            GenerationFile generation,
            String topic,
            Map<Integer, Long> offsets,
            boolean caughtUp,
            Map<String, String> attributes)
            throws IOException {
        return publish(generation, topic, offsets, caughtUp, attributes, System.currentTimeMillis());
    }

    /**
     * {@link #publish(GenerationFile, String, Map, boolean, Map)} with the moment the offsets were last known current
     * as {@code updated.at} ({@code published.at} is now).
     */
    public Manifest publish(
            GenerationFile generation,
            String topic,
            Map<Integer, Long> offsets,
            boolean caughtUp,
            Map<String, String> attributes,
            long currentAsOfMillis)
            throws IOException {
        generation.force();
        String fileName = generation.file().getFileName().toString();
        long number = StoreLayout.generationOf(fileName).orElseThrow();
        long now = System.currentTimeMillis();
        Map<String, String> recorded = new java.util.TreeMap<>(attributes);
        recorded.put(StoreLayout.REVERSE_INDEX_ATTRIBUTE, Boolean.toString(generation.hasReverseIndex()));
        // What readers may still be opening: the generation this publish replaces (number - 1 when none is
        // published in this format, as after an upgrade from version 1)
        long keepFrom = published == null ? number - 1 : Math.min(published.generation(), number - 1);
        Manifest next = new Manifest(
                Manifest.FORMAT_VERSION,
                namespace,
                number,
                fileName,
                generation.capacity(),
                topic,
                offsets,
                nextContentVersion(),
                caughtUp,
                Manifest.WriterState.OPEN,
                now,
                currentAsOfMillis,
                recorded,
                generation.layout(),
                generation.reverseLayout(),
                generation.contentDigest());
        write(next, true);
        publishedFile = generation;
        // Published: whatever happens from here on, readers follow `next` and so must the caller.
        // The generation replaced stays: a reader that has just read the old manifest still opens it. (Not simply
        // "below number - 1": numbers skip one where a half-made generation left a file behind.)
        oldGenerations.deleteBelow(keepFrom);
        return next;
    }

    /**
     * Records progress of the published generation: offsets, whether caught up, and, when {@code contentChanged},
     * a new content version. The manifest's content is fsynced before the rename (so a power loss leaves the old or the
     * new one, never an empty one), its directory entry is not: a crash may lose the last checkpoint, and the next start
     * rebuilds anyway.
     */
    public Manifest checkpoint(Map<Integer, Long> offsets, boolean caughtUp, boolean contentChanged)
            throws IOException {
        return checkpoint(offsets, caughtUp, contentChanged, System.currentTimeMillis());
    }

    /**
     * {@link #checkpoint(Map, boolean, boolean)} with the moment the offsets were last known current (the last
     * answer from the broker) as {@code updated.at}, which a later start measures against the topic's
     * {@code delete.retention.ms}.
     */
    public Manifest checkpoint(
            Map<Integer, Long> offsets, boolean caughtUp, boolean contentChanged, long currentAsOfMillis)
            throws IOException {
        requirePublished();
        long version = contentChanged ? nextContentVersion() : published.contentVersion();
        Long digest = publishedFile != null ? Long.valueOf(publishedFile.contentDigest()) : published.contentDigest();
        Manifest next = published.withOffsets(offsets, version, caughtUp, digest, currentAsOfMillis);
        write(next, openMarkPending); // the first manifest that says open after a resume must survive a power loss
        retryCleanUp();
        return next;
    }

    /**
     * Clean stop: fsyncs {@code generation} (the published one), records the final offsets and
     * {@code writer.state=closed}, closes the file and releases the namespace.
     */
    public void closeCleanly(
            GenerationFile generation, Map<Integer, Long> offsets, boolean caughtUp, boolean contentChanged)
            throws IOException {
        closeCleanly(generation, offsets, caughtUp, contentChanged, System.currentTimeMillis());
    }

    /**
     * {@link #closeCleanly(GenerationFile, Map, boolean, boolean)} with the moment the offsets were last known current
     * as {@code updated.at}: a writer stopped after days without its broker must not pass for one that read the topic
     * until it stopped.
     */
    public void closeCleanly(
            GenerationFile generation,
            Map<Integer, Long> offsets,
            boolean caughtUp,
            boolean contentChanged,
            long currentAsOfMillis)
            throws IOException {
        requirePublished();
        generation.force();
        long version = contentChanged ? nextContentVersion() : published.contentVersion();
        write(
                published
                        .withOffsets(offsets, version, caughtUp, generation.contentDigest(), currentAsOfMillis)
                        .withWriterState(Manifest.WriterState.CLOSED, currentAsOfMillis),
                true);
        generation.close();
        retryCleanUp();
        close();
    }

    /**
     * Deletes old generation files whose deletion failed earlier, at most once a second; never throws (a failure is a
     * rate-limited WARN and is retried on the next call). Cheap when nothing is due.
     */
    public void retryCleanUp() {
        oldGenerations.retry();
    }

    /** Releases the namespace without marking it closed (the next writer will rebuild). */
    @Override
    public void close() throws IOException {
        lock.close();
    }

    private long nextContentVersion() {
        // Wall-clock based so that versions keep increasing even if a namespace directory is deleted and rebuilt.
        long previous = published == null ? 0 : published.contentVersion();
        return Math.max(previous + 1, System.currentTimeMillis() * 1000);
    }

    /** Records {@code name=value} among the published manifest's attributes (a setting learnt after it was built). */
    public void recordAttribute(String name, String value) throws IOException {
        requirePublished();
        if (!value.equals(published.attributes().get(name))) {
            // updated.at unchanged: it says how current the offsets are, and they did not move
            write(published.withAttribute(name, value, published.updatedAtMillis()), true);
        }
    }

    /** The namespace's directory, which this writer owns. */
    Path directory() {
        return layout.namespaceDir(namespace);
    }

    StorePermissions permissions() {
        return permissions;
    }

    /** Replaces this namespace's {@link SkippedRecordsFile} with {@code lines}. */
    public void writeSkippedRecords(java.util.List<String> lines) throws IOException {
        SkippedRecordsFile.write(directory(), permissions, lines);
    }

    /** Publishes a snapshot's manifest whose files {@link Snapshots#seed} copied into this namespace and checked. */
    void publishSeeded(Manifest snapshot) throws IOException {
        if (published != null) {
            throw new IllegalStateException("Namespace '" + namespace + "' is published already; never seeded over");
        }
        write(snapshot, true);
    }

    private void write(Manifest manifest, boolean durable) throws IOException {
        ManifestFiles.write(manifest, layout.manifest(namespace), permissions, durable);
        published = manifest;
        if (durable) {
            openMarkPending = false; // every manifest written after resume() says open; only a durable one counts
        }
    }

    private void requirePublished() {
        if (published == null) {
            throw new IllegalStateException("Namespace '" + namespace + "' has no published generation yet");
        }
    }

    private Path dataFile(Manifest manifest) {
        return directory().resolve(manifest.dataFile());
    }
}
