package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The temporary folders of {@link ChronicleLayoutProbe} in a store directory. A writer killed during its probe (kill -9,
 * an OOM kill) leaves its folder, with a probe map of a few hundred KiB, behind; each probe deletes such stale folders
 * first. Several writers (one per namespace) may share a store directory and start together, so a folder is stale only
 * when no process holds the lock on its {@code owner.lock} file (the OS releases it when its process dies), or, for a
 * folder made by a writer killed before it took that lock, when it is older than {@link #UNCLAIMED_GRACE}.
 */
final class ProbeFolders {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeFolders.class);
    static final String PREFIX = ".layout-probe-";
    private static final String LOCK = "owner.lock";
    /** Far longer than the moment between making a folder and locking it. */
    static final Duration UNCLAIMED_GRACE = Duration.ofMinutes(1);

    private ProbeFolders() {}

    /** The lock that marks a probe folder as in use, held by the probe until it has deleted the folder. */
    static final class Claim implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;

        private Claim(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }

        @Override
        public void close() throws IOException {
            try {
                lock.release();
            } finally {
                channel.close();
            }
        }
    }

    /** Marks {@code probeDir} as in use by this process until the claim is closed. */
    static Claim claim(Path probeDir) throws IOException {
        FileChannel channel =
                FileChannel.open(probeDir.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            return new Claim(channel, channel.lock());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Deletes the probe folders in {@code storeDir} that no live process is using; never fails the start for them. */
    static void deleteStale(Path storeDir) {
        try (var entries = Files.newDirectoryStream(storeDir, PREFIX + "*")) {
            for (Path folder : entries) {
                if (Files.isDirectory(folder, java.nio.file.LinkOption.NOFOLLOW_LINKS) && isStale(folder)) {
                    delete(folder);
                    LOG.info("Deleted {}, left by a writer that stopped during its layout probe", folder);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Could not delete stale layout probe folders in {}: {} (delete them by hand; nothing uses them)",
                    storeDir,
                    e.toString());
        }
    }

    private static boolean isStale(Path folder) throws IOException {
        Path lockFile = folder.resolve(LOCK);
        if (!Files.exists(lockFile)) {
            Instant made = Files.getLastModifiedTime(folder).toInstant();
            return made.isBefore(Instant.now().minus(UNCLAIMED_GRACE));
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                return false; // another process is probing in it
            }
            lock.release();
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // this process is probing in it
        } catch (NoSuchFileException e) {
            return false; // its probe just finished and deleted it
        }
    }

    /** Deletes {@code folder} and the files in it (a probe folder has no subfolders). */
    static void delete(Path folder) throws IOException {
        try (var files = Files.list(folder)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException e) {
            return;
        }
        Files.deleteIfExists(folder);
    }
}
