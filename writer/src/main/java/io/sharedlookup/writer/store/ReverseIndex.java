package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ReverseKeys;
import java.util.List;
import java.util.Optional;

/**
 * The optional value-to-keys index of a generation, kept by the writer beside the data file so that reverse lookups
 * (Druid's {@code unapplyAll}, filters on looked-up values) need not scan the namespace.
 *
 * <p>It is a second Chronicle Map file: key = a value of the namespace, value = the keys holding it, each written as
 * {@code <length>:<key>} (keys may contain any character; see {@link ReverseKeys}). Values shared by many keys would
 * make entries large and updates slow, so past {@link ReverseKeys#MAX_ENCODED_CHARS} an entry becomes the marker
 * {@value ReverseKeys#TOO_MANY}, meaning "scan for this value"; it stays so for the generation's life. Answers are therefore always complete: from the index, or from a
 * scan.
 */
final class ReverseIndex {

    private final GenerationFile file;
    private final StringBuilder buffer =
            new StringBuilder(); // guarded by this: the ingest and growth-copy threads share it

    ReverseIndex(GenerationFile file) {
        this.file = file;
        file.withoutDigest();
    }

    GenerationFile file() {
        return file;
    }

    /** Records that {@code key} now holds {@code value}. */
    synchronized void add(CharSequence value, CharSequence key, long timeoutNanos) {
        StringBuilder keys = buffer;
        boolean present = file.getInto(value, keys, timeoutNanos);
        if (present
                && (ReverseKeys.TOO_MANY.contentEquals(keys)
                        || ReverseKeys.decode(keys).contains(key.toString()))) {
            return;
        }
        ReverseKeys.append(keys, key);
        if (keys.length() > ReverseKeys.MAX_ENCODED_CHARS) {
            file.put(value, ReverseKeys.TOO_MANY, timeoutNanos);
            return;
        }
        try {
            file.put(value, keys, timeoutNanos);
        } catch (EntryTooLargeException e) {
            file.put(value, ReverseKeys.TOO_MANY, timeoutNanos);
        }
    }

    /** Records that {@code key} no longer holds {@code value}. */
    synchronized void remove(CharSequence value, CharSequence key, long timeoutNanos) {
        StringBuilder keys = buffer;
        if (!file.getInto(value, keys, timeoutNanos) || ReverseKeys.TOO_MANY.contentEquals(keys)) {
            return;
        }
        List<String> remaining = ReverseKeys.decode(keys);
        if (!remaining.remove(key.toString())) {
            return;
        }
        if (remaining.isEmpty()) {
            file.remove(value, timeoutNanos);
        } else {
            ReverseKeys.encode(keys, remaining);
            file.put(value, keys, timeoutNanos);
        }
    }

    /** The keys holding {@code value}, or empty when the index says to scan for it. */
    Optional<List<String>> keysOf(CharSequence value, long timeoutNanos) {
        StringBuilder keys = new StringBuilder();
        if (!file.getInto(value, keys, timeoutNanos)) {
            return Optional.of(List.of());
        }
        return ReverseKeys.TOO_MANY.contentEquals(keys) ? Optional.empty() : Optional.of(ReverseKeys.decode(keys));
    }
}
