package io.sharedlookup.internal.store;

/**
 * A segment lock of a generation file was not granted within the bound. Locks live in the file, so a process killed
 * while holding one leaves it held: the cure is a new generation, never a longer wait.
 */
public final class LockTimeoutException extends RuntimeException {
    public LockTimeoutException(String message) {
        super(message, null, false, false);
    }
}
