package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.EntryTooLargeException;
import io.sharedlookup.writer.store.Fill;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationUnusableException;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.writer.store.NamespaceWriter;
import io.sharedlookup.internal.store.StoreFormatException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One namespace's generations, driven by the ingest thread only: decides resume or rebuild, applies records, grows
 * and replaces generations, publishes, checkpoints and closes.
 *
 * <p>Growth and lock-replacement copies run on the ingest thread between records: nothing is consumed while a copy
 * runs, so no update can be lost or reordered, and readers keep reading the published generation meanwhile.
 */
public final class NamespaceSink {
    private static final Logger log = LoggerFactory.getLogger(NamespaceSink.class);
    /** Live processes hold segment locks for microseconds; longer means a killed process left one held. */
    static final long WRITE_LOCK_NANOS = 500_000_000L;
    /** While a background copy holds a segment's update lock, writes to that segment wait for it to be copied. */
    private static final long GROWING_WRITE_LOCK_NANOS = 10_000_000_000L;
    private static final long COPY_LOCK_NANOS = 2_000_000_000L;
    /** Past this fill ratio growth is not left to the end of the poll batch. */
    private static final double GROW_NOW_AT = 1.5;
    /** Past this fill ratio, with growth failing, consumption pauses rather than risk Chronicle's hard limit. */
    private static final double STALL_AT = 1.8;
    /**
     * Chronicle's free space (percent) below which a generation is replaced even though its entry count is low: when
     * entries are larger than sampled, bytes run out first (seen: full at 0.39 x entries() with values 25x the
     * sampled size). It fluctuates as tiers are added, so this only catches most cases early; a put that still
     * fails for lack of a tier triggers growth and is retried.
     */
    private static final int LOW_FREE_SPACE = 20;
    /**
     * Chronicle computes its free space by counting the allocation bitmap of every segment: the cost grows with the
     * map (it was half of the writer's bootstrap time at 1M entries when asked every 64 records). Asked at most this
     * often instead; a put that still finds no room triggers growth by itself.
     */
    private static final long FREE_SPACE_CHECK_NANOS = 250_000_000L;
    /** How long a topic pauses when its namespace cannot take a record and cannot say when it will. */
    public static final long STALL_PAUSE_MILLIS = 30_000;
    private static final long GROWTH_RETRY_MILLIS = 30_000;
    /**
     * How soon a topic paused because the file system refused to extend a generation is tried again: a failed try
     * costs one refused allocation, and the writer should carry on soon after space is freed.
     */
    static final long DISK_FULL_RETRY_MILLIS = 2_000;
    /**
     * The first generation is sized for at most this many entries. {@code endOffset - beginningOffset} counts every
     * update not yet compacted away: on a busy topic it can exceed the distinct keys a thousandfold, and a generation
     * is preallocated on disk. Beyond this, growth takes over (each step doubles).
     */
    static final long INITIAL_SIZING_CAP = 2_000_000;
    private static final int SAMPLE_RECORDS = 1000;
    private static final long SAMPLE_BYTES = 4 << 20;

    private final TopicBinding binding;
    private final NamespaceWriter writer;
    private final WriterMetrics metrics;
    private final Map<String, String> attributes;
    private final String nsLabel;
    private final RateLimitedLog checkpointFailures = new RateLimitedLog(log, 60_000);
    private final RateLimitedLog growthFailures = new RateLimitedLog(log, 60_000);

    private GenerationFile live;
    private GenerationFile building;
    /** A bigger generation being filled in the background from {@link #target()}; records go to both meanwhile. */
    private BackgroundCopy growing;
    private GenerationSizing sizing;
    private boolean sampling;
    private long expectedEntries;
    private final List<String[]> samples = new ArrayList<>();
    private long sampleBytes;
    private long keyBytes;
    private long valueBytes;
    private long stored;
    private boolean dirty;
    private boolean caughtUp;
    private int opsSinceCheck;
    private long nextFreeSpaceCheck = System.nanoTime();
    /** Growth is not tried again before this {@link System#nanoTime()} (a stepped wall clock cannot move it). */
    private long nextGrowthAttemptNanos = System.nanoTime();
    private long lastUpdateMillis;
    private String lastError;
    /** Whether the topic is paused because this namespace could not take a record, and until when (nanoTime). */
    private boolean stalled;
    private long stalledUntilNanos;

