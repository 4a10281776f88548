package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.*;

/** A key/value pair does not fit in this generation's layout (Chronicle's chunk limit per entry). */
public final class EntryTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public EntryTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
