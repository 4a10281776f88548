package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.*;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;

/**
 * Permissions given to store files and directories. The default, 0640 files and 0750 directories, lets reader
 * processes in the writer's group map the files while keeping everyone else out; store files are never
 * world-writable, whatever is configured, and the owner (the writer) always keeps rw on files and rwx on
 * directories.
 *
 * <p>Inside the store nothing is followed: files are created exclusively ({@code O_EXCL}) with their final mode as
 * the creation mode (so there is no moment with the umask's wider one), opened and given their mode with
 * {@code NOFOLLOW_LINKS}; a namespace directory that is a link, or a store or namespace directory that is
 * world-writable, is refused with {@link UnsafeStoreException}.
 */
public record StorePermissions(Set<PosixFilePermission> file, Set<PosixFilePermission> directory) {
    /** Default mode of the files a writer creates: the group can read. */
    public static final String DEFAULT_FILE_MODE = "0640";
    /** Default mode of the directories a writer creates. */
    public static final String DEFAULT_DIRECTORY_MODE = "0750";

    public static final StorePermissions DEFAULT = parse(DEFAULT_FILE_MODE, DEFAULT_DIRECTORY_MODE);

    public StorePermissions {
        file = Set.copyOf(file);
        directory = Set.copyOf(directory);
        requireFileMode(file);
        requireDirectoryMode(directory);
    }

    /** Parses {@code rw-r-----} style or octal ({@code 0640}) modes. */
    public static StorePermissions parse(String fileMode, String directoryMode) {
        return new StorePermissions(mode(fileMode), mode(directoryMode)); // the constructor checks both
    }

    /**
     * Parses and checks a file mode on its own, so that a command line can say which option is wrong.
     *
     * @throws IllegalArgumentException with a one-line fix when it is malformed or cannot work
     */
    public static Set<PosixFilePermission> fileMode(String text) {
        return requireFileMode(mode(text));
    }

    /**
     * Parses and checks a directory mode on its own.
     *
     * @throws IllegalArgumentException with a one-line fix when it is malformed or cannot work
     */
    public static Set<PosixFilePermission> directoryMode(String text) {
        return requireDirectoryMode(mode(text));
    }

    /*
     * The writer owns what it creates and keeps writing it: it maps generations read-write and rewrites manifests, so
     * a file mode without owner rw fails every generation with EACCES (never ready), and a directory mode without
     * owner rwx fails the first file created in it. Refused up front instead.
     */