    /** Whether this writer keeps a reverse index beside each generation (recorded as a namespace attribute). */
    private boolean reverseIndex() {
        return Boolean.parseBoolean(attributes.get(io.sharedlookup.internal.store.StoreLayout.REVERSE_INDEX_ATTRIBUTE));
    }

    public NamespaceSink(TopicBinding binding, NamespaceWriter writer, WriterMetrics metrics, Map<String, String> attributes) {
        this.binding = binding;
        this.writer = writer;
        this.metrics = metrics;
        this.attributes = Map.copyOf(attributes);
        this.nsLabel = binding.namespace();
        // Zero-valued series from the start: a family that only appears after its first event breaks rate() and alerts.
        for (var counter : List.of(metrics.records, metrics.tombstones, metrics.decodeErrors, metrics.nullKeys,
                metrics.oversize, metrics.rebuilds, metrics.growths, metrics.replacements, metrics.resumes)) {
            counter.labelValues(nsLabel);
        }
    }

    public TopicBinding binding() {
        return binding;
    }

    /**
     * Chooses where to start: resume from the stored offsets after a clean stop when they are still valid, otherwise
     * rebuild from the beginning.
     *
     * @param beginning        per partition, the log start offset
     * @param end              per partition, the end offset now
     * @param retentionMillis  the topic's delete.retention.ms, or -1 when unknown
     * @return per partition, the offset to consume from
     */
    public Map<Integer, Long> start(Map<Integer, Long> beginning, Map<Integer, Long> end, long retentionMillis) {
        ResumeDecision decision = ResumeDecision.decide(
                writer.published().map(m -> ResumeDecision.Published.of(m, writer.canResume())),
                writer.rebuildReason(), binding.topic(), attributes,
                new ResumeDecision.TopicLog(beginning, end, retentionMillis), System.currentTimeMillis());
        String refusal = decision.rebuildReason();
        if (decision.resume()) {
            try {
                live = writer.resume();
                Manifest m = writer.published().orElseThrow();
                // Averages are not recorded with a generation: sample them from it, so that a replacement or a
                // bigger generation built before this run has seen records is sized for the entries it must hold
                // (the 16/32-byte fallbacks made such a copy overflow Chronicle's tiers).
                double[] averages = sampleAverages(live);
                sizing = new GenerationSizing(m.capacity(), averages[0], averages[1],
                        GenerationSizing.MAX_BLOAT_FACTOR);
                metrics.resumes.labelValues(nsLabel).inc();
                log.info("Namespace '{}': resuming generation {} from stored offsets {}", nsLabel, m.generation(),
                        m.offsets());
                Map<Integer, Long> from = new java.util.TreeMap<>(beginning);
                m.offsets().forEach((p, o) -> {
                    if (from.containsKey(p)) {
                        from.put(p, o);
                    }
                });
                return from;
            } catch (IOException | StoreFormatException e) {
                refusal = "the published generation cannot be reopened (" + e.getMessage() + ")";
            }
        }
        return rebuildFrom(refusal, beginning, end);
    }

    /**
     * The topic no longer has the records this namespace's offsets point at (truncated past them, or deleted and
     * recreated under a running writer): drops whatever is being built and starts a fresh generation from the
     * beginning. Readers keep the published generation until the new one is complete; until then a stop leaves the
     * namespace marked not cleanly closed, so the next start rebuilds too.
     *
     * @return per partition, the offset to consume from
     */
    public Map<Integer, Long> rebuild(String reason, Map<Integer, Long> beginning, Map<Integer, Long> end) {
        cancelGrowthQuietly();
        try {
            if (building != null) {
                writer.discard(building);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Namespace '{}': cannot delete the unpublished generation {}: {}", nsLabel,
                    building.file().getFileName(), e.toString());
        }
        building = null;
        if (live != null) {
            live.close(); // only the writer's handle: the manifest still points readers at it
            live = null;
        }
        samples.clear();
        sampleBytes = 0;
        caughtUp = false;
        dirty = false;
        lastError = null;
        return rebuildFrom(reason, beginning, end);
    }

    private Map<Integer, Long> rebuildFrom(String reason, Map<Integer, Long> beginning, Map<Integer, Long> end) {
        expectedEntries = 0;
        for (Map.Entry<Integer, Long> e : end.entrySet()) {
            expectedEntries += Math.max(0, e.getValue() - beginning.getOrDefault(e.getKey(), 0L));
        }
        log.info("Namespace '{}': building a fresh generation from the beginning of topic '{}' ({}); up to {} records;"
                + " readers keep the last published generation meanwhile", nsLabel, binding.topic(), reason,
                expectedEntries);
        metrics.rebuilds.labelValues(nsLabel).inc();
        sampling = true;
        return beginning;
    }

