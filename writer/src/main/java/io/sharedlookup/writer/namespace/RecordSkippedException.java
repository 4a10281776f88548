package io.sharedlookup.writer.namespace;

/** The record could not be stored (counted by its namespace); the partition carries on with the next one. */
public final class RecordSkippedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean error;

    RecordSkippedException(String message) {
        this(message, false);
    }

    /** {@code error}: a value the operator must act on (it is lost to readers), logged at ERROR rather than WARN. */
    RecordSkippedException(String message, boolean error) {
        super(message, null, false, false);
        this.error = error;
    }

    /** Whether the skip is logged at ERROR: the message says what to change. */
    public boolean isError() {
        return error;
    }
}
