package io.sharedlookup.reader;

import io.sharedlookup.internal.store.Utf8Text;

/**
 * A reusable holder for one looked-up value, filled by {@link Lookup#getInto(CharSequence, ValueBuffer)} (or, for
 * many keys at once, {@link Lookup#getAllInto}): the cheapest way to take a value out of the store. The lookup copies
 * the value's bytes (a few 8-byte moves); the text is read from them in place, so nothing is allocated per lookup and
 * no copy of the value stays in the store's mapping.
 *
 * <p>The content is the last value put in and stays valid until the next lookup into this buffer: it is a
 * copy, so the writer changing the entry afterwards does not change it. {@link #toString()} makes a {@code String}
 * of it; {@link #copyTo(StringBuilder)} puts it in a {@code StringBuilder} (replacing its content) without allocating.
 *
 * <p>Not thread-safe: keep one per thread (for example in a {@code ThreadLocal}) or per call site.
 */
public final class ValueBuffer implements CharSequence {
    final Utf8Text text = new Utf8Text();
    boolean found;

    /** An empty buffer. */
    public ValueBuffer() {}

    /**
     * Whether the last lookup into this buffer found its key (false for a new buffer): how {@link Lookup#getAllInto}
     * answers per key.
     */
    public boolean found() {
        return found;
    }

    @Override
    public int length() {
        return text.length();
    }

    @Override
    public char charAt(int index) {
        return text.charAt(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return text.subSequence(start, end);
    }

    /** Empties it, as a lookup that failed leaves it. */
    void empty() {
        text.clear();
        found = false;
    }

    /** Clears {@code out} and appends this value to it, allocating nothing once {@code out} is large enough. */
    public void copyTo(StringBuilder out) {
        text.copyTo(out);
    }

    /** The value as a new {@code String}. */
    @Override
    public String toString() {
        return text.toString();
    }
}
