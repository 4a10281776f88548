package io.sharedlookup.reader;

/**
 * A lookup gave up after the lock bound ({@link SharedLookupStore.Builder#lockTimeout}) because another process left
 * part of the generation locked (typically by dying mid-update). The writer replaces such a generation with a fresh
 * one, after which lookups succeed again.
 */
public class LookupTimeoutException extends SharedLookupException {
    public LookupTimeoutException(String message) {
        super(message);
    }
}
