package io.sharedlookup.writer.namespace;

/** The record could not be stored (counted by the sink); the partition carries on with the next one. */
public final class RecordSkippedException extends RuntimeException {
    RecordSkippedException(String message) {
        super(message, null, false, false);
    }
}
