package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Chronicle's entry bytes decoded within one tier (layout in {@link MapLayout}): hash-lookup slots, stop-bit sizes and
 * value copies. Every method takes the tier as a buffer and its base, and stays within the tier whatever the bytes say
 * (a read may race with the writer and see a half-changed entry). Static and small, so that the JIT inlines them into
 * the lookups, {@link MappedMap}'s probe included.
 */
final class EntryBytes {
    /** Plain 8-byte reads from a mapping at any index (plain access allows unaligned indexes); bounds-checked. */
    private static final VarHandle MAPPED_LONG =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /**
     * From this many bytes a value is copied in one bulk copy ({@link #copyValueInBulk}); shorter ones word by word,
     * where a bulk copy's set-up would cost more than it saves.
     */
    static final int BULK_COPY = 128;

    private static final VarHandle ARRAY_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private EntryBytes() {}

    /** Hash-lookup slot {@code index} of the tier at {@code base}, slots being {@code 1 << slotShift} bytes. */
    static long slot(ByteBuffer buffer, int base, long index, int slotShift) {
        return slotShift == 2
                ? buffer.getInt(base + (int) (index << 2)) & 0xFFFFFFFFL
                : buffer.getLong(base + (int) (index << 3));
    }

    /**
     * The stop-bit size at tier offset {@code at} (below {@code tierSize}), packed as its encoded length {@code << 32
     * | size}; -1 when it is no size that fits the tier. One read for the common one-byte size.
     */
    static long sizeAt(ByteBuffer buffer, int base, int at, int tierSize) {
        int first = buffer.get(base + at);
        if (first >= 0) {
            return (1L << 32) | first;
        }
        long size = readStopBit(buffer, base, at, tierSize);
        return size < 0 || size > tierSize ? -1 : (long) stopBitLength(size) << 32 | size;
    }

    /**
     * Reads a non-negative stop-bit number (7 bits per byte, low bits first, high bit = more follow) at tier offset
     * {@code at}; -1 when it is not one or runs past the tier.
     */
    private static long readStopBit(ByteBuffer buffer, int base, int at, int tierSize) {
        long value = 0;
        for (int shift = 0; shift <= 56; shift += 7) {
            if (at >= tierSize) {
                return -1;
            }
            int b = buffer.get(base + at++);
            if (b >= 0) {
                if (b == 0 && shift > 0) {
                    return -1; // Chronicle's encoding of a negative number: never a size
                }
                return value | ((long) b << shift);
            }
            value |= (long) (b & 0x7F) << shift;
        }
        return -1;
    }

    private static int stopBitLength(long value) {
        int n = 1;
        while ((value >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    /**
     * Copies the {@code size} bytes at {@code at} (which end by {@code limit}, the end of their tier) into {@code out}:
     * 8 bytes at a time when the tier leaves room for the last whole word, else in one bulk copy.
     */
    static void copyValue(ByteBuffer buffer, int at, int size, int limit, Utf8Text out) {
        if (size >= BULK_COPY || ((size + 7) & ~7) > limit - at) {
            copyValueInBulk(buffer, at, size, out);
            return;
        }
        byte[] b = out.reserve(size);
        long any = 0;
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            long v = (long) MAPPED_LONG.get(buffer, at + i);
            ARRAY_LONG.set(b, i, v);
            any |= v;
        }
        if (i < size) {
            long v = (long) MAPPED_LONG.get(buffer, at + i) & (-1L >>> (64 - 8 * (size - i)));
            ARRAY_LONG.set(b, i, v);
            any |= v;
        }
        out.filled(size, any);
    }

    /**
     * {@link #copyValue} for a long value, or one whose last word would pass its tier's end: one bulk copy (the JDK's
     * vectorised memory copy), then the ASCII check over the copy, which is in the cache by then. Word by word, a
     * 2 KB value cost about as much again as the rest of the lookup.
     */
    private static void copyValueInBulk(ByteBuffer buffer, int at, int size, Utf8Text out) {
        byte[] b = out.reserve(size);
        buffer.get(at, b, 0, size);
        long any = 0;
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            any |= (long) ARRAY_LONG.get(b, i);
        }
        for (; i < size; i++) {
            any |= b[i]; // sign-extended: a byte >= 0x80 sets the high bits
        }
        out.filled(size, any);
    }
}
