package io.sharedlookup.internal.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiPredicate;

/**
 * A published generation as readers see it: its map file and, when the writer keeps one, its reverse index, both
 * mapped read-only through {@link MappedMap}. Holds no lock and nothing of Chronicle Map; besides the mappings, one
 * file descriptor per file (for extra tier bulks mapped later), closed by the garbage collector with the generation.
 */
public final class PublishedGeneration {
    private final long number;
    private final Object fileKey;
    private final MappedMap data;
    private final MappedMap reverse;
    /** Set when reading a mapping failed (a file truncated under it): the refresh reopens from the manifest. */
    private volatile boolean faulted;

    private PublishedGeneration(long number, Object fileKey, MappedMap data, MappedMap reverse) {
        this.number = number;
        this.fileKey = fileKey;
        this.data = data;
        this.reverse = reverse;
    }

    /**
     * Maps the generation {@code manifest} names, in {@code namespaceDir}; a lookup waits at most
     * {@code lockTimeoutNanos} for an extra tier bulk to be mapped (then throws {@link LockTimeoutException}).
     *
     * @throws StoreFormatException when a file is missing, unreadable or does not match its layout
     */
    public static PublishedGeneration open(Path namespaceDir, Manifest manifest, long lockTimeoutNanos) {
        Path file = namespaceDir.resolve(manifest.dataFile());
        Object fileKey = fileKey(file); // before mapping: a file replaced in between is noticed at the next refresh
        MappedMap data = MappedMap.open(file, SequenceFile.of(file), manifest.layout(), lockTimeoutNanos);
        MappedMap reverse = null;
        if (manifest.reverseLayout() != null) {
            Path reverseFile = StoreLayout.reverseIndexFile(file);
            try {
                reverse = MappedMap.open(
                        reverseFile, SequenceFile.of(reverseFile), manifest.reverseLayout(), lockTimeoutNanos);
            } catch (RuntimeException e) {
                data.close(); // not left to the garbage collector: a refresh may try this generation again and again
                throw e;
            }
        }
        return new PublishedGeneration(manifest.generation(), fileKey, data, reverse);
    }

    /** Makes waits in this generation's maps follow the writer's liveness ({@link MappedMap#followWriter}). */
    public PublishedGeneration followWriter(WriterLiveness liveness, long liveBoundNanos) {
        data.followWriter(liveness, liveBoundNanos);
        if (reverse != null) {
            reverse.followWriter(liveness, liveBoundNanos);
        }
        return this;
    }

    /**
     * Whether {@code manifest} names this very generation: the same number and the same file (not another one under
     * the same name, as when a namespace directory is deleted and rebuilt from generation 1).
     */
    public boolean isNamedBy(Path namespaceDir, Manifest manifest) {
        return manifest.generation() == number
                && fileKey != null
                && fileKey.equals(fileKey(namespaceDir.resolve(manifest.dataFile())));
    }

    /**
     * What names the generation {@code manifest} points to, for telling a retry of it from another generation: its
     * number, file name and file identity (a rewritten manifest of the same generation names the same).
     */
    public static Object identity(Path namespaceDir, Manifest manifest) {
        return java.util.Arrays.asList(
                manifest.generation(), manifest.dataFile(), fileKey(namespaceDir.resolve(manifest.dataFile())));
    }

    private static Object fileKey(Path file) {
        try {
            return MappedMap.fileKey(file);
        } catch (java.io.IOException e) {
            return null; // missing now: MappedMap.open says why
        }
    }

    public long number() {
        return number;
    }

    public Path file() {
        return data.file();
    }

    /**
     * Looks {@code key} up; when present, its value is in {@code out} (cleared first). Allocation-free.
     *
     * @throws LockTimeoutException when the key's segment stayed mid-change beyond {@code timeoutNanos}
     */
    public boolean getInto(CharSequence key, StringBuilder out, long timeoutNanos) {
        int found;
        try {
            found = data.getInto(key, out, timeoutNanos);
        } catch (InternalError e) {
            throw faulted(data, e);
        }
        if (found == MappedMap.TIMED_OUT) {
            throw stuck(data);
        }
        return found == MappedMap.PRESENT;
    }

    /** Like {@link #getInto(CharSequence, StringBuilder, long)}, copying the value's bytes into {@code out}. */
    public boolean getInto(CharSequence key, Utf8Text out, long timeoutNanos) {
        int found;
        try {
            found = data.getInto(key, out, timeoutNanos);
        } catch (InternalError e) {
            throw faulted(data, e);
        }
        if (found == MappedMap.TIMED_OUT) {
            throw stuck(data);
        }
        return found == MappedMap.PRESENT;
    }

