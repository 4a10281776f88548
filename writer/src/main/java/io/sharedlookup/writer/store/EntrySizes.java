package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.Utf8;

/**
 * The sizes of entries seen, in UTF-8 bytes as Chronicle stores them (not chars: a generation sized in chars would
 * refuse a non-ASCII value): the average key and value sizes a generation is sized with, and the largest entry it must
 * take. Averages alone are not enough: many small updates pull them down, and a generation sized from them alone can
 * be too small for a value already stored (Chronicle keeps an entry within one segment tier), which a copy would then
 * have to drop. A namespace counts what it stored since it was last built from its topic; a snapshot counts what it
 * copies.
 */
public final class EntrySizes {
    private long keyBytes;
    private long valueBytes;
    private long stored;
    /** Key plus value bytes of the largest entry stored (or refused by a copy) since the last rebuild. */
    private long largestEntryBytes;

    /** Counts an entry stored. */
    public void countStored(CharSequence key, CharSequence value) {
        int k = Utf8.chronicleLength(key);
        int v = Utf8.chronicleLength(value);
        keyBytes += k;
        valueBytes += v;
        stored++;
        largestEntryBytes = Math.max(largestEntryBytes, (long) k + v);
    }

    /** An entry a generation must take although this run did not store it (a copy refused it): remembered. */
    public void mustTake(long entryBytes) {
        largestEntryBytes = Math.max(largestEntryBytes, entryBytes);
    }

    /** Key plus value bytes of an entry as Chronicle stores it ({@link Utf8#chronicleLength}). */
    public static long bytesOf(CharSequence key, CharSequence value) {
        return (long) Utf8.chronicleLength(key) + Utf8.chronicleLength(value);
    }

    /**
     * What a generation replacing one of {@code current} (holding {@code entries}) is sized with: grown from
     * {@code current}, or of its size when not {@code grow}, with the averages stored (the current sizing's when
     * nothing was), and taking the largest entry stored and whatever {@code current} was made to take (for a resumed
     * generation: everything its file can hold, since what it holds was not seen in this run).
     */
    public GenerationSizing next(GenerationSizing current, long entries, boolean grow) {
        double k = stored == 0 ? current.averageKeyBytes() : (double) keyBytes / stored;
        double v = stored == 0 ? current.averageValueBytes() : (double) valueBytes / stored;
        return grow ? current.grownFor(entries, k, v, largestEntryBytes) : current.withLargestEntry(largestEntryBytes);
    }

    /** Forgets everything: the namespace is rebuilt from its topic, whose entries are all counted again. */
    public void clear() {
        keyBytes = 0;
        valueBytes = 0;
        stored = 0;
        largestEntryBytes = 0;
    }

    /** A generation for a copy of the entries counted, with 20 % spare on the averages, taking the largest. */
    public GenerationSizing forCopy() {
        long n = Math.max(1, stored);
        return GenerationSizing.forExpected(stored, (double) keyBytes / n * 1.2, (double) valueBytes / n * 1.2)
                .withLargestEntry(largestEntryBytes);
    }
}
