package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.KeySegments;

/**
 * A generation that no reader maps yet (a first build, a rebuild), as one parallel pass fills it: applier threads
 * {@link #apply} records of disjoint keys; the ingest thread counts what they put ({@link #counted}) and ends the pass
 * ({@link #passOver}). Made by {@link NamespaceSink#parallelFill()}, for one pass.
 *
 * <p>No sequence-counter work is saved: each change is still bracketed by its segment's counter inside Chronicle's
 * segment lock, as for a published generation (two ordered writes to a mapped counter per put, small beside the put),
 * so every counter is even whenever no put runs and a publish needs no step to make them so.
 */
public final class ParallelFill {
    private final GenerationFile building;
    private final Generations generations;
    private final Growth growth;
    private final LastError lastError;
    private final MapLayout layout;
    private final int segments;

    private ParallelFill(GenerationFile building, Generations generations, Growth growth, LastError lastError) {
        this.building = building;
        this.generations = generations;
        this.growth = growth;
        this.lastError = lastError;
        this.layout = building.layout();
        this.segments = layout.segments();
        building.sharePuts(); // when the disk is nearly full the puts still go one at a time (PutGate)
    }

    /**
     * A pass over the generation being built, or null when records must go through {@link NamespaceSink#apply} one by
     * one: only a generation that no reader maps yet, once sampled and with no record held back ({@code notYet}
     * false), no growth copy under way (its dual writes are the ingest thread's), no reverse index (keys share its
     * entries) and no stall.
     */
    static ParallelFill of(Generations generations, Growth growth, LastError lastError, boolean notYet) {
        GenerationFile b = generations.building();
        boolean copying = growth.writeLockNanos() != NamespaceSink.WRITE_LOCK_NANOS; // longer only while one runs
        if (b == null || notYet || copying || b.hasReverseIndex() || lastError.stalledAt(System.nanoTime())) {
            return null;
        }
        return new ParallelFill(b, generations, growth, lastError);
    }

    /**
     * Puts {@code key} with {@code value}, or removes it when {@code value} is null; from any applier thread. Whatever
     * stops it (no room left, an entry too large, a full disk, a lock held) is thrown as the put throws it: the record
     * is then not applied, and the ingest thread applies it again through {@link NamespaceSink#apply}, which deals with
     * each case.
     */
    public void apply(String key, String value) {
        if (value == null) {
            building.remove(key, NamespaceSink.WRITE_LOCK_NANOS);
        } else {
            building.put(key, value, NamespaceSink.WRITE_LOCK_NANOS);
        }
    }

    /** The generation's segment count. */
    public int segments() {
        return segments;
    }

    /** The segment Chronicle puts {@code key} in ({@link KeySegments}). */
    public int segmentOf(String key) {
        return KeySegments.segmentOf(layout, key);
    }

    /** On the ingest thread, for each record {@link #apply} put: its sizes, for the next generation's. */
    public void counted(String key, String value) {
        if (value != null) {
            growth.countStored(key, value);
        }
    }

    /** On the ingest thread once every applier of the pass is done: puts go one at a time again. */
    public void passOver(boolean anyApplied) {
        building.exclusivePuts();
        if (anyApplied) {
            generations.markDirty();
            lastError.stallOver(); // a record put: whatever stalled the namespace before is over
        }
    }
}
