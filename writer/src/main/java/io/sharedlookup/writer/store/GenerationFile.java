package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.StoreLayout;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.locks.InterProcessReadWriteUpdateLock;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapAbsentEntry;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import net.openhft.chronicle.map.VanillaChronicleMap;

/**
 * One generation as the writer sees it: a Chronicle Map file of UTF-8 {@code CharSequence} keys and values, with its
 * sequence file. Only the writer opens generations through Chronicle; readers map them read-only through reader-lib
 * (store format version 2, see {@link MapLayout}).
 *
 * <p>Every change to a segment is bracketed by that segment's counter in the sequence file ({@link SegmentCounters}),
 * inside Chronicle's segment write lock, so that lock-free readers can tell a consistent read from one that raced
 * with the change. Every lock is taken through a query context with a bounded {@code tryLock}, never Chronicle's
 * default 60 s wait; only writer threads take them.
 */
public final class GenerationFile implements AutoCloseable {
    private final Path file;
    private final ChronicleMap<CharSequence, CharSequence> map;
    private final long capacity;
    private final MapLayout layout;
    private final SegmentCounters counters;
    /** Taken by each {@link #put} with its cut-back: one at a time, except in a parallel build's passes. */
    private final PutGate puts = new PutGate();

    private ReverseIndex reverse;
    private final RunningDigest digest = new RunningDigest();
    /**
     * Entries now, kept by every insert and remove: Chronicle's own count reads every segment's header (156 µs for
     * 2048 segments), and the writer asks after every poll batch, which cost a bootstrap ~0.3 µs per record.
     */
    private final AtomicLong entries;

    /** Made by {@link GenerationMaps}, which creates or opens the map. */
    GenerationFile(Path file, ChronicleMap<CharSequence, CharSequence> map, long capacity, SegmentCounters counters) {
        this.file = file;
        this.map = map;
        this.capacity = capacity;
        this.layout = ChronicleLayouts.of(map, file);
        this.counters = counters;
        this.entries = new AtomicLong(map.longSize());
    }

    /** How readers read this generation's file. */
    public MapLayout layout() {
        return layout;
    }

    /** How readers read this generation's reverse index; null when it has none. */
    public MapLayout reverseLayout() {
        return reverse == null ? null : reverse.file().layout();
    }

    /**
     * Creates a new, empty generation file and, with {@code reverseIndex}, its reverse index beside it.
     */
    public static GenerationFile create(
            Path file, GenerationSizing sizing, StorePermissions permissions, boolean reverseIndex) throws IOException {
        GenerationFile generation = create(file, sizing, permissions);
        if (reverseIndex) {
            try {
                GenerationSizing reverseSizing = new GenerationSizing(
                        sizing.entries(),
                        sizing.averageValueBytes(),
                        sizing.averageKeyBytes() + 3,
                        sizing.maxBloatFactor(),
                        sizing.largestEntryBytes());
                generation.reverse =
                        new ReverseIndex(create(StoreLayout.reverseIndexFile(file), reverseSizing, permissions));
            } catch (IOException | RuntimeException e) {
                generation.close();
                Files.deleteIfExists(file);
                Files.deleteIfExists(SequenceFile.of(file)); // left, it would use up a generation number
                throw e;
            }
        }
        return generation;
    }

    /** Opens an existing generation and, with {@code reverseIndex}, its reverse index. */
    public static GenerationFile open(Path file, long capacity, boolean reverseIndex) {
        GenerationFile generation = open(file, capacity);
        if (reverseIndex) {
            try {
                generation.reverse = new ReverseIndex(open(StoreLayout.reverseIndexFile(file), capacity));
            } catch (RuntimeException e) {
                generation.close();
                throw e;
            }
        }
        return generation;
    }

    public boolean hasReverseIndex() {
        return reverse != null;
    }

    /**
     * The keys whose value is {@code value}, from the reverse index; empty when the generation has none or the index
     * says to scan for this value (shared by too many keys).
     */
    public java.util.Optional<java.util.List<String>> keysOf(CharSequence value, long timeoutNanos) {
        return reverse == null ? java.util.Optional.empty() : reverse.keysOf(value, timeoutNanos);
    }

    /** Creates a new, empty generation file; refuses to touch an existing one. */
    public static GenerationFile create(Path file, GenerationSizing sizing, StorePermissions permissions)
            throws IOException {
        return GenerationMaps.create(file, sizing, permissions);
    }

    /**
     * Opens an existing generation file of the given (published) capacity. Never creates one: a missing or empty file is an error, since Chronicle would
     * otherwise create a fresh map with default settings in its place.
     *
     * @throws StoreFormatException when the file is missing, empty, truncated or corrupt
     */
    public static GenerationFile open(Path file, long capacity) {
        return GenerationMaps.open(file, capacity);
    }

