package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One value copied out of a mapping: its bytes exactly as the store holds them (Chronicle's per-char UTF-8), read as
 * text. Copying a value is a few 8-byte moves; ASCII text (the common case) is then read straight from those bytes,
 * and anything else is decoded once, when the copy is known to be consistent. Not thread-safe: one per thread.
 */
public final class Utf8Text implements CharSequence {
    private static final long HIGH_BITS = 0x8080808080808080L;
    private static final VarHandle ARRAY_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] bytes = new byte[64];
    private int size;
    private boolean ascii = true;
    /** The decoded text of a value that is not ASCII; scratch for widening an ASCII one in {@link #copyTo}. */
    private char[] chars = new char[64];

    private int charCount;

    /** A buffer to copy a value of {@code size} bytes into: 8 bytes longer, so that whole 8-byte words fit. */
    byte[] reserve(int size) {
        return bytes.length < size + 8 ? grow(size) : bytes; // growing is rare: kept out of the inlined lookup
    }

    private byte[] grow(int size) {
        bytes = new byte[Math.max(size + 8, 2 * bytes.length)];
        return bytes;
    }

    /**
     * Marks the first {@code size} bytes of the {@link #reserve}d buffer as the value; {@code any} is the OR of them
     * (as longs, or as sign-extended bytes), which tells whether they are all ASCII.
     */
    void filled(int size, long any) {
        this.size = size;
        this.ascii = (any & HIGH_BITS) == 0;
    }

    /** Empties it. */
    public void clear() {
        size = 0;
        ascii = true;
    }

    /**
     * Decodes a value that is not ASCII into chars (an ASCII one needs nothing).
     *
     * @return false when the bytes are not Chronicle's UTF-8: a torn copy, or damage
     */
    boolean decode() {
        return ascii || decodeChars(); // the lookup path inlines only the ASCII test
    }

    private boolean decodeChars() {
        if (chars.length < size) {
            chars = new char[Math.max(size, 2 * chars.length)];
        }
        charCount = decode(bytes, 0, size, chars);
        if (charCount < 0) {
            clear(); // never left holding a length of -1
            return false;
        }
        return true;
    }

    @Override
    public int length() {
        return ascii ? size : charCount;
    }

    @Override
    public char charAt(int index) {
        Objects.checkIndex(index, length());
        return ascii ? (char) bytes[index] : chars[index];
    }

    @Override
    public CharSequence subSequence(int start, int end) {
        return toString().substring(start, end);
    }

    @Override
    public String toString() {
        return ascii ? new String(bytes, 0, size, StandardCharsets.ISO_8859_1) : new String(chars, 0, charCount);
    }

    /**
     * Clears {@code out} and appends this text, allocating nothing once warmed up: ASCII bytes are widened 8 at a time
     * and appended in one call.
     */
    public void copyTo(StringBuilder out) {
        out.setLength(0);
        if (!ascii) {
            out.append(chars, 0, charCount);
            return;
        }
        if (chars.length < size + 8) {
            chars = new char[Math.max(size + 8, 2 * chars.length)];
        }
        char[] c = chars;
        byte[] b = bytes;
        for (int i = 0; i < size; i += 8) { // bytes past the value in the last word are widened but not appended
            long v = (long) ARRAY_LONG.get(b, i);
            c[i] = (char) (v & 0xFF);
            c[i + 1] = (char) ((v >>> 8) & 0xFF);
            c[i + 2] = (char) ((v >>> 16) & 0xFF);
            c[i + 3] = (char) ((v >>> 24) & 0xFF);
            c[i + 4] = (char) ((v >>> 32) & 0xFF);
            c[i + 5] = (char) ((v >>> 40) & 0xFF);
            c[i + 6] = (char) ((v >>> 48) & 0xFF);
            c[i + 7] = (char) (v >>> 56);
        }
        out.append(c, 0, size);
    }

    /**
     * Decodes Chronicle's UTF-8 in {@code b[from, from + size)} (1 to 3 bytes per char; 4-byte forms too) into
     * {@code out}, which must hold {@code size} chars. Never throws, whatever the bytes.
     *
     * @return the number of chars, or -1 when the bytes are not such UTF-8
     */
    static int decode(byte[] b, int from, int size, char[] out) {
        int end = from + size;
        int p = from;
        int n = 0;
        while (p < end) {
            int b1 = b[p++];
            if (b1 >= 0) {
                out[n++] = (char) b1;
            } else if ((b1 & 0xE0) == 0xC0 && p < end) {
                int b2 = b[p++];
                if ((b2 & 0xC0) != 0x80) {
                    return -1;
                }
                out[n++] = (char) (((b1 & 0x1F) << 6) | (b2 & 0x3F));
            } else if ((b1 & 0xF0) == 0xE0 && p + 1 < end) {
                int b2 = b[p++];
                int b3 = b[p++];
                if ((b2 & 0xC0) != 0x80 || (b3 & 0xC0) != 0x80) {
                    return -1;
                }
                out[n++] = (char) (((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
            } else if ((b1 & 0xF8) == 0xF0 && p + 2 < end) {
                int b2 = b[p++];
                int b3 = b[p++];
                int b4 = b[p++];
                int codePoint = ((b1 & 0x07) << 18) | ((b2 & 0x3F) << 12) | ((b3 & 0x3F) << 6) | (b4 & 0x3F);
                if ((b2 & 0xC0) != 0x80
                        || (b3 & 0xC0) != 0x80
                        || (b4 & 0xC0) != 0x80
                        || codePoint < 0x10000
                        || codePoint > Character.MAX_CODE_POINT) {
                    return -1; // a torn read (or damage): never an exception
                }
                out[n++] = Character.highSurrogate(codePoint); // 4 bytes in, 2 chars out: out stays large enough
                out[n++] = Character.lowSurrogate(codePoint);
            } else {
                return -1;
            }
        }
        return n;
    }
}
