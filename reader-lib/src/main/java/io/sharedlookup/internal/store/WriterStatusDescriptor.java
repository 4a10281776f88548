package io.sharedlookup.internal.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The layout of a namespace's {@code writer.status} file, shared by the writer (which alone writes it) and readers
 * (which map it read-only): 64 bytes, little-endian, every field an aligned 8-byte word so that each is read whole.
 *
 * <pre>
 *  0      4        8                16                 24                  32           40     48      52       64
 *  +------+--------+----------------+------------------+-------------------+------------+------+-------+--------+
 *  | magic| version| heartbeat      | heartbeat.at     | current.as.of     | lag        | pid  | state | zeros  |
 *  | SLWS | 1      | count, grows   | epoch ms (info)  | epoch ms, -1 unk. | records,-1 |      | 1 / 2 |        |
 *  +------+--------+----------------+------------------+-------------------+------------+------+-------+--------+
 * </pre>
 *
 * <p>The writer moves {@code heartbeat} on at least every {@link #HEARTBEAT_PERIOD_MILLIS} ms from a thread of its
 * own while it runs, whatever its ingest thread is doing. A reader judges the writer alive while it has seen the count
 * move within {@link #ALIVE_WINDOW_NANOS} of its own monotonic clock: no clocks of two processes are compared.
 * {@code heartbeat.at} only says when, by the writer's wall clock, for people and for a reader's first look.
 * {@code state} is 1 while the writer runs and 2 once it stopped cleanly. The fields are written one by one: a reader
 * may see one field of a tick and another of the next, which never matters for what they say.
 */
public final class WriterStatusDescriptor {
    /** The file's name in the namespace directory. */
    public static final String FILE_NAME = "writer.status";

    public static final int SIZE = 64;
    /** "SLWS" read as a little-endian int. */
    public static final int MAGIC = 0x53574C53;

    public static final int VERSION = 1;
    public static final int MAGIC_AT = 0;
    public static final int VERSION_AT = 4;
    public static final int HEARTBEAT_AT = 8;
    public static final int HEARTBEAT_MILLIS_AT = 16;
    public static final int CURRENT_AS_OF_AT = 24;
    public static final int LAG_AT = 32;
    public static final int PID_AT = 40;
    public static final int STATE_AT = 48;
    public static final int RUNNING = 1;
    public static final int STOPPED = 2;
    /** How often at least the writer moves the heartbeat on. */
    public static final long HEARTBEAT_PERIOD_MILLIS = 100;
    /**
     * How long a reader waits for the heartbeat to move before it judges the writer not alive: longer than a pause of
     * a second (a GC pause, a preemption), shorter than the two seconds in which a killed writer must look dead.
     */
    public static final long ALIVE_WINDOW_NANOS = 1_500_000_000L;

    private static final VarHandle LONG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private WriterStatusDescriptor() {}

    /** The status file of the namespace whose directory is {@code namespaceDir}. */
    public static Path of(Path namespaceDir) {
        return namespaceDir.resolve(FILE_NAME);
    }

    /** Whether {@code buffer} (at least {@link #SIZE} bytes) holds a status file this code reads. */
    public static boolean recognised(ByteBuffer buffer) {
        return buffer.capacity() >= SIZE
                && (int) INT.getAcquire(buffer, MAGIC_AT) == MAGIC
                && (int) INT.getAcquire(buffer, VERSION_AT) == VERSION;
    }

    /** The long at {@code offset} (one of the {@code *_AT} constants), read with acquire semantics. */
    public static long getLong(ByteBuffer buffer, int offset) {
        return (long) LONG.getAcquire(buffer, offset);
    }

    /** The int at {@code offset}, read with acquire semantics. */
    public static int getInt(ByteBuffer buffer, int offset) {
        return (int) INT.getAcquire(buffer, offset);
    }

    /** Writer side: stores {@code value} at {@code offset} with release semantics. */
    public static void putLong(ByteBuffer buffer, int offset, long value) {
        LONG.setRelease(buffer, offset, value);
    }

    /** Writer side: stores {@code value} at {@code offset} with release semantics. */
    public static void putInt(ByteBuffer buffer, int offset, int value) {
        INT.setRelease(buffer, offset, value);
    }
}