    private GenerationFile target() {
        return building != null ? building : live;
    }

    /** Applies one decoded record: {@code value == null} removes. */
    public void apply(String key, String value, Positions positions) {
        lastUpdateMillis = System.currentTimeMillis();
        if (sampling) {
            samples.add(new String[] {key, value});
            sampleBytes += key.length() + (value == null ? 0 : value.length());
            if (samples.size() >= SAMPLE_RECORDS || sampleBytes >= SAMPLE_BYTES) {
                finishSampling();
            }
            return;
        }
        if (++opsSinceCheck >= 64) {
            opsSinceCheck = 0;
            GenerationFile t = target();
            if ((double) t.size() / t.capacity() >= GROW_NOW_AT || lowOnFreeSpace(t)) {
                if (growing != null) {
                    finishGrowth(positions, false);
                } else {
                    growIfPossible(positions, false);
                }
            }
        }
        write(key, value, positions);
    }

    private void write(String key, String value, Positions positions) {
        try {
            applyTo(target(), key, value);
            if (growing != null) {
                applyToCopy(key, value, positions);
            }
        } catch (IllegalStateException e) {
            if (!String.valueOf(e.getMessage()).contains("extra segment tier")) {
                throw e;
            }
            // Entries grew larger than the sizes the generation was made for: its bytes ran out before its count.
            // Nothing was written; move to a generation sized with the averages seen so far and apply there.
            log.warn("Namespace '{}': generation {} is full at {} entries (entries larger than sampled); growing now",
                    nsLabel, target().file().getFileName(), target().size());
            if (growing != null && finishGrowth(positions, false)) {
                // Copy complete and switched to: the record was written nowhere yet.
                applyTo(target(), key, value);
                return;
            }
            GenerationSizing bigger = sizing.grownFor(target().size(), averageKeyBytes(), averageValueBytes());
            try {
                replace(bigger, positions, false);
                metrics.growths.labelValues(nsLabel).inc();
            } catch (IOException | RuntimeException io) {
                throw stalled(growthFailed("generation full and cannot grow to " + bigger.entries() + " entries", io),
                        growthRetryMillis(io));
            }
            applyTo(target(), key, value);
        } catch (LockTimeoutException e) {
            log.warn("Namespace '{}': {}", nsLabel, e.getMessage());
            cancelGrowth("a lock was left held in the generation being copied");
            metrics.replacements.labelValues(nsLabel).inc();
            try {
                replace(sizing, positions, false);
            } catch (IOException | IllegalStateException | EntryTooLargeException io) {
                // Never let the ingest thread die on it (it used to, with /health still ok): report and retry.
                lastError = "cannot replace a generation left locked: " + io.getMessage();
                throw stalled(lastError);
            } catch (LockTimeoutException copyLocked) {
                // The copy needs each segment's update lock, and a process that died while scanning (a reader's
                // forEach or a reverse-lookup scan) left one held: this generation cannot be copied. Kafka still
                // has everything, so build the next one from the topic.
                throw new RebuildNeededException("generation " + target().file().getFileName()
                        + " cannot be written or copied (" + copyLocked.getMessage() + ")");
            }
            applyTo(target(), key, value);
        }
    }

    private long writeLockNanos() {
        return growing == null ? WRITE_LOCK_NANOS : GROWING_WRITE_LOCK_NANOS;
    }

    /** The second half of a dual write: the same change in the generation being filled in the background. */
    private void applyToCopy(String key, String value, Positions positions) {
        try {
            if (value == null) {
                growing.to.remove(key, GROWING_WRITE_LOCK_NANOS);
            } else {
                growing.to.put(key, value, GROWING_WRITE_LOCK_NANOS);
            }
        } catch (EntryTooLargeException e) {
            // Counted when the old generation took it; the next generation is sized with current averages.
            cancelGrowth("an entry does not fit the new generation: " + e.getMessage());
        } catch (RuntimeException e) {
            cancelGrowth(e.toString());
        }
    }

