package io.sharedlookup.internal.store;

/**
 * A read could not complete within the bound: the segment it needs stayed in the middle of a change (its sequence
 * counter odd) or, on the writer's side, a segment lock was not granted. A live writer changes a segment in
 * microseconds, so this means the writer died mid-change; the cure is a new generation, never a longer wait.
 */
public final class LockTimeoutException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LockTimeoutException(String message) {
        super(message, null, false, false);
    }
}
