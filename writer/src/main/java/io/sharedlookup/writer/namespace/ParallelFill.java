package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationUnusableException;
import io.sharedlookup.writer.store.KeySegments;
import java.util.function.BiConsumer;

/**
 * A generation that no reader maps yet (a first build, a rebuild), as one parallel pass fills it: applier threads
 * {@link #apply} records of disjoint keys; the ingest thread counts what they put ({@link #counted}) and ends the pass
 * ({@link #passOver}). Made by {@link NamespaceIngest#parallelFill()}, for one pass.
 *
 * <p>No sequence-counter work is saved: each change is still bracketed by its segment's counter inside Chronicle's
 * segment lock, as for a published generation (two ordered writes to a mapped counter per put, small beside the put),
 * so every counter is even whenever no put runs and a publish needs no step to make them so.
 */
public final class ParallelFill {
    private final GenerationFile building;
    private final GenerationLife life;
    private final Growth growth;
    private final LastError lastError;
    private final MapLayout layout;
    private final int segments;
    private final PassTiers tiers;
    /**
     * Set by the applier whose put found the generation unusable ({@link GenerationUnusableException}); every applier
     * looks before each put and stops, and the ingest thread rebuilds the namespace rather than put into it again.
     */
    private volatile GenerationUnusableException unusable;
    /**
     * Test hook, null outside tests: called with each record before an applier puts it, it may throw what
     * {@link GenerationFile#put} throws (a {@link GenerationUnusableException} cannot be provoked on demand).
     */
    public static volatile BiConsumer<String, String> faultForTests;

    private ParallelFill(GenerationFile building, GenerationLife life, Growth growth, LastError lastError) {
        this.building = building;
        this.life = life;
        this.growth = growth;
        this.lastError = lastError;
        this.layout = building.layout();
        this.segments = layout.segments();
        this.tiers = new PassTiers(layout);
    }

    /**
     * A pass of {@code records} records over the generation being built, or null when records must go through
     * {@link NamespaceIngest#apply} one by one: only a generation that no reader maps yet, once sampled and with no
     * record held back ({@code notYet} false), no growth copy under way (its dual writes are the ingest thread's), no
     * reverse index (keys share its entries) and no stall; and only when nothing the ingest thread checks every few
     * records ({@link Growth#checkWithinBatch}) could happen within the pass: growth not waiting for a retry (the stall
     * at its fill limit), the fill ratio staying under {@link Growth#GROW_NOW_AT} even if every record adds a key,
     * Chronicle's free space not low. Its records are then {@link #plan planned}, and run by appliers only if
     * {@link #open} says so.
     */
    static ParallelFill of(GenerationLife life, Growth growth, LastError lastError, boolean notYet, int records) {
        GenerationFile b = life.building();
        boolean copying = growth.writeLockNanos() != NamespaceIngest.WRITE_LOCK_NANOS; // longer only while one runs
        if (b == null || notYet || copying || b.hasReverseIndex() || lastError.stalledAt(System.nanoTime())) {
            return null;
        }
        if (growth.deferred(System.nanoTime())
                || (double) (b.size() + records) / b.capacity() >= Growth.GROW_NOW_AT
                || growth.freeSpace.lowBeforePass(b)) {
            return null;
        }
        return new ParallelFill(b, life, growth, lastError);
    }

    /**
     * Puts {@code key} with {@code value}, or removes it when {@code value} is null; from any applier thread. Whatever
     * stops it (no room left, an entry too large, a full disk, a lock held) is thrown as the put throws it: the record
     * is then not applied, and the ingest thread applies it again through {@link NamespaceIngest#apply}, which deals with
     * each case; except a {@link GenerationUnusableException}, which the applier hands to {@link #poison}.
     */
    public void apply(String key, String value) {
        BiConsumer<String, String> fault = faultForTests;
        if (fault != null) {
            fault.accept(key, value);
        }
        if (value == null) {
            building.remove(key, NamespaceIngest.WRITE_LOCK_NANOS);
        } else {
            building.put(key, value, NamespaceIngest.WRITE_LOCK_NANOS);
        }
    }

    /**
     * The generation must never be written again ({@code e}): every applier stops before its next put
     * ({@link #poisoned}), and the ingest thread rebuilds ({@link #rebuildNeeded}) at the first record not put.
     */
    public void poison(GenerationUnusableException e) {
        if (unusable == null) {
            unusable = e;
        }
    }

    /** Whether an applier found the generation unusable in this pass: nothing may put into it again. */
    public boolean poisoned() {
        return unusable != null;
    }

    /**
     * What the ingest thread acts on at the first record of a poisoned pass that was not put, as the one-by-one path
     * returns it for a {@link GenerationUnusableException} ({@link TargetWrites}): the namespace is rebuilt from its
     * topic. Null when not poisoned.
     */
    public Applied.RebuildNeeded rebuildNeeded() {
        GenerationUnusableException e = unusable;
        return e == null ? null : new Applied.RebuildNeeded(e.getMessage());
    }

    /** The generation's segment count. */
    public int segments() {
        return segments;
    }

    /**
     * On the ingest thread, for each record of the pass (before {@link #open}): the segment Chronicle puts
     * {@code key} in ({@link KeySegments}); counts the room the record may take.
     */
    public int plan(String key, String value) {
        int segment = KeySegments.segmentOf(layout, key);
        tiers.add(segment, key, value);
        return segment;
    }

    /**
     * On the ingest thread once every record is {@link #plan planned}: whether the appliers may put them together now
     * ({@link GenerationFile#sharePuts}: none of their puts can race another over tiers), the gate then open until
     * {@link #passOver}. False: the ingest thread applies them one by one.
     */
    public boolean open() {
        return building.sharePuts(tiers.atMost());
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
            life.markDirty();
            lastError.stallOver(); // a record put: whatever stalled the namespace before is over
        }
    }
}