    private void cancelGrowth(String why) {
        if (growing == null) {
            return;
        }
        BackgroundCopy copy = growing;
        growing = null;
        copy.cancel();
        try {
            writer.discard(copy.to);
        } catch (IOException | RuntimeException e) {
            log.warn("Namespace '{}': cannot delete abandoned generation {}: {}", nsLabel, copy.to.file(), e.toString());
        }
        deferGrowth();
        lastError = "growth abandoned (retrying in " + GROWTH_RETRY_MILLIS / 1000 + " s): " + why;
        log.warn("Namespace '{}': {}", nsLabel, lastError);
    }

    /**
     * Waits for the background copy and switches to its generation.
     *
     * @return whether it switched
     */
    private boolean finishGrowth(Positions positions, boolean positionsExact) {
        BackgroundCopy copy = growing;
        Throwable failure = copy.await();
        if (failure != null) {
            cancelGrowth("copy failed: " + failure);
            return false;
        }
        growing = null;
        try {
            switchTo(copy.to, copy.sizing, positions, positionsExact);
        } catch (IOException | RuntimeException e) {
            try {
                writer.discard(copy.to);
            } catch (IOException | RuntimeException ignored) {
                // reported below
            }
            deferGrowth();
            lastError = "cannot publish the grown generation: " + e.getMessage();
            log.error("Namespace '{}': {}", nsLabel, lastError);
            return false;
        }
        if (copy.skipped() > 0) {
            metrics.oversize.labelValues(nsLabel).inc(copy.skipped());
        }
        metrics.growths.labelValues(nsLabel).inc();
        return true;
    }

    private void applyTo(GenerationFile target, String key, String value) {
        if (value == null) {
            if (target.remove(key, writeLockNanos())) {
                dirty = true;
            }
            return;
        }
        try {
            if (target.put(key, value, writeLockNanos())) {
                dirty = true;
            }
        } catch (EntryTooLargeException e) {
            metrics.oversize.labelValues(nsLabel).inc();
            throw new RecordSkippedException(e.getMessage());
        } catch (GenerationUnusableException e) {
            throw new RebuildNeededException(e.getMessage());
        } catch (RuntimeException e) {
            IOException io = GenerationFile.ioCause(e);
            if (io == null) {
                throw e;
            }
            // Chronicle extends the file for an extra tier and the file system said no (disk full, file size
            // limit). Nothing was written (GenerationFile cut the file back to its allocated part); the record is
            // read again soon, and readers keep what was published meanwhile.
            throw stalled("cannot extend generation " + target.file().getFileName() + " (" + io.getMessage()
                    + "); free disk space, the writer retries every " + DISK_FULL_RETRY_MILLIS / 1000
                    + " s by itself", DISK_FULL_RETRY_MILLIS);
        }
        keyBytes += Utf8.length(key);
        valueBytes += Utf8.length(value);
        stored++;
        if (stalled) {
            // Taking records again: the error that paused the topic is over.
            stalled = false;
            lastError = null;
        }
    }

    /** The namespace cannot take the record now: the topic pauses, and the status says STALLED meanwhile. */
    private StalledException stalled(String error) {
        return stalled(error, STALL_PAUSE_MILLIS);
    }

    private StalledException stalled(String error, long retryMillis) {
        if (error == null) { // the growth that failed was reported, and a record applied since cleared it
            error = "generation " + target().file().getFileName() + " is full (" + target().size() + " of "
                    + target().capacity() + " entries) and growth is retried later";
        }
        lastError = error;
        stalled = true;
        stalledUntilNanos = System.nanoTime() + retryMillis * 1_000_000L;
        return new StalledException(error, retryMillis);
    }

    private void deferGrowth() {
        deferGrowth(GROWTH_RETRY_MILLIS);
    }

    private void deferGrowth(long millis) {
        nextGrowthAttemptNanos = System.nanoTime() + millis * 1_000_000L;
    }

    /**
     * Growth failed: when the file system refused the bigger file (disk full), it is tried again as soon as a
     * refused extension is, since freeing space is all it takes and a refused try costs nothing; otherwise after
     * {@link #GROWTH_RETRY_MILLIS}. Logged at most once a minute (a full disk retries every few seconds).
     *
     * @return the error, also kept as {@link #lastError}
     */
    private String growthFailed(String what, Throwable e) {
        long retryMillis = growthRetryMillis(e);
        deferGrowth(retryMillis);
        lastError = what + " (retrying in " + retryMillis / 1000 + " s): " + e.getMessage();
        growthFailures.warn("Namespace '{}': {}", nsLabel, lastError);
        return lastError;
    }

