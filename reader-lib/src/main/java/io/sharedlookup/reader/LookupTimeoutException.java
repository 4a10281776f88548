package io.sharedlookup.reader;

/**
 * A lookup gave up after the store's bound ({@link SharedLookupStore.Builder#lockTimeout}) because the segment it
 * needs stayed in the middle of a change (its writer died mid-update). The next writer builds a fresh generation,
 * after which lookups succeed again.
 */
public class LookupTimeoutException extends SharedLookupException {
    public LookupTimeoutException(String message) {
        super(message);
    }
}
