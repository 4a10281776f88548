package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.StoreFormatException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The one place that tells Chronicle Map's failures apart. Chronicle reports a full generation, an entry too large
 * for its layout, and a file it cannot open only as {@link IllegalStateException}, {@link IllegalArgumentException}
 * or whatever its internals threw, distinguished by their message alone; the writer's callers need to act on each
 * differently (grow, skip the record, rebuild), so {@link GenerationFile} passes its create, open and put failures
 * through here and the rest of the writer catches the typed exceptions: {@link TiersExhaustedException},
 * {@link EntryTooLargeException}, {@link GenerationUnusableException}, {@link StoreFormatException}.
 *
 * <p>The words matched are Chronicle's own, from the version on the class path: {@code ChronicleFailuresTest} fills a
 * real generation until Chronicle refuses and asserts on the type, and the namespace tests that store a value too large
 * for the layout expect the record skipped, so an upgrade that rewords either fails a test.
 */
final class ChronicleFailures {
    /**
     * Chronicle's words when a put needs a tier and none is left ("Attempt to allocate #33 extra segment tier, 32 is
     * maximum").
     */
    private static final String NO_TIER_LEFT = "extra segment tier";
    /** Chronicle's refusal of an entry larger than an entry may be ("Entry is too large", "Value too large"). */
    private static final String TOO_LARGE = "too large";

    private ChronicleFailures() {}

    /**
     * What a failed put into {@code file} means: an {@link EntryTooLargeException} when Chronicle refused the entry's
     * size, a {@link TiersExhaustedException} when it found no tier left, otherwise {@code e} itself (already typed,
     * or a failure the writer does not tell apart).
     */
    static RuntimeException ofPut(RuntimeException e, CharSequence key, CharSequence value, Path file) {
        if (e instanceof TiersExhaustedException) {
            return e;
        }
        if (tooLarge(e)) {
            return new EntryTooLargeException(
                    "Entry for key of " + key.length() + " chars and value of " + value.length()
                            + " chars does not fit generation " + file.getFileName() + ": " + e.getMessage(),
                    e);
        }
        if (e instanceof IllegalStateException && says(e, NO_TIER_LEFT)) {
            return new TiersExhaustedException(
                    "Generation " + file.getFileName() + " has no room left: " + e.getMessage(), e);
        }
        return e;
    }

    /**
     * Thrown before a value grows when no tier is left to move it to (see {@code GenerationFile}): the same type as
     * Chronicle's own refusal, so that callers grow the namespace either way.
     */
    static TiersExhaustedException noTierForLongerValue(Path file, long tiersInUse) {
        return new TiersExhaustedException(
                "Generation " + file.getFileName() + " has no " + NO_TIER_LEFT + " left (" + tiersInUse
                        + " in use) for a longer value of an existing key",
                null);
    }

    /** Whether Chronicle refused an entry as larger than this generation's layout allows. */
    private static boolean tooLarge(RuntimeException e) {
        return says(e, TOO_LARGE);
    }

    /**
     * A replace that failed inside Chronicle after it started to move the value (another writer thread of an
     * unpublished generation took the last tier first, or the file system refused to extend the file) left the
     * generation's allocation state half-changed: it must not be written or copied again.
     */
    static RuntimeException halfReplaced(RuntimeException e, Path file) {
        if (tooLarge(e)) {
            return e; // checked before anything moves
        }
        String cause = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        return new GenerationUnusableException(
                "A longer value could not be placed in " + file.getFileName() + " (" + cause
                        + ") after Chronicle Map had freed the old one; the namespace is rebuilt from its topic",
                e);
    }

    /** Chronicle could not create {@code file}'s map. */
    static IOException ofCreate(Path file, Throwable e) {
        return e instanceof IOException io
                ? io
                : new IOException("Cannot create generation file " + file + ": " + e, e);
    }

    /** Chronicle could not open {@code file}: the file's fault, so the writer rebuilds it. */
    static StoreFormatException ofOpen(Path file, Exception e) {
        return new StoreFormatException(
                "Generation file " + file + " is corrupt or truncated (" + e
                        + "); the writer rebuilds it from the topic",
                e);
    }

    /** Chronicle failed with an {@link Error} opening {@code file}: not the file's fault but this JVM's. */
    static IllegalStateException ofOpen(Path file, Error e) {
        // A missing JVM flag or class (the writer jar's manifest carries the flags).
        return new IllegalStateException(
                "Chronicle Map cannot open " + file + " in this JVM (" + e
                        + "); run the writer as its jar (java -jar), which carries the JVM flags Chronicle needs",
                e);
    }

    private static boolean says(RuntimeException e, String words) {
        return String.valueOf(e.getMessage()).contains(words);
    }
}
