package io.sharedlookup.internal.store;

import java.nio.charset.StandardCharsets;

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

    /** The term one (key, value) pair adds to the digest. */
    public static long of(CharSequence key, CharSequence value) {
        byte[] k = key.toString().getBytes(StandardCharsets.UTF_8);
        byte[] v = value.toString().getBytes(StandardCharsets.UTF_8);
        byte[] pair = new byte[k.length + 1 + v.length];
        System.arraycopy(k, 0, pair, 0, k.length);
        pair[k.length] = (byte) 0xFF;
        System.arraycopy(v, 0, pair, k.length + 1, v.length);
        return Xxh64.hash(pair, pair.length);
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
