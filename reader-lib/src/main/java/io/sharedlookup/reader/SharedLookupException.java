package io.sharedlookup.reader;

/** A store or namespace cannot be used; the message says what is wrong and how to fix it. */
public class SharedLookupException extends RuntimeException {
    public SharedLookupException(String message) {
        super(message);
    }

    public SharedLookupException(String message, Throwable cause) {
        super(message, cause);
    }
}
