package io.sharedlookup.reader;

/** The store directory has no published namespace of the requested name (yet). */
public class NamespaceNotFoundException extends SharedLookupException {
    private static final long serialVersionUID = 1L;

    /** @param message which namespace, in which store, and what to check */
    public NamespaceNotFoundException(String message) {
        super(message);
    }
}