    private static Set<PosixFilePermission> requireFileMode(Set<PosixFilePermission> mode) {
        requireNotWorldWritable(mode, "files");
        if (!mode.containsAll(EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE))) {
            throw new IllegalArgumentException("Store files must be readable and writable by their owner, the writer "
                    + "(it maps them read-write), and " + PosixFilePermissions.toString(mode) + " is not: give the "
                    + "owner rw, e.g. 0640");
        }
        return mode;
    }

    private static Set<PosixFilePermission> requireDirectoryMode(Set<PosixFilePermission> mode) {
        requireNotWorldWritable(mode, "directories");
        if (!mode.containsAll(EnumSet.of(
                PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE))) {
            throw new IllegalArgumentException("Store directories must be readable, writable and searchable by their "
                    + "owner, the writer (it creates files in them), and " + PosixFilePermissions.toString(mode)
                    + " is not: give the owner rwx, e.g. 0750");
        }
        return mode;
    }

    private static void requireNotWorldWritable(Set<PosixFilePermission> mode, String what) {
        if (mode.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IllegalArgumentException("Store " + what + " must not be world-writable: drop the 'others "
                    + "write' bit from the configured permissions");
        }
    }

    static Set<PosixFilePermission> mode(String text) {
        String t = text.trim();
        if (t.matches("0?[0-7]{3}")) {
            int bits = Integer.parseInt(t, 8);
            StringBuilder sym = new StringBuilder();
            for (int shift = 6; shift >= 0; shift -= 3) {
                int b = (bits >> shift) & 7;
                sym.append((b & 4) != 0 ? 'r' : '-')
                        .append((b & 2) != 0 ? 'w' : '-')
                        .append((b & 1) != 0 ? 'x' : '-');
            }
            t = sym.toString();
        }
        try {
            return PosixFilePermissions.fromString(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Invalid permission mode '" + text + "': use octal like 0640 or rw-r-----");
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /** Gives {@code file} the file mode, without following a link: a link there fails instead of changing its target. */
    public void applyToFile(Path file) throws IOException {
        apply(file, file());
    }

    private static void apply(Path path, Set<PosixFilePermission> mode) throws IOException {
        if (posix()) {
            Files.getFileAttributeView(path, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .setPermissions(mode);
        }
    }

    /** The file mode as a creation attribute (none where POSIX modes are not supported). */
    public FileAttribute<?>[] fileAttributes() {
        return creationAttributes(file());
    }

    private static FileAttribute<?>[] creationAttributes(Set<PosixFilePermission> mode) {
        return posix() ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)} : new FileAttribute<?>[0];
    }

    /**
     * Creates {@code file}, which must not exist (nor be a link), with the file mode from the start: the umask can
     * only narrow the creation mode, and the mode is then set exactly.
     */
    public Path createFile(Path file) throws IOException {
        Files.createFile(file, fileAttributes());
        applyToFile(file);
        return file;
    }

    /**
     * Opens {@code file} for writing, creating it with the file mode when missing; a link there is refused rather
     * than followed.
     */
    public FileChannel openOrCreate(Path file) throws IOException {
        Set<OpenOption> options =
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        FileChannel channel = FileChannel.open(file, options, fileAttributes());
        try {
            applyToFile(file);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
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

    /**
     * Creates or checks a directory the writer keeps its files in (a namespace directory): a new one gets the
     * directory mode from the start; an existing one must be a real directory, not a link, and not world-writable.
     *
     * @throws UnsafeStoreException when it is a link, not a directory, or world-writable
     */
    public Path createOwnDirectory(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, creationAttributes(directory()));
                apply(dir, directory());
            } catch (FileAlreadyExistsException e) {
                // created meanwhile: checked below like any existing one
            }
        }
        BasicFileAttributes attributes =
                Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (attributes.isSymbolicLink()) {
            throw new UnsafeStoreException("Namespace directory " + dir + " is a symbolic link, and the writer never "
                    + "follows links inside the store: replace it with a real directory (or point --store-dir at the "
                    + "real location)");
        }
        if (!attributes.isDirectory()) {
            throw new UnsafeStoreException(dir + " is not a directory: move it out of the store directory");
        }
        requireNotWorldWritable(dir, "Namespace directory", LinkOption.NOFOLLOW_LINKS);
        return dir;
    }

    /**
     * Refuses a world-writable directory: anyone could replace the files in it.
     *
     * @param what "Store directory", "Namespace directory"...
     * @throws UnsafeStoreException when it is world-writable
     */
    public static void requireNotWorldWritable(Path dir, String what, LinkOption... options) throws IOException {
        if (!posix()) {
            return;
        }
        PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class, options);
        if (attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
            Set<PosixFilePermission> fixed = new HashSet<>(attributes.permissions());
            fixed.remove(PosixFilePermission.OTHERS_WRITE);
            String fix = SharedDirectories.isShared(dir, attributes)
                    ? "use a directory of your own below it, e.g. --store-dir " + dir.resolve("shared-lookup")
                            + " (the writer creates it, not world-writable); never change the mode of a shared directory"
                    : "run chmod o-w " + dir + " (" + PosixFilePermissions.toString(fixed) + ")";
            throw new UnsafeStoreException(what + " " + dir + " is world-writable ("
                    + PosixFilePermissions.toString(attributes.permissions()) + "), so anyone could replace store "
                    + "files: " + fix);
        }
    }
}
