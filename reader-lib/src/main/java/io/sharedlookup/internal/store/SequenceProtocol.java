package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The per-segment sequence counter protocol (a seqlock), in one place for both sides: the writer's
 * {@link #beginChange}/{@link #endChange} around every change to a segment, and a reader's {@link #readBegin} /
 * {@link #readValidate} around every read of one. The jcstress module checks exactly these methods.
 *
 * <h2>Where the counters live</h2>
 * A map file's sequence file ({@link SequenceFile}) holds one counter per segment, each alone on a cache line:
 * <pre>
 *   0                   8                                      64                  72
 *   +-------------------+--------------------------------------+-------------------+------ ...
 *   | segment 0 counter |  unused (zero): keeps segments apart  | segment 1 counter |
 *   | int64, little-end.|  so writer threads never false-share  |                   |
 *   +-------------------+--------------------------------------+-------------------+------ ...
 *   counter of segment s at byte s * {@link SequenceFile#STRIDE}; even = stable, odd = a change is in flight
 * </pre>
 * The data the counter guards (the segment's tiers) is in the map file, another mapping: the protocol orders memory
 * accesses, not files, so that does not matter.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li><b>Writer</b>, holding Chronicle's segment write lock (so two writer threads never interleave on a counter):
 *       {@link #beginChange} stores the counter odd, then a full fence, so the odd counter is visible before any store
 *       to the segment (a store-store fence would do; the full fence costs a few nanoseconds against a put and is
 *       not architecture-subtle). The change's stores follow, plain (Chronicle's). {@link #endChange} stores the
 *       counter on to the next even value with <i>release</i>: every store of the change is visible before it.</li>
 *   <li><b>Reader</b>: {@link #readBegin} loads the counter with <i>acquire</i>, so the segment's loads that follow
 *       cannot be satisfied before it (they see at least everything up to the change that made it even). The loads
 *       of the segment are plain. {@link #readValidate} issues an acquire fence (a load-load fence: the segment's
 *       loads complete before what follows), then loads the counter again: the same even value means no change began
 *       while the loads ran, so everything loaded belongs to one stable state. Any other value means retry, and
 *       nothing loaded may be trusted (a racing read may load garbage, so readers check every offset they load
 *       against its mapping before using it).</li>
 * </ul>
 * Why that suffices: if a plain load of the read saw a store of a change that began after {@code readBegin}, that
 * change's odd counter was visible before the store (the writer's fence), and so before the re-read (the reader's
 * fence): the re-read sees a different value. Counters only grow, so a value seen twice means nothing happened in
 * between (a 64-bit counter moved by two per change does not wrap).
 *
 * <p>Every method is static, tiny and allocation-free, over a {@code static final} {@link VarHandle}: the JIT inlines
 * them into the lookup path, which costs what the hand-written reads did.
 */
public final class SequenceProtocol {
    /** 64-bit little-endian counters in a {@code ByteBuffer} (a mapping), at aligned indexes. */
    private static final VarHandle SEQ = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private SequenceProtocol() {}

    /**
     * Writer, before changing {@code segment}: its counter goes odd, and no store to the segment is visible before
     * that. Only the segment's one writer (under its write lock) may call this.
     */
    public static void beginChange(ByteBuffer counters, int segment) {
        int at = segment * SequenceFile.STRIDE;
        long value = (long) SEQ.getOpaque(counters, at); // only this thread writes it: no stronger load needed
        SEQ.setOpaque(counters, at, value | 1);
        VarHandle.fullFence(); // the odd counter before any store of the change (see the class comment)
    }

    /** Writer, after changing {@code segment}: every store of the change is visible before its counter goes even. */
    public static void endChange(ByteBuffer counters, int segment) {
        int at = segment * SequenceFile.STRIDE;
        long value = (long) SEQ.getOpaque(counters, at);
        SEQ.setRelease(counters, at, (value | 1) + 1);
    }

    /**
     * Reader, before reading {@code segment}: its counter, loaded with acquire. Odd ({@link #inChange}) means the
     * writer is changing the segment: wait and begin again rather than read.
     */
    public static long readBegin(ByteBuffer counters, int segment) {
        return (long) SEQ.getAcquire(counters, segment * SequenceFile.STRIDE);
    }

    /** Whether a counter value says a change is in flight (odd). */
    public static boolean inChange(long sequence) {
        return (sequence & 1) != 0;
    }

    /**
     * Reader, after reading {@code segment}: whether everything read since {@link #readBegin} returned
     * {@code before} belongs to one stable state (it began on an even counter that has not moved). When false, the
     * read must be thrown away and retried.
     */
    public static boolean readValidate(ByteBuffer counters, int segment, long before) {
        VarHandle.acquireFence(); // load-load: the segment's loads complete before the counter is loaded again
        return (before & 1) == 0 && (long) SEQ.getAcquire(counters, segment * SequenceFile.STRIDE) == before;
    }

    /** The counter of {@code segment} now, loaded with acquire, outside any read (for sums, tests and diagnostics). */
    public static long current(ByteBuffer counters, int segment) {
        return (long) SEQ.getAcquire(counters, segment * SequenceFile.STRIDE);
    }
}
