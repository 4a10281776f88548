package io.sharedlookup.writer.store;

/**
 * The store directory is in a state the writer refuses to work in, because it would let someone else redirect or
 * replace store files: a symbolic link or a non-regular file where the writer keeps its own files, a world-writable
 * directory. The message is one line naming the path and the fix.
 */
public final class UnsafeStoreException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public UnsafeStoreException(String message) {
        super(message);
    }
}
