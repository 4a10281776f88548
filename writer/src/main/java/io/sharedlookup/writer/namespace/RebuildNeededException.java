package io.sharedlookup.writer.namespace;

/**
 * The namespace's generation is unusable and cannot be copied: the ingest thread must {@link NamespaceSink#rebuild}
 * it from the beginning of the topic. The record that failed was not applied.
 */
public final class RebuildNeededException extends RuntimeException {
    RebuildNeededException(String message) {
        super(message, null, false, false);
    }
}
