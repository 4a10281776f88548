package io.sharedlookup.internal.store;

/** A store file that cannot be used as it is: unknown format version, missing field, corrupt or truncated. */
public class StoreFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreFormatException(String message) {
        super(message);
    }

    public StoreFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
