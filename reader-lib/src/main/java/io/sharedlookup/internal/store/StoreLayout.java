package io.sharedlookup.internal.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where things live in a store directory.
 *
 * <pre>
 * storeDir/
 *   users/                       one directory per namespace (validated name)
 *     manifest.properties        the published generation and its metadata; replaced atomically
 *     g0000000007.cmap           a generation: one Chronicle Map file
 *     g0000000007.seq            its sequence file: one change counter per segment (format version 2)
 *     g0000000007.rev.cmap       its reverse index (value to keys), when the writer keeps one
 *     g0000000007.rev.seq        the reverse index's sequence file
 *     g0000000008.cmap           a generation being built: invisible until a manifest names it
 *     writer.lock                held (OS file lock) by the one writer of this namespace
 *     skipped-records.tsv        the last records the writer skipped, for inspect; readers ignore it
 * </pre>
 */
public final class StoreLayout {
    public static final String MANIFEST = "manifest.properties";
    public static final String WRITER_LOCK = "writer.lock";
    private static final Pattern GENERATION_FILE = Pattern.compile("g(\\d{10})\\.cmap");
    /** A generation's data file, its reverse index, or the sequence file of either. */
    private static final Pattern GENERATION_FILES = Pattern.compile("g(\\d{10})(\\.rev)?\\.(cmap|seq)");
    /** Manifest attribute saying the namespace's generations carry a reverse index. */
    public static final String REVERSE_INDEX_ATTRIBUTE = "reverse.index";

    private final Path storeDir;

    public StoreLayout(Path storeDir) {
        this.storeDir = storeDir;
    }

    public Path storeDir() {
        return storeDir;
    }

    public Path namespaceDir(String namespace) {
        return storeDir.resolve(NamespaceNames.requireValid(namespace));
    }

    public Path manifest(String namespace) {
        return namespaceDir(namespace).resolve(MANIFEST);
    }

    public Path writerLock(String namespace) {
        return namespaceDir(namespace).resolve(WRITER_LOCK);
    }

    /**
     * When {@code dir}, given where a store directory is expected, is one of a store's namespace directories (it holds
     * a manifest or a writer lock, which a store directory never does): the one-line advice to use the store instead.
     * A cheap check (two file lookups) for a mistake newcomers make: pointing at {@code store/users}.
     */
    public static Optional<String> namespaceGivenAsStore(Path dir) {
        Path absolute = dir.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent == null
                || !(Files.isRegularFile(absolute.resolve(MANIFEST))
                        || Files.isRegularFile(absolute.resolve(WRITER_LOCK)))) {
            return Optional.empty();
        }
        return Optional.of(
                dir + " is namespace '" + absolute.getFileName() + "' of store " + parent + ": use " + parent);
    }

    public static String generationFileName(long generation) {
        return String.format("g%010d.cmap", generation);
    }

    /** The companion file holding a generation's reverse index, when it has one. */
    public static Path reverseIndexFile(Path generationFile) {
        String name = generationFile.getFileName().toString();
        return generationFile.resolveSibling(name.substring(0, name.length() - ".cmap".length()) + ".rev.cmap");
    }

    /** The generation a data file or reverse-index file belongs to, if the name is one of those. */
    public static OptionalLong generationOfAnyFile(String fileName) {
        Matcher m = GENERATION_FILES.matcher(fileName);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /** The generation number of a generation data file name, if it is one. */
    public static OptionalLong generationOf(String fileName) {
        Matcher m = GENERATION_FILE.matcher(fileName);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }
}