    public Path file() {
        return file;
    }

    public long capacity() {
        return capacity;
    }

    public long size() {
        return entries.get();
    }

    public Fill fill() {
        return new Fill(entries.get(), capacity, map.percentageFreeSpace(), map.remainingAutoResizes());
    }

    /**
     * Looks {@code key} up and, when present, appends its value to {@code out} (cleared first). Allocation-free.
     *
     * @return whether the key is present
     * @throws LockTimeoutException when the key's segment stays locked longer than {@code timeoutNanos}
     */
    public boolean getInto(CharSequence key, StringBuilder out, long timeoutNanos) {
        out.setLength(0);
        try (ExternalMapQueryContext<CharSequence, CharSequence, ?> c = map.queryContext(key)) {
            if (!BoundedLocks.tryLock(c.readLock(), timeoutNanos)) {
                throw BoundedLocks.timeout("read", file);
            }
            MapEntry<CharSequence, CharSequence> entry = c.entry();
            if (entry == null) {
                return false;
            }
            entry.value().getUsing(out);
            return true;
        }
    }

    /**
     * Sets {@code key} to {@code value}.
     *
     * @return whether the stored value changed
     * @throws LockTimeoutException   when the segment stays locked (for example by a killed reader) beyond the bound
     * @throws EntryTooLargeException when the pair does not fit this generation's layout
     * @throws RuntimeException       with an {@link IOException} cause ({@link #ioCause}) when the file system refused
     *                                to extend the file (disk full): nothing was written, and a later call may succeed
     * @throws TiersExhaustedException when the generation has no room left (its tier limit is reached): nothing was
     *                                written; a bigger generation takes the record
     * @throws GenerationUnusableException when such a refusal left the file in a state that must not be written, or
     *                                a longer value of an existing key found no room after Chronicle freed the old one
     */
    public boolean put(CharSequence key, CharSequence value, long timeoutNanos) {
        // One put at a time (a growth copy's thread and the ingest thread both put into the next generation), so
        // that a refused extension is cut back before another put; see PutGate for when several may go together.
        java.util.concurrent.locks.Lock gate = puts.enter();
        try {
            return putAlone(key, value, timeoutNanos);
        } finally {
            gate.unlock();
        }
    }

    /** Lets a parallel pass's puts, which take {@code tiers} extra tiers at most, run together if safe ({@link PutGate}). */
    public boolean sharePuts(long tiers) {
        return puts.shareIfSafe(map, file, layout.maxExtraTiers(), tiers);
    }

    /** One put at a time again, once a parallel pass is over. */
    public void exclusivePuts() {
        puts.closeToOne();
    }

    private boolean putAlone(CharSequence key, CharSequence value, long timeoutNanos) {
        try (ExternalMapQueryContext<CharSequence, CharSequence, ?> c = map.queryContext(key)) {
            BoundedLocks.lockForWrite(c, file, timeoutNanos);
            MapEntry<CharSequence, CharSequence> entry = c.entry();
            Data<CharSequence> data = c.wrapValueAsData(value);
            String previous = null;
            if (entry != null && Chars.contentEquals(entry.value().get(), value)) {
                if (reverse != null) {
                    reverse.add(value, key, timeoutNanos); // completes an earlier put whose index update failed
                }
                return false;
            }
            if (entry != null && data.size() > entry.value().size()) {
                requireTierForRelocation();
            }
            if (reverse != null) {
                // Indexed before the change: when the index cannot take it (disk full), nothing changed, and the
                // record is applied again later. Readers answer a reverse lookup only with keys holding the value.
                reverse.add(value, key, timeoutNanos);
            }
            if (entry != null) {
                previous = reverse == null && !digest.kept()
                        ? null
                        : entry.value().get().toString();
                int segment = c.segmentIndex();
                counters.begin(segment);
                try {
                    c.replaceValue(entry, data);
                } catch (RuntimeException e) {
                    throw ChronicleFailures.halfReplaced(e, file);
                } finally {
                    counters.end(segment);
                }
                digest.replaced(key, previous, value);
            } else {
                MapAbsentEntry<CharSequence, CharSequence> absent = c.absentEntry();
                int segment = c.segmentIndex();
                counters.begin(segment);
                try {
                    c.insert(absent, data);
                } finally {
                    counters.end(segment);
                }
                entries.incrementAndGet();
                digest.added(key, value);
            }
            if (previous != null && reverse != null) {
                reverse.remove(previous, key, timeoutNanos);
            }
            return true;
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw ChronicleFailures.ofPut(e, key, value, file);
        } catch (RuntimeException e) {
            if (ioCause(e) != null) {
                AllocatedTail.cutBack(map, file);
            }
            throw e;
        }
    }

