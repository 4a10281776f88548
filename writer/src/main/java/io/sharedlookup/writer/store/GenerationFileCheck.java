package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.StoreFormatException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Refuses a generation file that is not whole before Chronicle Map sees it: given a missing or empty file Chronicle
 * would create a fresh map with default settings in its place, and given a truncated header it may fail in ways that
 * do not say so. A published generation is always complete, so any of these means damage: the writer rebuilds.
 */
final class GenerationFileCheck {
    private GenerationFileCheck() {}

    /**
     * @throws StoreFormatException when {@code file} is missing, not a regular file (a symbolic link is never
     *                              followed), empty, or has an incomplete header
     */
    static void requireWhole(Path file) {
        long size;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isRegularFile()) {
                throw new StoreFormatException("Generation file " + file + " is not a regular file ("
                        + (a.isSymbolicLink() ? "a symbolic link, never followed" : "a directory or device")
                        + "); the writer rebuilds it from the topic");
            }
            size = a.size();
        } catch (IOException e) {
            throw new StoreFormatException("Generation file " + file + " cannot be read: " + e, e);
        }
        if (size == 0) {
            throw new StoreFormatException("Generation file " + file + " is empty; the writer rebuilds it");
        }
        requireCompleteHeader(file, size);
    }

    /** An incomplete header means corruption (a published generation is always complete): refuse at once. */
    private static void requireCompleteHeader(Path file, long size) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            MappedMap.requireCompleteHeader(ch, file, size);
        } catch (IOException e) {
            throw new StoreFormatException("Generation file " + file + " cannot be read: " + e, e);
        }
    }
}
