package io.sharedlookup.writer.ingest;

/**
 * The partition each of a hash-sampled subset of a namespace's keys was last seen on, in a fixed-size primitive
 * table: no object per key, so a namespace of millions of keys costs the same {@code 16 x capacity} bytes as one of
 * a hundred.
 *
 * <p>A key is tracked when the low {@code level} bits of its 64-bit hash are zero: a share of {@code 2^-level} of all
 * keys. When the table is half full, the level goes up by one and the keys no longer sampled are dropped (about
 * half), so the table tracks as many keys as fit, whatever the namespace's size. A producer whose partitioner changed
 * moves many keys, and so is found with near certainty; a single stray key is found only if it is sampled, with
 * probability {@link #sampledShare()}.
 *
 * <p>Each slot holds the upper 48 bits of the key's hash (its fingerprint; two keys are taken for one only when
 * these agree) and the partition plus one (0 marks a free slot), and beside it the offset it was seen at. Not
 * thread-safe: the ingest thread owns it.
 */
final class KeyPartitionTable {
    private static final int PARTITION_BITS = 16;
    private static final long PARTITION_MASK = (1L << PARTITION_BITS) - 1;
    /** Past this the fingerprint bits left above the sampling bits would no longer tell keys apart well. */
    private static final int MAX_LEVEL = 24;

    private final long[] slots;
    private final long[] offsets;
    private final int mask;
    private int used;
    private int level;

    /** @param capacity slots, a power of two (at most {@code 2^24}) */
    KeyPartitionTable(int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < 2 || capacity > 1 << 24) {
            throw new IllegalArgumentException("capacity must be a power of two from 2 to 2^24: " + capacity);
        }
        slots = new long[capacity];
        offsets = new long[capacity];
        mask = capacity - 1;
    }

    /** What a record of a tracked key found: the partition and offset it was seen at before, on another partition. */
    record Moved(int previousPartition, long previousOffset) {}

    /**
     * Records that the key of hash {@code hash} was seen on {@code partition} at {@code offset}.
     *
     * @return the partition and offset it was last seen on, when that was another partition; null when it was the
     *         same one, the key is new, or the key is not sampled
     */
    Moved seen(long hash, int partition, long offset) {
        if (partition < 0 || partition >= PARTITION_MASK || !sampled(hash)) {
            return null;
        }
        long fingerprint = hash >>> PARTITION_BITS;
        int i = slotOf(fingerprint);
        while (slots[i] != 0) {
            if (slots[i] >>> PARTITION_BITS == fingerprint) {
                int previous = (int) (slots[i] & PARTITION_MASK) - 1;
                long previousOffset = offsets[i];
                slots[i] = fingerprint << PARTITION_BITS | (partition + 1);
                offsets[i] = offset;
                return previous == partition ? null : new Moved(previous, previousOffset);
            }
            i = (i + 1) & mask;
        }
        slots[i] = fingerprint << PARTITION_BITS | (partition + 1);
        offsets[i] = offset;
        if (++used > slots.length / 2) {
            sampleLess();
        }
        return null;
    }

    /** The share of keys tracked: {@code 2^-level}. */
    double sampledShare() {
        return Math.scalb(1.0, -level);
    }

    /** Keys tracked now. */
    int tracked() {
        return used;
    }

    /** The sampling bits are the hash's lowest; the fingerprint keeps them, so a level up can re-judge every slot. */
    private boolean sampled(long hash) {
        return (hash >>> PARTITION_BITS & ((1L << level) - 1)) == 0;
    }

    /** The slot index from the fingerprint's upper bits: the low ones are all zero for sampled keys. */
    private int slotOf(long fingerprint) {
        return (int) (fingerprint >>> MAX_LEVEL) & mask;
    }

    /** Halves the share sampled and keeps only the slots still sampled, re-placed since probe chains change. */
    private void sampleLess() {
        if (level == MAX_LEVEL) {
            // Stop tracking more keys: clearing the table keeps it working, at the cost of what it knew.
            java.util.Arrays.fill(slots, 0);
            used = 0;
            return;
        }
        level++;
        long[] oldSlots = slots.clone();
        long[] oldOffsets = offsets.clone();
        java.util.Arrays.fill(slots, 0);
        used = 0;
        for (int j = 0; j < oldSlots.length; j++) {
            long s = oldSlots[j];
            if (s != 0 && sampled(s)) {
                int i = slotOf(s >>> PARTITION_BITS);
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = s;
                offsets[i] = oldOffsets[j];
                used++;
            }
        }
    }
}