    private static long growthRetryMillis(Throwable e) {
        return GenerationFile.ioCause(e) != null ? DISK_FULL_RETRY_MILLIS : GROWTH_RETRY_MILLIS;
    }

    /** Milliseconds until growth is tried again (at least 1). */
    private long growthRetryInMillis() {
        return Math.max(1, (nextGrowthAttemptNanos - System.nanoTime()) / 1_000_000L);
    }

    private boolean growthDeferred(long nowNanos) {
        return nowNanos - nextGrowthAttemptNanos < 0;
    }

    private void finishSampling() {
        double avgKey = 0;
        double avgValue = 0;
        int values = 0;
        for (String[] s : samples) {
            avgKey += Utf8.length(s[0]);
            if (s[1] != null) {
                avgValue += Utf8.length(s[1]);
                values++;
            }
        }
        avgKey = samples.isEmpty() ? 0 : avgKey / samples.size();
        avgValue = values == 0 ? 0 : avgValue / values;
        sizing = GenerationSizing.forExpected(Math.min(expectedEntries, INITIAL_SIZING_CAP), avgKey, avgValue);
        try {
            building = writer.createGeneration(sizing, reverseIndex());
        } catch (IOException e) {
            lastError = "cannot create a generation of " + sizing.entries() + " entries: " + e.getMessage();
            throw stalled(lastError);
        }
        log.info("Namespace '{}': new generation {} sized for {} entries (avg key {} B, value {} B)", nsLabel,
                building.file().getFileName(), sizing.entries(), Math.round(sizing.averageKeyBytes()),
                Math.round(sizing.averageValueBytes()));
        sampling = false;
        List<String[]> pending = new ArrayList<>(samples);
        samples.clear();
        sampleBytes = 0;
        for (String[] s : pending) {
            try {
                applyTo(building, s[0], s[1]);
            } catch (RecordSkippedException skipped) {
                // counted in applyTo
            }
        }
    }

    /**
     * After a poll batch is fully applied ({@code positions} are exact): finishes sampling, publishes a rebuilt
     * generation once caught up, grows when needed.
     */
    public void afterBatch(boolean nowCaughtUp, Positions positions) {
        caughtUp = nowCaughtUp;
        if (sampling && nowCaughtUp) {
            finishSampling();
        }
        if (building != null && nowCaughtUp) {
            publishBuilt(positions);
        }
        if (growing != null && growing.isFinished()) {
            finishGrowth(positions, true);
        }
        if (target() != null && !sampling && growing == null) {
            GenerationFile t = target();
            if ((double) t.size() / t.capacity() >= Fill.GROW_AT || lowOnFreeSpace(t)) {
                startGrowth();
            }
        }
    }

    /** Chronicle's free space is below {@link #LOW_FREE_SPACE}; false when asked again too soon. */
    private boolean lowOnFreeSpace(GenerationFile t) {
        long now = System.nanoTime();
        if (now - nextFreeSpaceCheck < 0) {
            return false;
        }
        nextFreeSpaceCheck = now + FREE_SPACE_CHECK_NANOS;
        return t.fill().percentageFreeSpace() < LOW_FREE_SPACE;
    }

    /** Starts filling a bigger generation in the background; records are written to both until it is done. */
    private void startGrowth() {
        long now = System.nanoTime();
        if (growthDeferred(now)) {
            return;
        }
        GenerationFile t = target();
        GenerationSizing bigger = sizing.grownFor(t.size(), averageKeyBytes(), averageValueBytes());
        GenerationFile next;
        try {
            next = writer.createGeneration(bigger, reverseIndex());
        } catch (IOException | RuntimeException e) {
            growthFailed("cannot create a generation of " + bigger.entries() + " entries", e);
            return;
        }
        log.info("Namespace '{}': generation {} holds {} of {} entries; filling {} for {} in the background",
                nsLabel, t.file().getFileName(), t.size(), t.capacity(), next.file().getFileName(), bigger.entries());
        growing = BackgroundCopy.start(t, next, bigger, nsLabel);
    }

