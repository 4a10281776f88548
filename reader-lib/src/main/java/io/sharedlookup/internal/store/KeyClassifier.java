package io.sharedlookup.internal.store;

/**
 * Tells apart the three shapes of key a lookup treats differently, in one place for the single lookup
 * ({@link MappedMap}) and the batch ({@link LookupBatch}), which each say what they do with a key of each shape:
 * <ul>
 *   <li>an ASCII {@code String} of 1 to {@link #SHORT_KEY} chars: its bytes as two words, built once from its chars
 *       for the hash and for the probe's comparison, held in registers ({@link #hashedKey});
 *   <li>a longer ASCII {@code String}: hashed, and later compared, straight from its chars ({@link #hashedKey});
 *   <li>anything else (non-ASCII, not a {@code String}, empty or null): encoded first ({@link #otherKey}).
 * </ul>
 *
 * <p>A template method rather than a helper that returns the shape: a key's words and hash are three numbers, which
 * Java cannot hand back without an allocation or a thread-local look-up, and a lookup makes neither. Both subclasses
 * are final and call {@link #classify} on a receiver of their own class, so the JIT binds {@link #hashedKey} and
 * {@link #otherKey} statically and inlines the whole classification into the caller, as if it were written there.
 */
abstract class KeyClassifier {
    /** The longest key whose bytes the probe compares as two words held in registers; longer ones word by word. */
    static final int SHORT_KEY = 16;

    /**
     * Classifies {@code key} and hands it to {@link #hashedKey} or {@link #otherKey}, returning what they return.
     * {@code place} is the batch's place for the key; {@code out} and {@code timeoutNanos} the single lookup's output
     * and bound (each subclass ignores what is not its own).
     */
    final int classify(CharSequence key, int place, Utf8Text out, long timeoutNanos) {
        if (key instanceof String) {
            String s = (String) key;
            int n = s.length();
            if (n > 0 && n <= SHORT_KEY) {
                // a short key's bytes as two words, built once for the hash and the comparison
                long w0 = KeyWords.asciiWord(s, 0, Math.min(n, 8));
                long w1 = n > 8 ? KeyWords.asciiWord(s, 8, n) : 0;
                if ((w0 | w1) >= 0) {
                    return hashedKey(s, null, n, w0, w1, Xxh64.hashShort(w0, w1, n), place, out, timeoutNanos);
                }
            } else if (n > SHORT_KEY) {
                long hash = Xxh64.hashIfAscii(s);
                if (hash != Xxh64.NOT_ASCII || KeyWords.isAscii(s)) {
                    return hashedKey(s, null, n, 0, 0, hash, place, out, timeoutNanos);
                }
            }
        }
        return otherKey(key, place, out, timeoutNanos);
    }

    /**
     * A key of {@code length} bytes and hash {@code hash}, given as an ASCII {@code String} ({@code ascii}) or else
     * as encoded {@code bytes}; {@code length} is 0 only for a batch's empty key. The words {@code w0} and {@code w1}
     * hold its bytes and are meaningful only when {@code length} is at most {@link #SHORT_KEY}. Encoded keys come here
     * too, once encoded.
     */
    abstract int hashedKey(
            String ascii,
            byte[] bytes,
            int length,
            long w0,
            long w1,
            long hash,
            int place,
            Utf8Text out,
            long timeoutNanos);

    /**
     * A key that is not an ASCII {@code String} of at least one char: to be encoded. {@code null} comes here too: the
     * batch answers it as absent; the single lookup's callers filter it out before.
     */
    abstract int otherKey(CharSequence key, int place, Utf8Text out, long timeoutNanos);
}
