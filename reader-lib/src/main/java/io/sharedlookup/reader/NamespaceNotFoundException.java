package io.sharedlookup.reader;

/** The store directory has no published namespace of the requested name (yet). */
public class NamespaceNotFoundException extends SharedLookupException {
    public NamespaceNotFoundException(String message) {
        super(message);
    }
}
