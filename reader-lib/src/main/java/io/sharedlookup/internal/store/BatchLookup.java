package io.sharedlookup.internal.store;

import java.nio.ByteBuffer;

/**
 * The batch lookup of a map file ({@link MappedMap#getAllInto}): many keys' first attempts run phase by phase, over the
 * single lookup's own probe.
 *
 * <p>Why a batch is faster per key: one lookup is a chain of dependent cache misses (the key, its hash-lookup slot,
 * its entry), and single calls in a row leave the processor too much work between them to overlap the next call's
 * misses with this one's (docs/benchmarks.md). Here each step is done for every key before the next step — all
 * keys' chars, then all hashes, then all slots, then all entries — so a step's misses are independent reads a few
 * instructions apart, which the processor overlaps. Each key's reads still lie between two reads of its segment's
 * counter. Every key shape takes part: an ASCII {@code String} read from its chars, any other key encoded once into
 * the batch's buffer for its place. A null key is absent; an empty key, or one whose first attempt is not decided (a
 * race with the writer, a long collision chain, an extra tier), takes the single-key path.
 *
 * <p>Static methods over the map rather than an object of its own: the probe's numbers stay in the map's final
 * fields, read as the single lookup reads them, with no object between.
 */
final class BatchLookup {
    private BatchLookup() {}

    /** {@link MappedMap#getAllInto} of {@code map}. */
    static int getAllInto(MappedMap map, CharSequence[] keys, int from, int n, LookupBatch batch, long timeoutNanos) {
        int touched = 0;
        for (int i = 0; i < n; i++) { // the keys' char arrays: the key Strings' misses overlap
            CharSequence key = keys[from + i];
            touched += key instanceof String ? ((String) key).length() : 0;
        }
        for (int i = 0; i < n; i++) { // the keys' words and hashes: no misses once the chars are in the cache
            batch.length[i] = batch.classify(keys[from + i], i, null, 0);
        }
        for (int i = 0; i < n; i++) { // segments and counters: no misses
            if (batch.length[i] != 0) {
                long hash = batch.hash[i];
                int segment = map.segmentOf(hash);
                batch.segment[i] = segment;
                batch.slotKey[i] = map.slotKeyOf(hash);
                batch.before[i] = SequenceProtocol.readBegin(map.sequences, segment);
            }
        }
        for (int i = 0; i < n; i++) { // the first hash-lookup slots: their misses overlap
            if (batch.length[i] != 0) {
                int segment = batch.segment[i];
                batch.slot[i] = EntryBytes.slot(
                        map.firstTierBufferOf(segment),
                        map.firstTierBaseOf(segment),
                        batch.slotKey[i] & map.hashLookupMask,
                        map.slotShift);
            }
        }
        for (int i = 0; i < n; i++) { // the entries' first bytes: their misses overlap; the next loop hits the cache
            long slot = batch.slot[i];
            int entry = map.entryOffset(slot); // < tierSize (MapLayout checks the entry space)
            if (batch.length[i] != 0 && slot != 0 && entry >= 0) {
                int segment = batch.segment[i];
                touched += map.firstTierBufferOf(segment).get(map.firstTierBaseOf(segment) + entry);
            }
        }
        batch.touched = touched;
        int present = 0;
        for (int i = 0; i < n; i++) {
            Utf8Text out = batch.out[i];
            CharSequence key = keys[from + i];
            int found = batch.length[i] != 0 ? decideBatched(map, batch, i, out) : MappedMap.UNDECIDED;
            if (found == MappedMap.UNDECIDED && key == null) {
                out.clear();
                found = MappedMap.ABSENT;
            } else if (found == MappedMap.UNDECIDED) {
                found = map.getInto(key, out, timeoutNanos);
                if (found == MappedMap.TIMED_OUT) {
                    return MappedMap.TIMED_OUT;
                }
            }
            batch.found[i] = found == MappedMap.PRESENT;
            present += found == MappedMap.PRESENT ? 1 : 0;
        }
        return present;
    }

    /**
     * Key {@code i} of {@code batch} decided from its first slot, read in the batch, and its segment's counter:
     * {@link MappedMap#PRESENT} (its value in {@code out}), {@link MappedMap#ABSENT} ({@code out} cleared) or
     * {@link MappedMap#UNDECIDED}.
     */
    private static int decideBatched(MappedMap map, LookupBatch batch, int i, Utf8Text out) {
        long before = batch.before[i];
        if (SequenceProtocol.inChange(before)) {
            return MappedMap.UNDECIDED;
        }
        int segment = batch.segment[i];
        ByteBuffer buffer = map.firstTierBufferOf(segment);
        int base = map.firstTierBaseOf(segment);
        long slotKey = batch.slotKey[i];
        long w0 = batch.w0[i];
        long w1 = batch.w1[i];
        int length = batch.length[i];
        String ascii = batch.ascii[i];
        byte[] bytes = batch.bytes[i];
        int found = map.decideSlot(segment, buffer, base, batch.slot[i], slotKey, w0, w1, length, ascii, bytes, out);
        if (found == MappedMap.OTHER_KEY) {
            found = map.probeOnward(
                    segment, buffer, base, slotKey & map.hashLookupMask, slotKey, w0, w1, length, ascii, bytes, out);
        }
        if (found == MappedMap.UNDECIDED
                || !SequenceProtocol.readValidate(map.sequences, segment, before)
                || found == MappedMap.PRESENT && !out.decode()) {
            return MappedMap.UNDECIDED;
        }
        if (found == MappedMap.ABSENT) {
            out.clear();
        }
        return found;
    }
}