    private void publishBuilt(Positions positions) {
        try {
            writer.publish(building, binding.topic(), positions.of(binding.topic()), true, attributes);
        } catch (IOException e) {
            lastError = "cannot publish generation " + building.file().getFileName() + ": " + e.getMessage();
            log.error("Namespace '{}': {}", nsLabel, lastError);
            return;
        }
        if (live != null) {
            live.close();
        }
        live = building;
        building = null;
        dirty = false;
        log.info("Namespace '{}': published generation {} with {} entries; caught up", nsLabel,
                live.file().getFileName(), live.size());
    }

    private void growIfPossible(Positions positions, boolean batchComplete) {
        GenerationFile t = target();
        double ratio = (double) t.size() / t.capacity();
        if (growthDeferred(System.nanoTime())) {
            if (ratio >= STALL_AT) {
                throw stalled(lastError, growthRetryInMillis());
            }
            return;
        }
        GenerationSizing bigger = sizing.grownFor(t.size(), averageKeyBytes(), averageValueBytes());
        log.info("Namespace '{}': generation {} holds {} of {} entries; building one for {}", nsLabel,
                t.file().getFileName(), t.size(), t.capacity(), bigger.entries());
        try {
            replace(bigger, positions, batchComplete);
            metrics.growths.labelValues(nsLabel).inc();
        } catch (IOException | RuntimeException e) {
            growthFailed("cannot grow to " + bigger.entries() + " entries", e);
            if (ratio >= STALL_AT) {
                throw stalled(lastError, growthRetryInMillis());
            }
        }
    }

    /**
     * Copies the current target into a new generation of {@code newSizing} and switches to it; a published target
     * is replaced by publishing the copy. Never leaves a half-built generation visible.
     */
    private void replace(GenerationSizing newSizing, Positions positions, boolean positionsExact) throws IOException {
        cancelGrowth("replaced synchronously");
        GenerationFile old = target();
        GenerationFile next = writer.createGeneration(newSizing, reverseIndex());
        try {
            old.forEach((k, v) -> {
                try {
                    next.put(k, v, COPY_LOCK_NANOS);
                } catch (EntryTooLargeException e) {
                    metrics.oversize.labelValues(nsLabel).inc();
                }
            }, COPY_LOCK_NANOS);
        } catch (RuntimeException e) {
            writer.discard(next);
            throw e;
        }
        switchTo(next, newSizing, positions, positionsExact);
    }

    /** Makes {@code next}, a complete copy of the target, the target: published when the target was. */
    private void switchTo(GenerationFile next, GenerationSizing newSizing, Positions positions, boolean positionsExact)
            throws IOException {
        if (building != null) {
            writer.discard(building);
            building = next;
        } else {
            GenerationFile old = live;
            writer.publish(next, binding.topic(), positions.of(binding.topic()), caughtUp && positionsExact,
                    attributes);
            old.close();
            live = next;
            dirty = false;
        }
        sizing = newSizing;
        lastError = null;
        log.info("Namespace '{}': switched to generation {} ({} entries, capacity {})", nsLabel,
                next.file().getFileName(), next.size(), newSizing.entries());
    }

    /** Average UTF-8 key and value sizes of up to 1,000 entries of {@code generation}; 0 (fallbacks) when empty. */
    private static double[] sampleAverages(GenerationFile generation) {
        long[] totals = new long[3];
        try {
            generation.forEachWhile((k, v) -> {
                totals[0] += Utf8.length(k);
                totals[1] += Utf8.length(v);
                return ++totals[2] < 1_000;
            }, WRITE_LOCK_NANOS);
        } catch (LockTimeoutException e) {
            // a segment left locked: what was sampled before it will do
        }
        return totals[2] == 0 ? new double[] {0, 0}
                : new double[] {(double) totals[0] / totals[2], (double) totals[1] / totals[2]};
    }

    private double averageKeyBytes() {
        return stored == 0 ? sizing.averageKeyBytes() : (double) keyBytes / stored;
    }

    private double averageValueBytes() {
        return stored == 0 ? sizing.averageValueBytes() : (double) valueBytes / stored;
    }

    /** Records progress of a live generation for readers (content version) and for a later resume. */
    public void checkpoint(Positions positions) {
        writer.retryCleanUp(); // old generation files a publish could not delete; a no-op when there are none
        if (live == null || building != null) {
            return;
        }
        Map<Integer, Long> offsets = positions.of(binding.topic());
        Manifest current = writer.published().orElse(null);
        if (!dirty && current != null && current.offsets().equals(offsets) && current.caughtUp() == caughtUp) {
            return; // nothing new: do not rewrite the manifest readers poll
        }
        try {
            writer.checkpoint(offsets, caughtUp, dirty);
            dirty = false;
        } catch (IOException e) {
            // Retried at every checkpoint (several a second): one WARN a minute says it, lastError shows it.
            lastError = "cannot write the manifest: " + e.getMessage();
            checkpointFailures.warn("Namespace '{}': {}", nsLabel, lastError);
        }
    }

