package io.sharedlookup.jcstress;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.SequenceProtocol;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One segment as the store lays it out, in miniature, for the stress tests: a sequence file's counters (two
 * segments, one {@link SequenceFile#STRIDE} apart; the tests use segment 1, so the counter's offset is computed as in
 * production) and the segment's data, a value of {@link #WORDS} 8-byte words across two cache lines, as an entry of a
 * Chronicle tier may lie. Both are direct buffers aligned to a cache line, like a mapping's pages. A version
 * {@code v} of the value has every word equal to {@code v}: a value whose words differ is half-written.
 */
final class SegmentSnapshot {
    /** The segment the tests change and read. */
    static final int SEGMENT = 1;
    /** Outcome of a read that accepted a value whose words differ: what the protocol must never allow. */
    static final int TORN = 99;
    /** Outcome of a read that saw the counter odd (the writer in the middle of a change): the reader retries. */
    static final int RETRY_ODD = -1;
    /** Outcome of a read whose counter moved while it read: the reader retries. */
    static final int RETRY_MOVED = -2;

    private static final int WORDS = 4;
    /** Word offsets: two words in each of two cache lines. */
    private static final int[] AT = {0, 8, 64, 72};

    final ByteBuffer counters = aligned(2 * SequenceFile.STRIDE);
    final ByteBuffer data = aligned(128);

    private static ByteBuffer aligned(int bytes) {
        return ByteBuffer.allocateDirect(bytes + 64).alignedSlice(64).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The writer's side of both tests: versions 1 and 2 written in turn, each as one change of the segment. */
    void changeTwice() {
        for (long version = 1; version <= 2; version++) {
            SequenceProtocol.beginChange(counters, SEGMENT);
            writeValue(version);
            SequenceProtocol.endChange(counters, SEGMENT);
        }
    }

    /** Plain stores of version {@code v} into every word (Chronicle's stores are plain too). */
    private void writeValue(long v) {
        for (int i = 0; i < WORDS; i++) {
            data.putLong(AT[i], v);
        }
    }

    /** Plain loads of every word: the version they all hold, or {@link #TORN} when they differ. */
    int readValue() {
        long first = data.getLong(AT[0]);
        boolean same = true;
        for (int i = 1; i < WORDS; i++) {
            same &= data.getLong(AT[i]) == first;
        }
        return same ? (int) first : TORN;
    }
}
