package io.sharedlookup.internal.store;

/**
 * The content digest of a namespace: an order-independent 64-bit summary of all its (key, value) pairs, so that two
 * stores — two hosts' writers off the same topic — can be compared without comparing entries.
 *
 * <p>The digest is the sum, modulo 2<sup>64</sup>, of {@link #of(CharSequence, CharSequence)} over the entries. A sum
 * does not depend on order and can be kept up to date incrementally: a put adds the new pair's term and subtracts the
 * old one's, a remove subtracts. A pair's term is XXH64 (seed 0) of the key's UTF-8 bytes, one {@code 0xFF} byte (never
 * part of UTF-8, so no two pairs share the bytes) and the value's UTF-8 bytes.
 */
public final class ContentDigest {
    private ContentDigest() {
    }

    /** Scratch space for a pair's bytes: the writer takes a term per record, so this path allocates nothing. */
    private static final int KEPT_SCRATCH_BYTES = 64 * 1024;
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[][] {new byte[256]});

    /** The term one (key, value) pair adds to the digest. */
    public static long of(CharSequence key, CharSequence value) {
        int max = 3 * (key.length() + value.length()) + 1; // UTF-8 takes at most 3 bytes per char
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
        int n = encodeUtf8(key, pair, 0);
        pair[n++] = (byte) 0xFF;
        n = encodeUtf8(value, pair, n);
        return Xxh64.hash(pair, n);
    }

    /**
     * Writes {@code s} as UTF-8 at {@code at}, as {@code String.getBytes(UTF_8)} does (an unpaired surrogate becomes
     * {@code '?'}); returns the index after the last byte.
     */
    private static int encodeUtf8(CharSequence s, byte[] out, int at) {
        int length = s.length();
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out[at++] = (byte) c;
            } else if (c < 0x800) {
                out[at++] = (byte) (0xC0 | (c >> 6));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(s.charAt(i + 1))) {
                    int cp = Character.toCodePoint(c, s.charAt(++i));
                    out[at++] = (byte) (0xF0 | (cp >> 18));
                    out[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    out[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    out[at++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    out[at++] = '?';
                }
            } else {
                out[at++] = (byte) (0xE0 | (c >> 12));
                out[at++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[at++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return at;
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
