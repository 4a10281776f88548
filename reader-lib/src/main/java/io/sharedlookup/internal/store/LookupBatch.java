package io.sharedlookup.internal.store;

import java.util.Arrays;

/**
 * One thread's working space for {@link MappedMap#getAllInto}: up to {@link #SIZE} keys' outputs, and what each phase
 * of the batch hands to the next (kept here rather than allocated per call). Not thread-safe: one per thread.
 */
public final class LookupBatch extends KeyClassifier {
    /**
     * Keys looked up together. Enough for the processor to overlap their cache misses (8 already match the map's
     * throughput, docs/benchmarks.md); more only lengthens each phase.
     */
    public static final int SIZE = 16;

    /** Where key {@code i} of the batch puts its value; set by the caller before each batch. */
    public final Utf8Text[] out = new Utf8Text[SIZE];
    /** Whether key {@code i} of the last batch was present. */
    public final boolean[] found = new boolean[SIZE];

    // from phase to phase: the key's length in bytes (0 = the single-key path), hash, the key as an ASCII String or
    // else its encoded bytes, its bytes as two words when it is short, its segment, hash-lookup key, the segment's
    // counter before the read, and its first hash-lookup slot
    final int[] length = new int[SIZE];
    final long[] hash = new long[SIZE];
    final String[] ascii = new String[SIZE];
    final byte[][] bytes = new byte[SIZE][];
    final long[] w0 = new long[SIZE];
    final long[] w1 = new long[SIZE];
    final int[] segment = new int[SIZE];
    final long[] slotKey = new long[SIZE];
    final long[] before = new long[SIZE];
    final long[] slot = new long[SIZE];
    /** The buffer each place encodes a key that is not an ASCII {@code String} into, kept from batch to batch. */
    final byte[][] keyBytes = new byte[SIZE][];
    /** A sink for the bytes the entry phase touches, so that the JIT keeps those reads. */
    int touched;
    /**
     * Whether a batch lookup is using it: a key's own {@code charAt} (run while the batch encodes it, or on the
     * single-key path) may look keys up in a batch on the same thread, and that nested call must not overwrite the
     * outer one's arrays.
     */
    public boolean inUse;

    /**
     * Sets place {@code i}'s key, as {@link #classify} hands it over: an ASCII {@code String} or else its
     * {@code encoded} bytes, its words and hash. Returns its length in bytes, which the batch keeps in {@link #length}.
     */
    @Override
    int hashedKey(
            String asciiKey,
            byte[] encoded,
            int keyLength,
            long word0,
            long word1,
            long keyHash,
            int i,
            Utf8Text unused,
            long unusedTimeout) {
        ascii[i] = asciiKey;
        bytes[i] = encoded;
        w0[i] = word0;
        w1[i] = word1;
        hash[i] = keyHash;
        return keyLength;
    }

    /**
     * A key that is not an ASCII {@code String}: encoded into place {@code i}'s own buffer. Returns its length in
     * bytes; 0 for a null key (answered as absent) or an empty one (answered by the single-key path).
     */
    @Override
    int otherKey(CharSequence key, int i, Utf8Text unused, long unusedTimeout) {
        if (key == null) {
            return 0;
        }
        int chars = key.length();
        byte[] encoded = KeyWords.room(keyBytes[i], chars);
        keyBytes[i] = encoded;
        int keyLength = Utf8.encodeChronicle(key, chars, encoded);
        return hashedKey(
                null,
                encoded,
                keyLength,
                KeyWords.word(encoded, 0),
                KeyWords.word(encoded, 8),
                Xxh64.hash(encoded, keyLength),
                i,
                null,
                0);
    }

    /** Lets go of the caller's keys and buffers once a lookup is over: a thread's batch keeps nothing of them alive. */
    public void release() {
        Arrays.fill(out, null);
        Arrays.fill(ascii, null);
        for (int i = 0; i < SIZE; i++) {
            keyBytes[i] = KeyWords.trimmed(keyBytes[i]);
        }
    }
}
