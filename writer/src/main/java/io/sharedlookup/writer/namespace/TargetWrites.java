package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.EntryTooLargeException;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationUnusableException;
import io.sharedlookup.writer.store.TiersExhaustedException;
import java.io.IOException;

/**
 * One record put into, or removed from, the generation records go to ({@link GenerationLife#target}), and what a put
 * the generation refuses leads to: a bigger generation ({@link Growth#growBecauseFull}), a copy in place of one left
 * locked ({@link Growth#replaceLocked}), one made to take a large entry ({@link Growth#makeRoomFor}), a skip, a stall
 * or a rebuild, each returned as an {@link Applied}. On the ingest thread only.
 */
final class TargetWrites {
    private final GenerationLife life;
    private final Growth growth;
    private final LastError lastError;
    private final WriterMetrics metrics;
    private final String nsLabel;

    TargetWrites(GenerationLife life, Growth growth, LastError lastError, WriterMetrics metrics, String namespace) {
        this.life = life;
        this.growth = growth;
        this.lastError = lastError;
        this.metrics = metrics;
        this.nsLabel = namespace;
    }

    /** Applies a record ({@code value == null} removes) to the generation records go to, growing it when full. */
    Applied apply(String key, String value, Positions positions) {
        Applied room;
        try {
            Applied applied = applyTo(life.target(), key, value, positions);
            if (applied instanceof Applied.Done) {
                growth.alsoWriteToCopy(key, value);
            }
            return applied;
        } catch (TiersExhaustedException e) {
            room = growth.growBecauseFull(positions);
        } catch (LockTimeoutException e) {
            room = growth.replaceLocked(e, positions);
        }
        // Moved to a new generation: the record goes there (a refusal from it now is a real failure, thrown).
        return room instanceof Applied.Done ? applyTo(life.target(), key, value, positions) : room;
    }

    private Applied applyTo(GenerationFile target, String key, String value, Positions positions) {
        try {
            life.requireMarkedOpen(target);
        } catch (IOException e) {
            return diskFull("cannot mark the manifest open before changing the resumed generation", e);
        }
        if (value == null) {
            if (target.remove(key, growth.writeLockNanos())) {
                life.markDirty();
            }
            lastError.stallOver(); // a tombstone may have been what stalled (requireMarkedOpen above)
            return Applied.DONE;
        }
        try {
            if (target.put(key, value, growth.writeLockNanos())) {
                life.markDirty();
            }
        } catch (EntryTooLargeException e) {
            Applied room = target == life.target() ? growth.makeRoomFor(key, value, positions) : null;
            if (room instanceof Applied.Done) {
                return applyTo(life.target(), key, value, positions); // made for this entry: a second refusal skips
            } else if (room != null) {
                return room; // skipped (counted) or stalled
            }
            metrics.oversize.labelValues(nsLabel).inc();
            lastError.stallOver(); // dealt with (skipped), if it was the record a stall waited for
            return new Applied.Skipped(e.getMessage(), false);
        } catch (GenerationUnusableException e) {
            return new Applied.RebuildNeeded(e.getMessage());
        } catch (RuntimeException e) {
            IOException io = GenerationFile.ioCause(e);
            if (io == null) {
                throw e;
            }
            // Chronicle extends the file for an extra tier and the file system said no (disk full, file size
            // limit). Nothing was written (GenerationFile cut the file back to its allocated part); the record is
            // read again soon, and readers keep what was published meanwhile.
            return diskFull("cannot extend generation " + target.file().getFileName(), io);
        }
        growth.countStored(key, value);
        lastError.stallOver();
        return Applied.DONE;
    }

    /** The file system refused what a record needs ({@code what}): the record waits, retried every 2 s. */
    private Applied.Stalled diskFull(String what, IOException refusal) {
        return lastError.stall(
                what + " (" + refusal.getMessage() + "); free disk space, the writer retries every "
                        + GrowthRetry.DISK_FULL_RETRY_MILLIS / 1000 + " s by itself",
                GrowthRetry.DISK_FULL_RETRY_MILLIS);
    }
}
