package io.sharedlookup.writer.store;

/**
 * A generation has no room left for a put: Chronicle Map would need another extra segment tier and has already taken
 * as many as the generation's header allows. Nothing was written; the writer moves the namespace to a bigger
 * generation, which then takes the record.
 *
 * <p>An {@link IllegalStateException}, as Chronicle's own refusal is, so that code which treats any such state error
 * as fatal still does; the writer's growth catches this type instead of reading Chronicle's words
 * ({@link ChronicleFailures}).
 */
public final class TiersExhaustedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    TiersExhaustedException(String message, Throwable cause) {
        super(message, cause);
    }
}
