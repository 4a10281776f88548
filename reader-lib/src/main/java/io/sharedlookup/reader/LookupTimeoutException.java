package io.sharedlookup.reader;

/**
 * A read gave up after the store's bound ({@link SharedLookupStore.Builder#lockTimeout}) because the segment it needs
 * stayed in the middle of a change (its writer died mid-update: the next writer builds a fresh generation, after which
 * lookups succeed again), or, for a scan, kept changing faster than the scan could copy it (a longer bound helps).
 */
public class LookupTimeoutException extends SharedLookupException {
    private static final long serialVersionUID = 1L;

    /** @param message what gave up and why, as one line */
    public LookupTimeoutException(String message) {
        super(message);
    }
}
