package io.sharedlookup.writer.namespace;

/**
 * The namespace's generation is unusable and cannot be copied: the ingest thread must {@link NamespaceIngest#rebuild}
 * it from the beginning of the topic. The record that failed was not applied.
 */
public final class RebuildNeededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RebuildNeededException(String message) {
        super(message, null, false, false);
    }
}
