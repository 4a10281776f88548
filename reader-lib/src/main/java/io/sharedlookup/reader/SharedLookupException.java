package io.sharedlookup.reader;

/** A store or namespace cannot be used; the message says what is wrong and how to fix it. */
public class SharedLookupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and how to fix it, as one line */
    public SharedLookupException(String message) {
        super(message);
    }

    /**
     * @param message what is wrong and how to fix it, as one line
     * @param cause   the failure underneath
     */
    public SharedLookupException(String message, Throwable cause) {
        super(message, cause);
    }
}
