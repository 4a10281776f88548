package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A key as the store holds it: Chronicle's UTF-8 ({@link Utf8#encodeChronicle}), hashed with {@link Xxh64}
 * and compared with an entry's key bytes 8 at a time. An ASCII {@code String} key is read straight from its chars,
 * whatever its length, never copied; any other key is encoded once into a byte buffer. Static and small, so that the
 * JIT inlines these methods into {@link MappedMap}'s probe.
 */
final class KeyWords {
    /** Plain 8-byte reads from a mapping at any index (plain access allows unaligned indexes); bounds-checked. */
    private static final VarHandle MAPPED_LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final VarHandle ARRAY_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The shortest buffer {@link #encode} writes into: room for two whole words, read by {@link #word}. */
    static final int MIN_BUFFER = 2 * Long.BYTES;
    /** The largest key buffer: what an array can hold. */
    private static final long MAX_BUFFER = Integer.MAX_VALUE - 16;
    /** Key buffers larger than this are not kept after the lookup that needed them ({@link #trimmed}). */
    static final int RETAINED_BYTES = 64 * 1024;

    private KeyWords() {}

    /** Whether every char of {@code s} is below 0x80 (its UTF-8 form is its chars, one byte each). */
    static boolean isAscii(String s) {
        int any = 0;
        for (int i = 0; i < s.length(); i++) {
            any |= s.charAt(i);
        }
        return any < 0x80;
    }

    /**
     * Chars {@code from..to-1} (at most 8) of {@code s} as the little-endian number of their bytes, or -1 (never such a
     * number: its top byte would be 0xFF) when one of them is not ASCII.
     */
    static long asciiWord(String s, int from, int to) {
        long word = 0;
        int any = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            any |= c;
            word |= (long) c << ((i - from) << 3);
        }
        return any < 0x80 ? word : -1;
    }

    /** Bytes {@code at..at+7} of an encoded key's buffer (at least {@link #MIN_BUFFER} long) as one word. */
    static long word(byte[] bytes, int at) {
        return (long) ARRAY_LONG.get(bytes, at);
    }

    /**
     * Whether the bytes at {@code at} (which end by {@code limit}, the end of their tier) are those of the ASCII key
     * {@code s}: compared 8 at a time against words built from its chars, the last part through one masked read when
     * the tier leaves room.
     */
    static boolean equalsAscii(ByteBuffer buffer, int at, String s, int limit) {
        int length = s.length();
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if ((long) MAPPED_LONG.get(buffer, at + i) != Xxh64.lowBytes(s, i, 8)) {
                return false;
            }
        }
        int rest = length - i;
        if (rest == 0) {
            return true;
        }
        if (limit - at - i >= 8) {
            long differ = (long) MAPPED_LONG.get(buffer, at + i) ^ Xxh64.lowBytes(s, i, rest);
            return (differ & (-1L >>> (64 - 8 * rest))) == 0;
        }
        for (; i < length; i++) {
            if (buffer.get(at + i) != (byte) s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the {@code length} bytes at {@code at} (which end by {@code limit}, the end of their tier) are the first
     * {@code length} of {@code b} (an encoded key, with 8 spare bytes): compared 8 bytes at a time, the last part
     * through one masked read when the tier leaves room.
     */
    static boolean equalsBytes(ByteBuffer buffer, int at, byte[] b, int length, int limit) {
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            if ((long) MAPPED_LONG.get(buffer, at + i) != (long) ARRAY_LONG.get(b, i)) {
                return false;
            }
        }
        int rest = length - i;
        if (rest == 0) {
            return true;
        }
        if (limit - at - i >= 8) {
            long differ = (long) MAPPED_LONG.get(buffer, at + i) ^ (long) ARRAY_LONG.get(b, i);
            return (differ & (-1L >>> (64 - 8 * rest))) == 0;
        }
        for (; i < length; i++) {
            if (buffer.get(at + i) != b[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code b} when it can hold the encoding of {@code length} chars (3 bytes each at most) and 8 spare bytes, so
     * that the last part can be read as one word; else a new, larger buffer.
     */
    static byte[] room(byte[] b, int length) {
        long needed = Math.max((long) Utf8.MAX_BYTES_PER_CHAR * length + 8, MIN_BUFFER);
        if (needed > MAX_BUFFER) {
            // in long: 3 * length overflows an int past ~715M chars (a CharSequence may claim any length)
            throw new IllegalArgumentException("a key of " + length + " chars is longer than any key a store can hold");
        }
        return b != null && b.length >= needed
                ? b
                : new byte[(int) Math.min(MAX_BUFFER, Math.max(needed, b == null ? 64 : 2L * b.length))];
    }

    /**
     * {@code b}, or a small new buffer in its place when {@code b} grew past {@link #RETAINED_BYTES} for one huge key:
     * the buffers live as long as their thread (a Druid processing thread lives for ever), so one such key must not
     * keep megabytes per thread, or per batch place.
     */
    static byte[] trimmed(byte[] b) {
        return b != null && b.length > RETAINED_BYTES ? new byte[64] : b;
    }
}
