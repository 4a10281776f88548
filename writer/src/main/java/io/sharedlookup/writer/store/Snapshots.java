package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * <p>{@link #seed} copies a snapshot's files into an empty namespace of a store, with the store's file modes; the
 * writer then resumes from the snapshot's offsets as after a clean stop (or rebuilds from the topic when they are no
 * longer on the broker), after checking that the copied entries still give the snapshot's digest.
 */
public final class Snapshots {
    private static final Logger log = LoggerFactory.getLogger(Snapshots.class);
    private static final java.time.Duration SCAN_BOUND = java.time.Duration.ofSeconds(30);

    private Snapshots() {
    }

    /** What a snapshot holds. */
    public record Taken(Path dir, long entries, long digest, Manifest manifest) {
    }

    /**
     * Snapshots {@code namespace} of {@code store} into {@code out}, which must not exist or be empty.
     *
     * @throws IOException when the snapshot cannot be written
     */
    public static Taken take(Path store, String namespace, Path out, StorePermissions permissions) throws IOException {
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
        try (SharedLookupStore reader = SharedLookupStore.builder(store).lockTimeout(SCAN_BOUND).open()) {
            Lookup source = reader.lookup(namespace);
            long[] totals = {0, 0, 0};
            source.forEach((k, v) -> {
                totals[0]++;
                totals[1] += k.length();
                totals[2] += v.length();
            });
            long n = Math.max(1, totals[0]);
            GenerationSizing sizing = GenerationSizing.forExpected(totals[0], (double) totals[1] / n * 1.2,
                    (double) totals[2] / n * 1.2);
            try (NamespaceWriter writer = NamespaceWriter.open(new StoreLayout(out), namespace, permissions,
                    Instant.now().getEpochSecond() - 1)) {
                GenerationFile generation = writer.createGeneration(sizing, NamespaceWriter.hasReverseIndex(before));
                try {
                    source.forEach((k, v) -> generation.put(k, v, TimeUnit.SECONDS.toNanos(1)));
                    writer.publish(generation, before.topic(), before.offsets(), before.caughtUp(),
                            before.attributes());
                    long entries = generation.size();
                    long digest = generation.contentDigest();
                    writer.closeCleanly(generation, before.offsets(), before.caughtUp(), false);
                    return new Taken(out.resolve(namespace), entries, digest, writer.published().orElseThrow());
                } catch (IOException | RuntimeException e) {
                    generation.close();
                    throw e;
                }
            }
        }
    }

    /**
     * When {@code namespace} has no manifest in {@code layout}'s store and {@code snapshotDir} holds a snapshot of it,
     * copies the snapshot's published files and manifest there with the store's modes.
     *
     * @return whether it seeded the namespace
     */
    public static boolean seed(Path snapshotDir, StoreLayout layout, String namespace, StorePermissions permissions)
            throws IOException {
        Path targetManifest = layout.manifest(namespace);
        if (Files.exists(targetManifest, LinkOption.NOFOLLOW_LINKS)) {
            return false; // never over a namespace the store already has
        }
        StoreLayout from = new StoreLayout(snapshotDir);
        Path sourceManifest = from.manifest(namespace);
        if (!Files.isRegularFile(sourceManifest, LinkOption.NOFOLLOW_LINKS)) {
            log.info("Namespace '{}': no snapshot of it in {}; it is built from its topic", namespace, snapshotDir);
            return false;
        }
        Manifest snapshot = Manifest.read(sourceManifest);
        if (snapshot.writerState() != Manifest.WriterState.CLOSED || snapshot.contentDigest() == null) {
            throw new IOException("Snapshot " + sourceManifest + " is not a finished snapshot (no clean close or no "
                    + "digest): take it again with the writer's 'snapshot' command");
        }
        // As the writer creates a store: the root with the store's directory mode, never world-writable.
        StorePermissions.requireNotWorldWritable(permissions.createDirectory(layout.storeDir()), "Store directory");
        Path targetDir = permissions.createOwnDirectory(layout.namespaceDir(namespace));
        List<Path> files = new ArrayList<>();
        Path data = from.namespaceDir(namespace).resolve(snapshot.dataFile());
        files.add(data);
        files.add(SequenceFile.of(data));
        if (NamespaceWriter.hasReverseIndex(snapshot)) {
            files.add(StoreLayout.reverseIndexFile(data));
            files.add(SequenceFile.of(StoreLayout.reverseIndexFile(data)));
        }
        for (Path f : files) {
            Path target = targetDir.resolve(f.getFileName());
            Path partial = targetDir.resolve(f.getFileName() + ".seeding");
            Files.deleteIfExists(partial);
            permissions.createFile(partial);
            Files.copy(f, partial, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
            permissions.applyToFile(partial);
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        // The manifest last: until it exists, the namespace is empty and a failed seed leaves nothing half-done
        // that a reader or the next start would take for a store.
        ManifestFiles.write(snapshot, targetManifest, permissions, true);
        log.info("Namespace '{}': seeded from snapshot {} (generation {}, offsets {}, digest {})", namespace,
                snapshotDir, snapshot.generation(), snapshot.offsets(), ContentDigest.hex(snapshot.contentDigest()));
        return true;
    }
}
