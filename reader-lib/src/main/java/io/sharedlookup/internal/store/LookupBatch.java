package io.sharedlookup.internal.store;

/**
 * One thread's working space for {@link MappedMap#getAllInto}: up to {@link #SIZE} keys' outputs, and what each phase
 * of the batch hands to the next (kept here rather than allocated per call). Not thread-safe: one per thread.
 */
public final class LookupBatch {
    /**
     * Keys looked up together. Enough for the processor to overlap their cache misses (8 already match the map's
     * throughput, docs/benchmarks.md); more only lengthens each phase.
     */
    public static final int SIZE = 16;

    /** Where key {@code i} of the batch puts its value; set by the caller before each batch. */
    public final Utf8Text[] out = new Utf8Text[SIZE];
    /** Whether key {@code i} of the last batch was present. */
    public final boolean[] found = new boolean[SIZE];

    // from phase to phase: the short key's words and length (0 = not a short ASCII String key: the single-key path),
    // its segment, hash-lookup key, the segment's counter before the read, and its first hash-lookup slot
    final long[] w0 = new long[SIZE];
    final long[] w1 = new long[SIZE];
    final int[] length = new int[SIZE];
    final int[] segment = new int[SIZE];
    final long[] slotKey = new long[SIZE];
    final long[] before = new long[SIZE];
    final long[] slot = new long[SIZE];
    /** A sink for the bytes the entry phase touches, so that the JIT keeps those reads. */
    int touched;
    /**
     * Whether a batch lookup is using it: a key's own {@code charAt} (run on the single-key path) may look keys up in
     * a batch on the same thread, and that nested call must not overwrite the outer one's arrays.
     */
    public boolean inUse;
}
