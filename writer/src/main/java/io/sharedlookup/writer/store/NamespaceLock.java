package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The OS file lock on a namespace's {@code writer.lock} that makes one writer the namespace's owner. The OS releases
 * it when the process dies, even by kill -9, so a crashed writer never keeps the next one out; a second live writer
 * is refused. Kept apart from {@link NamespaceDirectory} because taking it safely (never through a link, never
 * blocking on a FIFO, never leaking the channel) is its own small protocol.
 */
final class NamespaceLock implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;

    private NamespaceLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock on {@code lockFile}, creating the file if needed.
     *
     * @throws IllegalStateException  when another live writer holds it
     * @throws UnsafeStoreException   when {@code lockFile} is a link or not a regular file
     * @throws IOException            when the file cannot be created or opened
     */
    static NamespaceLock take(Path lockFile, String namespace, StorePermissions permissions) throws IOException {
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
        return new NamespaceLock(channel, lock);
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

    /** Releases the namespace: the next writer may take it. */
    @Override
    public void close() throws IOException {
        try {
            if (lock.isValid()) {
                lock.release();
            }
        } finally {
            channel.close();
        }
    }
}
