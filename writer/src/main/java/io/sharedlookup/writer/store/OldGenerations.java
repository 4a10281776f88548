package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.internal.store.StoreLayout;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A namespace directory's generation files other than the published one: those a publish leaves behind (deleted,
 * and retried at most once a second while a deletion fails, with a rate-limited WARN) and those a killed writer left
 * (deleted at start). Readers are never affected: they keep what they mapped.
 */
final class OldGenerations {
    private static final Logger log = LoggerFactory.getLogger(NamespaceDirectory.class);
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Path dir;
    private final String namespace;
    private final RateLimitedLog warnings = new RateLimitedLog(log, 60_000);
    /** GenerationLife below this are to be deleted; 0 when nothing is due. */
    private long deleteBelow;

    private long nextAttempt;

    OldGenerations(Path dir, String namespace) {
        this.dir = dir;
        this.namespace = namespace;
    }

    /** The highest generation number of any generation file in {@code dir}; 0 when there is none. */
    static long highestIn(Path dir) throws IOException {
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

    long highest() throws IOException {
        return highestIn(dir);
    }

    /** Every generation numbered below {@code keepFrom} goes, now and on later retries while a deletion fails. */
    void deleteBelow(long keepFrom) {
        deleteBelow = Math.max(deleteBelow, keepFrom);
        nextAttempt = System.nanoTime();
        retry();
    }

    /** Deletes what is due, at most once a second; never throws. Cheap when nothing is due. */
    void retry() {
        if (deleteBelow == 0 || System.nanoTime() - nextAttempt < 0) {
            return;
        }
        nextAttempt = System.nanoTime() + RETRY_NANOS;
        try {
            if (deleteGenerations(g -> g < deleteBelow, "old generation file", "retrying; readers are not affected")) {
                deleteBelow = 0;
            }
        } catch (IOException | RuntimeException e) {
            warnings.warn(
                    "Namespace '{}': cannot list {} to delete old generations (retrying): {}",
                    namespace,
                    dir,
                    e.toString());
        }
    }

    /**
     * At start: removes what a killed writer may have left, generations numbered above {@code current} (half-built)
     * and temporary manifests. A failure is harmless where it is: new generations are numbered above every file.
     */
    void deleteLeftovers(long current) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                OptionalLong g = StoreLayout.generationOfAnyFile(name);
                if ((g.isPresent() && g.getAsLong() > current) || name.startsWith(StoreLayout.MANIFEST + ".tmp-")) {
                    delete(f, "leftover", "harmless: new generations are numbered above it");
                }
            }
        }
    }

    private boolean deleteGenerations(java.util.function.LongPredicate which, String what, String consequence)
            throws IOException {
        boolean all = true;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                OptionalLong g = StoreLayout.generationOfAnyFile(f.getFileName().toString());
                if (g.isPresent() && which.test(g.getAsLong())) {
                    all &= delete(f, what, consequence);
                }
            }
        }
        return all;
    }

    private boolean delete(Path f, String what, String consequence) {
        try {
            Files.deleteIfExists(f);
            return true;
        } catch (IOException e) {
            warnings.warn(
                    "Namespace '{}': cannot delete {} {} ({}): {}", namespace, what, f, consequence, e.toString());
            return false;
        }
    }
}
