package io.sharedlookup.writer.store;

/**
 * A generation can no longer be written safely (for example, a file the file system refused to extend could not be
 * cut back to its allocated part). Readers keep what was published; the writer builds a new generation from the topic.
 */
public final class GenerationUnusableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GenerationUnusableException(String message, Throwable cause) {
        super(message, cause);
    }
}
