package io.sharedlookup.internal.store;

/**
 * A thread's reusable buffers for {@link MappedMap}: the encoded key being looked up when it is not an ASCII
 * {@code String} (with 8 spare bytes, so that its tail can be read as one word), and the value copied out for
 * {@code getInto(…, StringBuilder)}. Not thread-safe: one per thread.
 */
final class KeyBuffer {
    byte[] bytes = KeyWords.room(null, 0);
    final Utf8Text value = new Utf8Text();
    /** Whether a key is being encoded into it (its {@code charAt} running). */
    boolean encoding;

    /**
     * Encodes {@code key} into {@link #bytes} as Chronicle stores it ({@link Utf8#encodeChronicle}); returns the byte
     * count.
     */
    int encode(CharSequence key) {
        int length = key.length();
        bytes = KeyWords.room(bytes, length);
        return Utf8.encodeChronicle(key, length, bytes);
    }
}
