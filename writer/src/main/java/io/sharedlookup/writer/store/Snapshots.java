package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seeding a new host from a peer instead of replaying the topic (issue "Many hosts", item 3).
 *
 * <p>{@link #take} writes a snapshot of a namespace while its writer runs: a one-namespace store holding a new
 * generation filled through reader-lib (no lock, nothing the live writer waits for) and a manifest recording it as
 * cleanly closed at the offsets the live manifest had <em>before</em> the copy began, with the digest of what was copied.
 * Each key's copied value is its value after applying its partition up to some position at or past those offsets, so
 * a writer resuming from them and replaying the topic in order ends with every key at its latest value: the snapshot
 * is consistent for resuming even though it is not one point in time.
 *
 * <p>{@link #seed} copies a snapshot's files into an empty namespace of a store, with the store's file modes, checks
 * them and publishes them; the writer then resumes from the snapshot's offsets as after a clean stop (or rebuilds
 * from the topic when they are no longer on the broker).
 */
public final class Snapshots {
    private static final Logger log = LoggerFactory.getLogger(Snapshots.class);
    private static final java.time.Duration SCAN_BOUND = java.time.Duration.ofSeconds(30);
    /** A namespace that outgrows this many copies in a row is changing too fast to snapshot now. */
    private static final int MAX_COPIES = 5;

    private Snapshots() {}

    /** What a snapshot holds. */
    public record Taken(Path dir, long entries, long digest, Manifest manifest) {}

    /**
     * Snapshots {@code namespace} of {@code store} into {@code out}, which must not exist or be empty.
     *
     * @throws IOException when the snapshot cannot be written
     */
    public static Taken take(Path store, String namespace, Path out, StorePermissions permissions) throws IOException {
        return take(store, namespace, out, permissions, () -> {});
    }

    /** {@link #take}, with {@code afterCounting} run between the counting pass and the copy (for tests). */
    static Taken take(Path store, String namespace, Path out, StorePermissions permissions, Runnable afterCounting)
            throws IOException {
        NamespaceNames.requireValid(namespace);
        if (Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
            try (var entries = Files.list(out)) {
                if (entries.findAny().isPresent()) {
                    throw new IOException("Snapshot directory " + out + " is not empty: pass a new directory");
                }
            }
        }
        Manifest before = Manifest.read(new StoreLayout(store).manifest(namespace));
        // A scan waits for a quiet moment in each segment; a busy writer may keep one changing for a while, and a
        // snapshot is not latency-bound: allow it seconds rather than a lookup's 50 ms.
        try (SharedLookupStore reader =
                SharedLookupStore.builder(store).lockTimeout(SCAN_BOUND).open()) {
            Lookup source = reader.lookup(namespace);
            EntrySizes counts = new EntrySizes();
            source.forEach(counts::countStored);
            GenerationSizing sizing = counts.forCopy();
            afterCounting.run();
            try (NamespaceDirectory writer = NamespaceDirectory.open(
                    new StoreLayout(out), namespace, permissions, Instant.now().getEpochSecond() - 1)) {
                for (int attempt = 1; ; attempt++) {
                    GenerationFile generation =
                            writer.createGeneration(sizing, NamespaceDirectory.hasReverseIndex(before));
                    GenerationSizing bigger;
                    try {
                        bigger = copy(source, generation, sizing);
                        if (bigger == null) {
                            return publish(writer, generation, before, out.resolve(namespace));
                        }
                    } catch (IOException | RuntimeException e) {
                        generation.close();
                        throw e;
                    }
                    // The namespace changed between the passes (grew past what the count allowed for, or took a
                    // larger value): the copy starts again in a generation sized for what it found.
                    writer.discard(generation);
                    if (attempt == MAX_COPIES) {
                        throw new IOException("Namespace '" + namespace + "' kept outgrowing its snapshot while "
                                + "it was copied (" + attempt + " tries); take the snapshot again when it is quieter");
                    }
                    log.info(
                            "Namespace '{}': grew while its snapshot was copied; copying again into a generation "
                                    + "for {} entries",
                            namespace,
                            bigger.entries());
                    sizing = bigger;
                }
            }
        }
    }

    /**
     * Copies {@code source} into {@code generation}.
     *
     * @return null when every entry was copied; otherwise, the copy having stopped because the generation has no
     *         room left or refused an entry as too large, the sizing to copy into instead
     */
    private static GenerationSizing copy(Lookup source, GenerationFile generation, GenerationSizing sizing) {
        long[] seen = {0, 0};
        try {
            source.forEach((k, v) -> {
                try {
                    generation.put(k, v, TimeUnit.SECONDS.toNanos(1));
                    seen[0]++;
                } catch (EntryTooLargeException e) {
                    seen[1] = EntrySizes.bytesOf(k, v);
                    throw e;
                }
            });
            return null;
        } catch (EntryTooLargeException e) {
            return sizing.withLargestEntry(seen[1]);
        } catch (TiersExhaustedException e) {
            return sizing.grownFor(seen[0], sizing.averageKeyBytes(), sizing.averageValueBytes());
        }
    }

    private static Taken publish(NamespaceDirectory writer, GenerationFile generation, Manifest before, Path dir)
            throws IOException {
        writer.publish(generation, before.topic(), before.offsets(), before.caughtUp(), before.attributes());
        long entries = generation.size();
        long digest = generation.contentDigest();
        // The source's updated.at, not now: the offsets are as current as the source knew them to be, and a host
        // seeded from this snapshot measures their age against delete.retention.ms.
        writer.closeCleanly(generation, before.offsets(), before.caughtUp(), false, before.updatedAtMillis());
        return new Taken(dir, entries, digest, writer.published().orElseThrow());
    }

    /**
     * When {@code writer}'s namespace has nothing in its store and {@code snapshotDir} holds a snapshot of it, copies
     * the snapshot's files into the namespace and checks them (the manifest's layout describes the files, the entries
     * give the manifest's digest, the reverse index lists every key under its value) before publishing the snapshot's
     * manifest: readers never see a snapshot that fails a check. The writer's lock on the namespace is held throughout.
     *
     * @param refusal why a snapshot must not seed this namespace (built from another topic or with other settings),
     *                or empty when it may
     * @return whether it seeded the namespace; false when the store has it or the directory holds no snapshot of it
     * @throws IOException when the snapshot cannot be used; nothing is published and nothing copied is left behind
     */
    public static boolean seed(
            Path snapshotDir, NamespaceDirectory writer, Function<Manifest, Optional<String>> refusal)
            throws IOException {
        String namespace = writer.namespace();
        if (writer.published().isPresent() || writer.rebuildReason().isPresent()) {
            return false; // never over a namespace the store already has
        }
        if (Files.notExists(snapshotDir)) {
            log.warn(
                    "Namespace '{}': the seed directory {} does not exist; it is built from its topic",
                    namespace,
                    snapshotDir);
            return false;
        }
        Path sourceManifest = new StoreLayout(snapshotDir).manifest(namespace);
        if (!Files.isRegularFile(sourceManifest, LinkOption.NOFOLLOW_LINKS)) {
            if (Files.isRegularFile(snapshotDir.resolve(StoreLayout.MANIFEST), LinkOption.NOFOLLOW_LINKS)) {
                log.warn(
                        "Namespace '{}': {} is a namespace's directory, not a snapshot: --seed takes the directory "
                                + "given to the snapshot command (its parent); the namespace is built from its topic",
                        namespace,
                        snapshotDir);
            } else {
                log.info("Namespace '{}': no snapshot of it in {}; it is built from its topic", namespace, snapshotDir);
            }
            return false;
        }
        Manifest snapshot = Manifest.read(sourceManifest);
        if (snapshot.writerState() != Manifest.WriterState.CLOSED || snapshot.contentDigest() == null) {
            throw new IOException("Snapshot " + sourceManifest + " is not a finished snapshot (no clean close or no "
                    + "digest): take it again with the writer's 'snapshot' command");
        }
        Optional<String> refused = refusal.apply(snapshot);
        if (!snapshot.namespace().equals(namespace) || refused.isPresent()) {
            throw new IOException("Snapshot " + sourceManifest + " cannot seed namespace '" + namespace + "': "
                    + refused.orElse("it is a snapshot of namespace '" + snapshot.namespace() + "'")
                    + "; take one on a host whose writer reads the same topic with the same settings");
        }
        Path sourceData = snapshotDir.resolve(namespace).resolve(snapshot.dataFile());
        List<Path> sources = new ArrayList<>(List.of(sourceData, SequenceFile.of(sourceData)));
        if (NamespaceDirectory.hasReverseIndex(snapshot)) {
            sources.add(StoreLayout.reverseIndexFile(sourceData));
            sources.add(SequenceFile.of(StoreLayout.reverseIndexFile(sourceData)));
        }
        Path targetDir = writer.directory();
        List<Path> written = new ArrayList<>();
        try {
            for (Path source : sources) {
                written.add(copy(source, targetDir, writer.permissions()));
            }
            check(targetDir.resolve(snapshot.dataFile()), snapshot);
            writer.publishSeeded(snapshot);
        } catch (IOException | RuntimeException e) {
            for (Path f : written) {
                Files.deleteIfExists(f);
            }
            throw e;
        }
        log.info(
                "Namespace '{}': seeded from snapshot {} (generation {}, offsets {}, digest {})",
                namespace,
                snapshotDir,
                snapshot.generation(),
                snapshot.offsets(),
                ContentDigest.hex(snapshot.contentDigest()));
        return true;
    }

    /**
     * Copies {@code source} (a regular file, never followed if it is a link: a pipe would block the copy for good)
     * into {@code targetDir} under its name, with the store's modes and on disk before it is renamed into place.
     */
    private static Path copy(Path source, Path targetDir, StorePermissions permissions) throws IOException {
        BasicFileAttributes a = Files.readAttributes(source, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new IOException("Snapshot file " + source + " is not a regular file: take the snapshot again");
        }
        Path target = targetDir.resolve(source.getFileName());
        Path partial = targetDir.resolve(source.getFileName() + ".seeding");
        Files.deleteIfExists(partial);
        try {
            permissions.createFile(partial);
            Files.copy(source, partial, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
            permissions.applyToFile(partial);
            try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                ch.force(true); // on disk before the manifest that names it (which is fsynced with its directory)
            }
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        return target;
    }

    /**
     * The copied generation is what its manifest says: Chronicle opens it with the manifest's layout, its entries give
     * the manifest's digest, and its reverse index (if any) lists every key under its value. Damage on the way between
     * hosts, or a snapshot put together by hand, fails here.
     */
    private static void check(Path data, Manifest snapshot) {
        try (GenerationFile g =
                GenerationFile.open(data, snapshot.capacity(), NamespaceDirectory.hasReverseIndex(snapshot))) {
            if (!g.layout().equals(snapshot.layout()) || !Objects.equals(g.reverseLayout(), snapshot.reverseLayout())) {
                throw new StoreFormatException("Snapshot generation " + data.getFileName() + " does not have the "
                        + "layout its manifest gives readers; take the snapshot again");
            }
            long scanned = g.scanDigest();
            if (scanned != snapshot.contentDigest()) {
                throw new StoreFormatException("Snapshot generation " + data.getFileName() + " gives content digest "
                        + ContentDigest.hex(scanned) + " but its manifest says "
                        + ContentDigest.hex(snapshot.contentDigest())
                        + " (damaged on the way?); take the snapshot again");
            }
            if (g.hasReverseIndex()) {
                String[] unlisted = {null};
                g.forEachWhile(
                        (k, v) -> {
                            Optional<List<String>> keys = g.keysOf(v, SCAN_BOUND.toNanos());
                            if (keys.isPresent() && !keys.get().contains(k.toString())) {
                                unlisted[0] = k.toString();
                            }
                            return unlisted[0] == null;
                        },
                        SCAN_BOUND.toNanos());
                if (unlisted[0] != null) {
                    throw new StoreFormatException("Snapshot reverse index of " + data.getFileName() + " does not list "
                            + "key '" + unlisted[0] + "' under its value; take the snapshot again");
                }
            }
        }
    }
}