    public boolean isPublishedAndCaughtUp() {
        return live != null && building == null && caughtUp;
    }

    public boolean isLive() {
        return live != null && building == null;
    }

    /**
     * Clean stop: a live generation is closed with its final offsets (the next start resumes); an unpublished one is
     * discarded.
     */
    public void close(Positions positions) {
        try {
            cancelGrowthQuietly();
            if (building != null) {
                writer.discard(building);
                building = null;
            }
            if (live != null) {
                writer.closeCleanly(live, positions.of(binding.topic()), caughtUp, dirty);
                live = null;
            } else {
                writer.close();
            }
        } catch (IOException | RuntimeException e) {
            log.error("Namespace '{}': clean close failed, the next start rebuilds: {}", nsLabel, e.toString());
            try {
                writer.close();
            } catch (IOException ignored) {
                // the OS releases the lock at exit anyway
            }
        }
    }

    /** Releases the namespace without marking it closed: used when the writer fails to start. */
    public void abandon() {
        try {
            cancelGrowthQuietly();
            if (building != null) {
                writer.discard(building);
            }
            if (live != null) {
                live.close();
            }
            writer.close();
        } catch (IOException | RuntimeException e) {
            log.warn("Namespace '{}': releasing failed: {}", nsLabel, e.toString());
        }
    }

    private void cancelGrowthQuietly() {
        if (growing != null) {
            BackgroundCopy copy = growing;
            growing = null;
            copy.cancel();
            try {
                writer.discard(copy.to);
            } catch (IOException | RuntimeException e) {
                log.debug("Cannot delete {}", copy.to.file(), e);
            }
        }
    }

    public NamespaceStatus status(Map<Integer, Long> lag, String notReadyReason) {
        GenerationFile t = target();
        long generation = writer.published().map(Manifest::generation).orElse(0L);
        long entries = t == null ? samples.size() : t.size();
        long capacity = t == null ? 0 : t.capacity();
        NamespaceStatus.State state;
        long now = System.nanoTime();
        if (lastError != null && (growthDeferred(now) || (stalled && now - stalledUntilNanos < 0))) {
            state = NamespaceStatus.State.STALLED;
        } else if (building != null || sampling) {
            state = NamespaceStatus.State.REBUILDING;
        } else if (live != null) {
            state = NamespaceStatus.State.LIVE;
        } else {
            state = NamespaceStatus.State.STARTING;
        }
        metrics.entries.labelValues(nsLabel).set(entries);
        metrics.capacity.labelValues(nsLabel).set(capacity);
        metrics.generation.labelValues(nsLabel).set(generation);
        metrics.caughtUp.labelValues(nsLabel).set(isPublishedAndCaughtUp() ? 1 : 0);
        lag.forEach((p, l) -> metrics.lag.labelValues(nsLabel, Integer.toString(p)).set(l));
        return new NamespaceStatus(nsLabel, binding.topic(), state, generation, entries, capacity,
                capacity == 0 ? 0 : (double) entries / capacity, lag, lastUpdateMillis, lastError,
                isPublishedAndCaughtUp(), notReadyReason);
    }

    /** The record could not be stored (counted by the sink); the partition carries on. */
    public static final class RecordSkippedException extends RuntimeException {
        RecordSkippedException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The namespace's generation is unusable and cannot be copied: the ingest thread must {@link #rebuild} it from
     * the beginning of the topic. The record that failed was not applied.
     */
    public static final class RebuildNeededException extends RuntimeException {
        RebuildNeededException(String message) {
            super(message, null, false, false);
        }
    }

    /** The namespace cannot take more records for now; consumption of its topic pauses and retries. */
    public static final class StalledException extends RuntimeException {
        private final long retryMillis;

        StalledException(String message, long retryMillis) {
            super(message, null, false, false);
            this.retryMillis = retryMillis;
        }

        /** How long the topic pauses before the record is tried again. */
        public long retryMillis() {
            return retryMillis;
        }
    }
}
