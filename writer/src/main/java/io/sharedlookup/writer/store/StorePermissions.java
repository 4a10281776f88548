package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.*;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Permissions given to store files and directories. The default, 0640 files and 0750 directories, lets reader
 * processes in the writer's group map the files while keeping everyone else out; store files are never
 * world-writable, whatever is configured.
 */
public record StorePermissions(Set<PosixFilePermission> file, Set<PosixFilePermission> directory) {
    public static final StorePermissions DEFAULT = parse("rw-r-----", "rwxr-x---");

    public StorePermissions {
        file = Set.copyOf(file);
        directory = Set.copyOf(directory);
        if (file.contains(PosixFilePermission.OTHERS_WRITE) || directory.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IllegalArgumentException("Store files and directories must not be world-writable: drop the "
                    + "'others write' bit from the configured permissions");
        }
    }

    /** Parses {@code rw-r-----} style or octal ({@code 0640}) modes. */
    public static StorePermissions parse(String fileMode, String directoryMode) {
        return new StorePermissions(mode(fileMode), mode(directoryMode));
    }

    static Set<PosixFilePermission> mode(String text) {
        String t = text.trim();
        if (t.matches("0?[0-7]{3}")) {
            int bits = Integer.parseInt(t, 8);
            StringBuilder sym = new StringBuilder();
            for (int shift = 6; shift >= 0; shift -= 3) {
                int b = (bits >> shift) & 7;
                sym.append((b & 4) != 0 ? 'r' : '-').append((b & 2) != 0 ? 'w' : '-').append((b & 1) != 0 ? 'x' : '-');
            }
            t = sym.toString();
        }
        try {
            return PosixFilePermissions.fromString(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid permission mode '" + text + "': use octal like 0640 or rw-r-----");
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    public void applyToFile(Path file) throws IOException {
        if (posix()) {
            Files.setPosixFilePermissions(file, file());
        }
    }

    /** Creates {@code dir} (and missing parents) and gives it the directory permissions. */
    public Path createDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            if (posix()) {
                Files.setPosixFilePermissions(dir, directory());
            }
        }
        return dir;
    }
}
