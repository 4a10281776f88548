package io.sharedlookup.writer;

/** Bad configuration: the message is one line saying what is wrong and how to fix it; the process exits with 2. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message, null, false, false);
    }
}