    /**
     * {@link MappedMap#getAllInto}: looks up {@code keys[from .. from + n)} together into {@code batch}.
     *
     * @return how many of them are present
     * @throws LockTimeoutException when a key's segment stayed mid-change beyond {@code timeoutNanos}
     */
    public int getAllInto(CharSequence[] keys, int from, int n, LookupBatch batch, long timeoutNanos) {
        int present;
        try {
            present = data.getAllInto(keys, from, n, batch, timeoutNanos);
        } catch (InternalError e) {
            throw faulted(data, e);
        }
        if (present == MappedMap.TIMED_OUT) {
            throw stuck(data);
        }
        return present;
    }

    /** {@link MappedMap#changeCount()} of the map file: moves with every change applied in place. */
    public long changeCount() {
        try {
            return data.changeCount();
        } catch (InternalError e) {
            throw faulted(data, e);
        }
    }

    /** The entry count. */
    public long size(long timeoutNanos) {
        long size;
        try {
            size = data.size(timeoutNanos);
        } catch (InternalError e) {
            throw faulted(data, e);
        }
        if (size < 0) {
            throw stuck(data);
        }
        return size;
    }

    /** See {@link MappedMap#forEachWhile}. */
    public boolean forEachWhile(BiPredicate<String, String> action, long timeoutNanos) {
        try {
            return data.forEachWhile(action, timeoutNanos);
        } catch (InternalError e) {
            throw faulted(data, e);
        }
    }

    public boolean hasReverseIndex() {
        return reverse != null;
    }

    /**
     * The keys whose value is {@code value}, from the reverse index; empty when there is none or it says to scan for
     * this value (shared by too many keys).
     */
    public Optional<List<String>> keysOf(CharSequence value, long timeoutNanos) {
        if (reverse == null) {
            return Optional.empty();
        }
        StringBuilder keys = new StringBuilder();
        int found;
        try {
            found = reverse.getInto(value, keys, timeoutNanos);
        } catch (InternalError e) {
            throw faulted(reverse, e);
        }
        if (found == MappedMap.TIMED_OUT) {
            throw stuck(reverse);
        }
        if (found == MappedMap.ABSENT) {
            return Optional.of(new ArrayList<>());
        }
        if (ReverseKeys.TOO_MANY.contentEquals(keys)) {
            return Optional.empty();
        }
        List<String> listed;
        try {
            listed = ReverseKeys.decode(keys);
        } catch (IllegalArgumentException e) {
            throw new StoreFormatException("Reverse index " + reverse.file() + " is corrupt: " + e.getMessage(), e);
        }
        // The index and the map are two files the writer changes one after the other (and a change may fail half-way
        // on a full disk): only keys whose value is this one now are answered, so a reverse lookup never disagrees
        // with a lookup.
        List<String> holding = new ArrayList<>(listed.size());
        StringBuilder current = keys;
        for (String key : listed) {
            if (getInto(key, current, timeoutNanos) && current.toString().contentEquals(value)) {
                holding.add(key);
            }
        }
        return Optional.of(holding);
    }

    /**
     * Whether reading one of this generation's mappings failed: the file was truncated under the reader (an operator,
     * a restore, an {@code rsync --inplace}), so its pages past the new end fault. The reader opens the generation
     * the manifest names again rather than go on reading this one.
     */
    public boolean faulted() {
        return faulted;
    }

    /**
     * A read of a mapping that faulted: the JVM turns the SIGBUS of a page past a truncated file's end into an
     * {@link InternalError}, thrown here as the damaged file it is.
     */
    private StoreFormatException faulted(MappedMap map, InternalError e) {
        return markFaulted(map, e);
    }

    /**
     * Marks this generation faulted after {@code e}, a fault that surfaced in the caller rather than in a read here
     * (the JVM may throw a mapping fault of compiled code a little after the read that caused it), so that the next
     * refresh opens the published generation again.
     *
     * @return the exception saying so, to throw
     */
    public StoreFormatException markFaulted(InternalError e) {
        return markFaulted(data, e);
    }

    private StoreFormatException markFaulted(MappedMap map, InternalError e) {
        faulted = true;
        return new StoreFormatException(
                "Generation file " + map.file() + " could not be read (" + e.getMessage()
                        + "): it was truncated or damaged under this reader; the reader opens the published generation again "
                        + "at its next refresh (if this persists, delete the namespace directory and let the writer rebuild "
                        + "it)",
                e);
    }

    private static LockTimeoutException stuck(MappedMap map) {
        return new LockTimeoutException("A segment of " + map.file() + " stayed in the middle of a change past the "
                + "wait's bound (lockTimeout once the writer is not alive: it died or stopped mid-update, and the next "
                + "writer rebuilds the namespace; liveWriterWait while it is), or kept changing throughout it (a busy "
                + "writer: a longer bound helps)");
    }
}
