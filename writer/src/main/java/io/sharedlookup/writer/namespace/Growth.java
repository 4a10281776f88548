package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.Utf8;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.EntryRoom;
import io.sharedlookup.writer.store.EntrySizes;
import io.sharedlookup.writer.store.EntryTooLargeException;
import io.sharedlookup.writer.store.Fill;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moving a namespace to a new generation by copying its current one: growth into a bigger one when it fills up (in
 * the background, or at once past {@link #GROW_NOW_AT} or when a put finds no room), and replacement by a copy of the
 * same size when a segment lock was left held. Decides when (fill ratio, Chronicle's free space); when that fails,
 * {@link GrowthRetry} says when to try again.
 *
 * <p>Copies run on the ingest thread between records, or on a {@link BackgroundCopy} thread while the ingest thread
 * writes every record to both generations: no update can be lost or reordered, and readers keep reading the published
 * generation meanwhile.
 */
final class Growth {
    private static final Logger log = LoggerFactory.getLogger(Growth.class);
    /** While a background copy holds a segment's update lock, writes to that segment wait for it to be copied. */
    private static final long GROWING_WRITE_LOCK_NANOS = 10_000_000_000L;
    /** Past this fill ratio growth is not left to the end of the poll batch. */
    static final double GROW_NOW_AT = 1.5;
    /** Past this fill ratio, with growth failing, consumption pauses rather than risk Chronicle's hard limit. */
    private static final double STALL_AT = 1.8;
    /**
     * The fill ratio is looked at once every this many records within a batch, or every 1/1024 of the capacity if
     * that is more: between {@link #GROW_NOW_AT} and Chronicle's limit (about 2.2) there is room for far more records
     * than that, and each look may also ask Chronicle for its free space (see {@link FreeSpaceLooks}).
     */
    private static final int RECORDS_PER_CHECK = 64;

    private final GenerationLife life;
    private final WriterMetrics metrics;
    private final LastError lastError;
    private final String nsLabel;
    private final GrowthRetry retry;

    final FreeSpaceLooks freeSpace = new FreeSpaceLooks(); // also asked before a parallel pass (ParallelFill)
    private final SynchronousReplacement replacement;
    /** A bigger generation being filled in the background from the target; records go to both meanwhile. */
    private BackgroundCopy growing;

    private int opsSinceCheck;
    /** The last check stalled because the target is too full to wait for growth's retry: check the next record too. */
    private boolean stalledTooFull;
    /** What was stored: the averages a bigger generation is sized with, and the largest entry it must take. */
    private final EntrySizes sizes = new EntrySizes();

    Growth(GenerationLife life, WriterMetrics metrics, LastError lastError, String namespace) {
        this.life = life;
        this.metrics = metrics;
        this.lastError = lastError;
        this.nsLabel = namespace;
        this.retry = new GrowthRetry(lastError, namespace);
        this.replacement = new SynchronousReplacement(life, sizes, namespace);
    }

    /** How long a write waits for a segment lock: longer while a background copy holds them one by one. */
    long writeLockNanos() {
        return growing == null ? NamespaceIngest.WRITE_LOCK_NANOS : GROWING_WRITE_LOCK_NANOS;
    }

    /** Counts an entry stored in the target, for the sizes of the next generation. */
    void countStored(String key, String value) {
        sizes.countStored(key, value);
    }

    /**
     * Within a batch: past {@link #GROW_NOW_AT} (or low on free space), grows now rather than after the batch;
     * {@link Applied.Stalled} when the target is too full to take the record.
     */
    Applied checkWithinBatch(Positions positions) {
        GenerationFile t = life.target();
        // After a stall for being too full, the record read again is checked at once: counted as one more of the
        // batch's records, it would be let in, and the next ones with it, until the next check.
        if (!stalledTooFull && ++opsSinceCheck < Math.max(RECORDS_PER_CHECK, t.capacity() >> 10)) {
            return Applied.DONE;
        }
        opsSinceCheck = 0;
        stalledTooFull = false;
        if ((double) t.size() / t.capacity() >= GROW_NOW_AT || freeSpace.low(t)) {
            if (growing != null) {
                finish(positions, false);
            } else {
                return growIfPossible(positions, false);
            }
        }
        return Applied.DONE;
    }

    /**
     * After a poll batch ({@code positions} are exact): switches to a finished background copy, or starts one when
     * the target is filled to {@link Fill#GROW_AT} or low on free space.
     */
    void afterBatch(Positions positions, boolean sampling) {
        if (growing != null && growing.isFinished()) {
            finish(positions, true);
        }
        if (life.target() != null && !sampling && growing == null) {
            GenerationFile t = life.target();
            if ((double) t.size() / t.capacity() >= Fill.GROW_AT || freeSpace.low(t)) {
                startGrowth();
            } else if (!deferred(System.nanoTime()) && freeSpace.roomyAtLastLook(t)) {
                lastError.stepSucceeded(LastError.GROWTH); // no longer needed (entries removed): its failure is over
            }
        }
    }

    /** The second half of a dual write: the same change in the generation being filled in the background. */
    void alsoWriteToCopy(String key, String value) {
        if (growing == null) {
            return;
        }
        try {
            if (value == null) {
                growing.to.remove(key, GROWING_WRITE_LOCK_NANOS);
            } else {
                growing.to.put(key, value, GROWING_WRITE_LOCK_NANOS);
            }
        } catch (EntryTooLargeException e) {
            // The old generation took it, so the next one must too: started again, sized for it.
            tooSmall(EntrySizes.bytesOf(key, value));
        } catch (RuntimeException e) {
            cancel(e.toString());
        }
    }

    /**
     * A put found no room ({@link io.sharedlookup.writer.store.TiersExhaustedException}): entries grew larger than
     * the sizes the generation was made for, so its bytes ran out before its count. Nothing was written; moves to a
     * generation sized with the averages seen so far, where the caller applies the record.
     *
     * @return {@link Applied#DONE}, or {@link Applied.Stalled} when no bigger generation can be made now
     */
    Applied growBecauseFull(Positions positions) {
        GenerationFile t = life.target();
        log.warn(
                "Namespace '{}': generation {} is full at {} entries (entries larger than sampled); growing now",
                nsLabel,
                t.file().getFileName(),
                t.size());
        if (growing != null && finish(positions, false)) {
            return Applied.DONE; // copy complete and switched to: the record was written nowhere yet
        }
        GenerationSizing bigger = sizes.next(life.sizing(), life.target().size(), true);
        try {
            replace(bigger, positions, false);
            grown();
            return Applied.DONE;
        } catch (IOException | RuntimeException io) {
            return lastError.stall(
                    retry.growthFailed("generation full and cannot grow to " + bigger.entries() + " entries", io),
                    GrowthRetry.retryMillis(io));
        }
    }

    /**
     * A record's entry ({@code key}, {@code value}) does not fit the target's layout (Chronicle's one-tier limit, from
     * the averages the target was sized with): moves to a copy made to take it, where the caller applies the record,
     * rather than skip a value under {@code --max-value-bytes}. The copy is of the same capacity unless the target is
     * due to grow (a background copy runs, or it is filled to {@link Fill#GROW_AT}): then it is the growth, since it
     * replaces the background copy, and growth is neither deferred nor shown as failed for it.
     *
     * @return {@link Applied#DONE} when the target now takes it; null when it was made for such an entry already
     *         (Chronicle's own limit: the caller skips the record); {@link Applied.Skipped} (counted as an oversize
     *         skip) when no generation taking it should be made: its tiers would pass what readers map or a share of
     *         the free disk ({@link EntryRoom#refusal}), never a stall, which no retry would end;
     *         {@link Applied.Stalled} when no such copy can be made now: the record waits, as for a full generation
     */
    Applied makeRoomFor(String key, String value, Positions positions) {
        long bytes = EntrySizes.bytesOf(key, value);
        if (bytes <= life.sizing().largestEntryBytes()) {
            return null;
        }
        String what = "cannot make a generation that takes an entry of " + bytes + " bytes";
        if (deferred(System.nanoTime())) { // a copy failed a moment ago: not a whole copy per record
            return lastError.stall(what + " before growth's retry time", retry.millisUntilRetry());
        }
        GenerationFile t = life.target();
        boolean grow = growing != null || (double) t.size() / t.capacity() >= Fill.GROW_AT;
        GenerationSizing sizing = sizes.next(life.sizing(), t.size(), grow).withLargestEntry(bytes);
        String refusal = EntryRoom.refusal(sizing, life.reverseIndex(), life.usableSpace());
        if (refusal != null) {
            metrics.oversize.labelValues(nsLabel).inc();
            lastError.stallOver(); // dealt with (skipped), if it was the record a stall waited for
            return new Applied.Skipped(
                    "value of key '" + (key.length() <= 200 ? key : key.substring(0, 200) + "...") + "' skipped: "
                            + refusal + ". Raise nothing; to skip such values at once, lower "
                            // standard UTF-8, not Chronicle's: --max-value-bytes is compared with the record's bytes
                            + "--max-value-bytes below " + Utf8.length(value),
                    true);
        }
        sizes.mustTake(bytes); // only once it is taken: a skipped value must not lengthen later generations
        log.warn(
                "Namespace '{}': an entry of {} bytes does not fit generation {}; copying it into one that takes it",
                nsLabel,
                bytes,
                t.file().getFileName());
        try {
            if (growing != null) { // replaced by this copy, not failed: growth is not deferred
                dropCopy((file, e) -> log.warn(
                        "Namespace '{}': cannot delete replaced generation {}: {}", nsLabel, file, e.toString()));
            }
            replacement.replace(sizing, positions, false);
            if (grow) {
                grown();
            }
            return Applied.DONE;
        } catch (IOException | RuntimeException e) {
            return lastError.stall(retry.growthFailed(what, e), GrowthRetry.retryMillis(e));
        }
    }

    /**
     * A segment of the target stayed locked past {@link NamespaceIngest#WRITE_LOCK_NANOS} (a killed process left it):
     * moves to a copy of the same size, where the caller applies the record.
     *
     * @return {@link Applied#DONE}; {@link Applied.Stalled} when the copy cannot be made now;
     *         {@link Applied.RebuildNeeded} when a stuck update lock blocks the copy too
     */
    Applied replaceLocked(LockTimeoutException e, Positions positions) {
        log.warn("Namespace '{}': {}", nsLabel, e.getMessage());
        cancel("a lock was left held in the generation being copied");
        metrics.replacements.labelValues(nsLabel).inc();
        try {
            replace(sizes.next(life.sizing(), life.target().size(), false), positions, false);
            return Applied.DONE;
        } catch (IOException | IllegalStateException | EntryTooLargeException io) {
            // Never let the ingest thread die on it (it used to, with /health still ok): report and retry.
            return lastError.stall(
                    "cannot replace a generation left locked: " + io.getMessage(), Applied.Stalled.PAUSE_MILLIS);
        } catch (LockTimeoutException copyLocked) {
            // The copy needs each segment's update lock, and a process that died while scanning (a reader's
            // forEach or a reverse-lookup scan) left one held: this generation cannot be copied. Kafka still
            // has everything, so build the next one from the topic.
            return new Applied.RebuildNeeded(
                    "generation " + life.target().file().getFileName() + " cannot be written or copied ("
                            + copyLocked.getMessage() + ")");
        }
    }

    /** Whether growth waits for its retry time at {@code nowNanos} (the status then says STALLED). */
    boolean deferred(long nowNanos) {
        return retry.deferred(nowNanos);
    }

    /** Abandons a background copy and deletes its file, without retrying later: the namespace stops or rebuilds. */
    void cancelQuietly() {
        if (growing != null) {
            dropCopy((file, e) -> log.debug("Cannot delete {}", file, e));
        }
    }

    /**
     * Before a rebuild: abandons a background copy and forgets growth's retry time and averages (the rebuild clears
     * {@code lastError}, its failures with it). The new generation is sized from a new sample and grows when it fills,
     * not held back by (or stalled with) a failure of the one it replaces.
     */
    void startOver() {
        cancelQuietly();
        stalledTooFull = false;
        opsSinceCheck = 0;
        retry.reset();
        sizes.clear();
    }

    /** Starts filling a bigger generation in the background; records are written to both until it is done. */
    private void startGrowth() {
        if (deferred(System.nanoTime())) {
            return;
        }
        GenerationFile t = life.target();
        GenerationSizing bigger = sizes.next(life.sizing(), t.size(), true);
        GenerationFile next;
        try {
            next = life.create(bigger);
        } catch (IOException | RuntimeException e) {
            retry.growthFailed("cannot create a generation of " + bigger.entries() + " entries", e);
            return;
        }
        log.info(
                "Namespace '{}': generation {} holds {} of {} entries; filling {} for {} in the background",
                nsLabel,
                t.file().getFileName(),
                t.size(),
                t.capacity(),
                next.file().getFileName(),
                bigger.entries());
        growing = BackgroundCopy.start(t, next, bigger, nsLabel);
    }

    /** Grows synchronously unless growth waits for its retry time; past {@link #STALL_AT} that stalls the topic. */
    private Applied growIfPossible(Positions positions, boolean batchComplete) {
        GenerationFile t = life.target();
        double ratio = (double) t.size() / t.capacity();
        if (deferred(System.nanoTime())) {
            return ratio >= STALL_AT ? stallWhileFull() : Applied.DONE;
        }
        GenerationSizing bigger = sizes.next(life.sizing(), t.size(), true);
        log.info(
                "Namespace '{}': generation {} holds {} of {} entries; building one for {}",
                nsLabel,
                t.file().getFileName(),
                t.size(),
                t.capacity(),
                bigger.entries());
        try {
            replace(bigger, positions, batchComplete);
            grown();
        } catch (IOException | RuntimeException e) {
            retry.growthFailed("cannot grow to " + bigger.entries() + " entries", e);
            if (ratio >= STALL_AT) {
                return stallWhileFull();
            }
        }
        return Applied.DONE;
    }

    private Applied.Stalled stallWhileFull() {
        stalledTooFull = true;
        long retryMillis = retry.millisUntilRetry();
        // growth's own failure, rather than whatever else lastError shows (a failing checkpoint, say)
        String error = lastError.failing(LastError.GROWTH);
        if (error == null) { // rare: a switch ended growth's failure while its retry time still stands
            GenerationFile t = life.target();
            error = "generation " + t.file().getFileName() + " is full (" + t.size() + " of " + t.capacity()
                    + " entries) and growth is retried later";
        }
        return lastError.stall(error, retryMillis);
    }

    /** Copies the target synchronously into a generation of {@code newSizing} and switches to it. */
    private void replace(GenerationSizing newSizing, Positions positions, boolean positionsExact) throws IOException {
        cancel("replaced synchronously");
        replacement.replace(newSizing, positions, positionsExact);
    }

    /**
     * The background copy refused an entry of {@code entryBytes}: the copy is dropped and, unless it was sized for
     * such an entry already, the next try (not deferred) is sized for it, so that no stored entry is ever dropped.
     */
    private void tooSmall(long entryBytes) {
        sizes.mustTake(entryBytes);
        BackgroundCopy copy = growing;
        if (entryBytes <= copy.sizing.largestEntryBytes()) {
            cancel("an entry of " + entryBytes + " bytes does not fit the new generation sized for it");
            return;
        }
        dropCopy((file, e) ->
                log.warn("Namespace '{}': cannot delete abandoned generation {}: {}", nsLabel, file, e.toString()));
        log.warn(
                "Namespace '{}': an entry of {} bytes does not fit the new generation {}; building one that takes it",
                nsLabel,
                entryBytes,
                copy.to.file().getFileName());
    }

    /** Abandons a background copy, deletes its file and retries growth later ({@link GrowthRetry#abandoned}). */
    private void cancel(String why) {
        if (growing == null) {
            return;
        }
        dropCopy((file, e) ->
                log.warn("Namespace '{}': cannot delete abandoned generation {}: {}", nsLabel, file, e.toString()));
        retry.abandoned(why);
    }

    /** Stops the background copy and deletes its file; {@code undeletable} hears of a file that stays. */
    private void dropCopy(BiConsumer<Path, Exception> undeletable) {
        BackgroundCopy copy = growing;
        growing = null;
        copy.cancel();
        try {
            life.discard(copy.to);
        } catch (IOException | RuntimeException e) {
            undeletable.accept(copy.to.file(), e);
        }
    }

    /**
     * Waits for the background copy and switches to its generation.
     *
     * @return whether it switched
     */
    private boolean finish(Positions positions, boolean positionsExact) {
        BackgroundCopy copy = growing;
        Throwable failure = copy.await();
        if (failure instanceof EntryTooLargeException) {
            tooSmall(copy.refusedEntryBytes());
            return false;
        } else if (failure != null) {
            cancel("copy failed: " + failure);
            return false;
        }
        growing = null;
        try {
            life.switchTo(copy.to, copy.sizing, positions, positionsExact);
        } catch (IOException | RuntimeException e) {
            replacement.discardUnpublished(copy.to);
            retry.publishFailed(e);
            return false;
        }
        grown();
        return true;
    }

    /** Switched to a bigger generation: counted, and growth's failure, if any, is over. */
    private void grown() {
        metrics.growths.labelValues(nsLabel).inc();
        lastError.stepSucceeded(LastError.GROWTH);
    }
}
