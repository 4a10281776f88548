package io.sharedlookup.druid;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import javax.annotation.Nullable;

/**
 * The store directory a {@code sharedLookup} reads, and where that choice came from: the spec's {@code storeDir},
 * else {@code druid.sharedLookup.storeDir}, else its default. Its path's syntax is checked when the spec is read, and
 * what is on this node's disk when the lookup starts; both errors name the directory and where it was set, so that an
 * operator knows which setting to fix. Kept apart from {@link SharedLookupExtractorFactory}, which is about Druid's
 * lookup lifecycle.
 */
final class LookupStoreDirectory {
    private final String namespace;
    private final Path path;
    private final String origin;

    private LookupStoreDirectory(String namespace, Path path, String origin) {
        this.namespace = namespace;
        this.path = path;
        this.origin = origin;
    }

    /**
     * The spec's syntax only: what is on this node's disk is checked by {@link #requireReadable()}.
     *
     * @param specDir the spec's {@code storeDir}, null when the node's setting applies
     * @throws IllegalArgumentException when the directory is not a valid path
     */
    static LookupStoreDirectory resolve(String namespace, @Nullable String specDir, SharedLookupConfig settings) {
        String dir = specDir != null ? specDir : settings.getStoreDir();
        String origin = specDir != null
                ? "\"storeDir\" of the lookup spec"
                : "druid.sharedLookup.storeDir, or its default " + SharedLookupConfig.DEFAULT_STORE_DIR;
        try {
            return new LookupStoreDirectory(
                    namespace, Path.of(dir).toAbsolutePath().normalize(), origin);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(
                    "sharedLookup '" + namespace + "': store directory \"" + dir + "\" (" + origin
                            + ") is not a valid path: " + e.getMessage(),
                    e);
        }
    }

    /** The directory actually read, absolute and normalised. */
    Path path() {
        return path;
    }

    /**
     * The store directory must be there and readable. Checked when the lookup starts, not when its spec is read: Druid
     * reads every lookup of its snapshot file at node start in one go, and a spec that throws there stops the node
     * from starting, where a start that throws skips this lookup alone.
     *
     * @throws IllegalStateException naming the directory, where it was set and the fix
     */
    void requireReadable() {
        if (!Files.isDirectory(path)) {
            throw problem("does not exist on this node: mount the writer's store volume there, or set "
                    + "\"storeDir\" to where it is mounted");
        }
        if (!Files.isReadable(path) || !Files.isExecutable(path)) {
            throw problem("is not readable by the Druid process: add its user to the writer's group (store "
                    + "files are group-readable)");
        }
    }

    private IllegalStateException problem(String problem) {
        return new IllegalStateException("sharedLookup '" + namespace + "' not loaded on this node: store directory "
                + path + " (" + origin + ") " + problem);
    }
}