    /**
     * Before a value grows: Chronicle moves a value that outgrows its chunks by freeing them first and only then
     * looking for room, taking a new tier when none of the segment's has enough. When no tier can be taken, it throws
     * with the old chunks already marked free and the tier's entry count one short, while the key's slot still points
     * at them: a copy of the generation (which Chronicle stops by that count) would then miss another key, and later
     * changes could overwrite the entry. So a put that might need a tier finds out first, and fails like a put of a
     * new key that finds no room, having changed nothing.
     */
    private void requireTierForRelocation() {
        long inUse = ((VanillaChronicleMap<?, ?, ?>) map).globalMutableState().getExtraTiersInUse();
        if (inUse >= layout.maxExtraTiers()) {
            throw ChronicleFailures.noTierForLongerValue(file, inUse);
        }
    }

    /**
     * Removes {@code key}.
     *
     * @return whether it was present
     */
    public boolean remove(CharSequence key, long timeoutNanos) {
        try (ExternalMapQueryContext<CharSequence, CharSequence, ?> c = map.queryContext(key)) {
            BoundedLocks.lockForWrite(c, file, timeoutNanos);
            MapEntry<CharSequence, CharSequence> entry = c.entry();
            if (entry == null) {
                return false;
            }
            String previous = reverse == null && !digest.kept()
                    ? null
                    : entry.value().get().toString();
            int segment = c.segmentIndex();
            counters.begin(segment);
            try {
                c.remove(entry);
            } finally {
                counters.end(segment);
            }
            entries.decrementAndGet();
            digest.removed(key, previous);
            if (previous != null && reverse != null) {
                reverse.remove(previous, key, timeoutNanos);
            }
            return true;
        }
    }

    /**
     * Calls {@code action} for every entry, segment by segment. Each segment's update lock is taken with a bounded
     * wait; a reader's read lock does not block it, so a generation whose segment a killed reader left read-locked can
     * still be copied. The key and value passed are only valid during the call.
     *
     * @throws LockTimeoutException when a segment stays write-locked beyond the bound
     */
    public void forEach(BiConsumer<CharSequence, CharSequence> action, long timeoutNanos) {
        forEachWhile(
                (k, v) -> {
                    action.accept(k, v);
                    return true;
                },
                timeoutNanos);
    }

    /**
     * Like {@link #forEach}, but stops as soon as {@code action} returns false.
     *
     * @return whether every entry was visited
     */
    public boolean forEachWhile(BiPredicate<CharSequence, CharSequence> action, long timeoutNanos) {
        for (int i = 0, n = map.segments(); i < n; i++) {
            try (MapSegmentContext<CharSequence, CharSequence, ?> c = map.segmentContext(i)) {
                // Chronicle's segment contexts are segment locks, though the interface does not say so.
                if (c instanceof InterProcessReadWriteUpdateLock locks
                        && !BoundedLocks.tryLock(locks.updateLock(), timeoutNanos)) {
                    throw BoundedLocks.timeout("update", file);
                }
                if (!c.forEachSegmentEntryWhile(
                        e -> action.test(e.key().get(), e.value().get()))) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * The first {@link IOException} in {@code e}'s causes, or null: a put failing with one means the file system
     * refused to extend the file (disk full); nothing was written and a later put may succeed.
     */
    public static IOException ioCause(Throwable e) {
        return AllocatedTail.ioCause(e);
    }

    /** The file length Chronicle's initialised part covers (for tests): see {@link AllocatedTail}. */
    long allocatedLength() {
        return AllocatedTail.allocatedLength(map);
    }

    /** The {@link ContentDigest} of this generation's entries now. */
    public long contentDigest() {
        return digest.value();
    }

    /**
     * Sets the digest of a generation reopened after a clean stop to the one its manifest recorded, or, when
     * {@code recorded} is null (a manifest from before the digest existed), computes it from the entries.
     */
    void restoreDigest(Long recorded) {
        digest.restore(recorded != null ? recorded : scanDigest());
    }

    /** The digest computed from the entries themselves (a full scan). */
    long scanDigest() {
        long[] sum = {0};
        forEach((k, v) -> sum[0] += ContentDigest.of(k, v), TimeUnit.SECONDS.toNanos(10));
        return sum[0];
    }

    /** A reverse index's entries are derived from the data file's: no digest of their own. */
    void withoutDigest() {
        digest.stopKeeping();
    }

    /** The sequence counter of {@code segment} (for tests). */
    long sequence(int segment) {
        return counters.value(segment);
    }

    /** Writes the file's dirty pages to disk (Chronicle's close does not). */
    public void force() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ch.force(true);
        }
        if (reverse != null) {
            reverse.file().force();
        }
    }

    @Override
    public void close() {
        map.close();
        if (reverse != null) {
            reverse.file().close();
        }
    }
}
