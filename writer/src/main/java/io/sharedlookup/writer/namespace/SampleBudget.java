package io.sharedlookup.writer.namespace;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One heap budget for the records every namespace holds back while it samples for its first generation's size
 * ({@link InitialSizing}), shared by all the namespaces of a writer: until a rebuild's generation exists, the records
 * read for it can only be kept on the heap, and sixteen namespaces of 4 KB values each holding 1,000 of them (4 MB)
 * exhausted a sidecar's 64 MB heap at the first start. Each namespace may hold at most its share of the budget (the
 * budget divided by the namespaces), and none more than is left of it; a namespace whose share is spent sizes its
 * generation from the records it holds (a smaller sample: sizes are averages, and growth corrects a wrong guess).
 * Reservations are released as held-back records are applied, or dropped with an abandoned rebuild.
 */
public final class SampleBudget {
    /**
     * What all namespaces together may hold back, in estimated heap bytes: 8 MB, an eighth of the documented 64 MB
     * sidecar heap, next to the consumer's fetch buffers (8 MB) and one poll batch.
     */
    public static final long TOTAL_BYTES = 8L << 20;
    /** A String and its share of the held-back pair, beyond its characters. */
    private static final long OVERHEAD_BYTES = 48;

    private final long total;
    private final int namespaces;
    private final AtomicLong reserved = new AtomicLong();

    /**
     * @param totalBytes what all namespaces together may hold back
     * @param namespaces how many namespaces share it (at least one)
     */
    public SampleBudget(long totalBytes, int namespaces) {
        this.total = totalBytes;
        this.namespaces = Math.max(1, namespaces);
    }

    /** The writer's budget, {@link #TOTAL_BYTES}, shared by {@code namespaces}. */
    public static SampleBudget shared(int namespaces) {
        return new SampleBudget(TOTAL_BYTES, namespaces);
    }

    /** What one namespace may hold back at most. */
    long share() {
        return total / namespaces;
    }

    /**
     * The estimated heap bytes of a held-back record: two bytes a character (a String's characters take one when all
     * are Latin-1, two otherwise; the bound, not the scan that would tell).
     */
    static long cost(String key, String value) {
        return 2L * key.length() + (value == null ? 0 : 2L * value.length()) + 2 * OVERHEAD_BYTES;
    }

    /** Reserves {@code bytes} when what is left of the budget holds them; whether it did. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = reserved.get();
            if (now + bytes > total) {
                return false;
            }
            if (reserved.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} reserved before. */
    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    /** Bytes reserved now, by all namespaces. */
    long reserved() {
        return reserved.get();
    }
}
