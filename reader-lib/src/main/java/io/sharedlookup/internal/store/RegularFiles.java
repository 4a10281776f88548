package io.sharedlookup.internal.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Opens a store file for reading only when it is a regular file, without following a link. Opening a FIFO for reading
 * blocks until some process opens it for writing, which may be never: the refresh thread that tried would hang, and
 * with it every namespace of the store. A symbolic link or a directory is no file the writer made either. The file's
 * type is checked before it is opened and its identity after, so that a file swapped in between is refused too; a
 * FIFO swapped in within that instant can still block the open (Java has no non-blocking open), which no writer does.
 */
final class RegularFiles {
    private RegularFiles() {}

    /**
     * A read-only channel to {@code file}.
     *
     * @param what what the file is, for the message ("Generation file", "Sequence file")
     * @throws StoreFormatException in one line when it is not a regular file
     * @throws IOException          when it cannot be opened (missing, no permission)
     */
    static FileChannel openForReading(Path file, String what) throws IOException {
        Object key = requireRegular(file, what);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        try {
            if (!Objects.equals(key, fileKey(file))) {
                throw new IOException(file + " was replaced while it was being opened");
            }
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The identity (device and inode on Linux) of {@code file} itself, not of what a link there names. */
    static Object fileKey(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
    }

    /** Returns the identity of {@code file} after checking that it is a regular file. */
    private static Object requireRegular(Path file, String what) throws IOException {
        BasicFileAttributes attributes =
                Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
            throw new StoreFormatException(what + " " + file + " is not a regular file but " + kind(attributes)
                    + "; the reader keeps serving the last good generation: remove it and let the writer publish a "
                    + "new generation (or delete the namespace directory and let the writer rebuild it)");
        }
        return attributes.fileKey();
    }

    private static String kind(BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link (store files are never links)";
        }
        if (attributes.isDirectory()) {
            return "a directory";
        }
        return "a FIFO, socket or device (opening it could block for ever)";
    }
}
