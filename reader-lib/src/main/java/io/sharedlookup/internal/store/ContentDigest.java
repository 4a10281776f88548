package io.sharedlookup.internal.store;

/**
 * The content digest of a namespace: an order-independent 64-bit summary of all its (key, value) pairs, so that two
 * stores — two hosts' writers off the same topic — can be compared without comparing entries.
 *
 * <p>The digest is the sum, modulo 2<sup>64</sup>, of {@link #of(CharSequence, CharSequence)} over the entries. A sum
 * does not depend on order and can be kept up to date incrementally: a put adds the new pair's term and subtracts the
 * old one's, a remove subtracts. A pair's term is XXH64 (seed 0) of the key's UTF-8 bytes, one {@code 0xFF} byte (never
 * part of UTF-8, so no two pairs share the bytes) and the value's UTF-8 bytes: standard UTF-8 ({@link Utf8#encode}),
 * not the file's per-char form, so that the digest does not depend on how Chronicle stores text.
 */
public final class ContentDigest {
    private ContentDigest() {}

    /** Scratch space for a pair's bytes: the writer takes a term per record, so this path allocates nothing. */
    private static final int KEPT_SCRATCH_BYTES = 64 * 1024;

    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[256]});

    /** The term one (key, value) pair adds to the digest. */
    public static long of(CharSequence key, CharSequence value) {
        int max = Utf8.MAX_BYTES_PER_CHAR * (key.length() + value.length()) + 1;
        byte[] pair;
        if (max > KEPT_SCRATCH_BYTES) {
            pair = new byte[max]; // a rare large pair: not kept for the thread's lifetime
        } else {
            byte[][] holder = SCRATCH.get();
            if (holder[0].length < max) {
                holder[0] = new byte[Math.min(KEPT_SCRATCH_BYTES, Math.max(max, holder[0].length * 2))];
            }
            pair = holder[0];
        }
        int n = Utf8.encode(key, pair, 0);
        pair[n++] = (byte) 0xFF;
        n = Utf8.encode(value, pair, n);
        return Xxh64.hash(pair, n);
    }

    /** As written in manifests and shown to people: 16 lower-case hex digits. */
    public static String hex(long digest) {
        return String.format("%016x", digest);
    }

    /**
     * Parses {@link #hex}'s form.
     *
     * @throws IllegalArgumentException unless it is 16 hex digits
     */
    public static long parse(String hex) {
        if (hex.length() != 16) {
            throw new IllegalArgumentException("content digest '" + hex + "' is not 16 hex digits");
        }
        return Long.parseUnsignedLong(hex, 16);
    }
}
