package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One namespace as the ingest thread drives it (the ingest thread only): decides resume or rebuild
 * ({@link ResumeDecision}), applies records ({@link TargetWrites}) and says what became of each ({@link Applied}),
 * sizes a rebuilt generation ({@link InitialSizing}) and applies what was read meanwhile ({@link HeldBackRecords}),
 * grows and replaces generations ({@link Growth}); its generations' life, from creation to publishing, checkpointing
 * and closing, is {@link GenerationLife}'s.
 *
 * <p>Growth and lock-replacement copies run on the ingest thread between records: nothing is consumed while a copy
 * runs, so no update can be lost or reordered, and readers keep reading the published generation meanwhile.
 */
public final class NamespaceIngest {
    private static final Logger log = LoggerFactory.getLogger(NamespaceIngest.class);
    /** Live processes hold segment locks for microseconds; longer means a killed process left one held. */
    static final long WRITE_LOCK_NANOS = 500_000_000L;

    private final TopicBinding binding;
    /** Asked what is published and may be resumed, and given the skipped-records file; a generation changes only
     * through {@link #life}. */
    private final NamespaceDirectory directory;

    private final WriterMetrics metrics;
    private final Map<String, String> attributes;
    private final String nsLabel;
    private final LastError lastError = new LastError();
    private final SkippedRecords skipped = new SkippedRecords();
    private final GenerationLife life;
    private final InitialSizing initialSizing;
    /** Records held back for the sample, not yet applied to the generation built from it. */
    private final HeldBackRecords heldBack;

    private final Growth growth;
    private final TargetWrites writes;
    private long lastUpdateMillis;
    /** Why the operator asked for a rebuild ({@code --rebuild}); null once the rebuilt generation is published. */
    private String requestedRebuild;
    /** The partitions whose lag series the last {@link #status} set. */
    private Set<Integer> lagPartitions = Set.of();

    /**
     * @param attributes the settings this writer records with each generation; a change of any of them at restart
     *                   means a rebuild
     */
    public NamespaceIngest(
            TopicBinding binding, NamespaceDirectory directory, WriterMetrics metrics, Map<String, String> attributes) {
        this(binding, directory, metrics, attributes, SampleBudget.shared(1));
    }

    /**
     * @param attributes   the settings this writer records with each generation; a change of any of them at restart
     *                     means a rebuild
     * @param sampleBudget the heap budget for records held back while sampling, shared by all the writer's namespaces
     */
    public NamespaceIngest(
            TopicBinding binding,
            NamespaceDirectory directory,
            WriterMetrics metrics,
            Map<String, String> attributes,
            SampleBudget sampleBudget) {
        this.initialSizing = new InitialSizing(sampleBudget);
        this.binding = binding;
        this.directory = directory;
        this.metrics = metrics;
        this.attributes = Map.copyOf(attributes);
        this.nsLabel = binding.namespace();
        this.life = new GenerationLife(directory, binding.topic(), nsLabel, this.attributes, lastError);
        this.growth = new Growth(life, metrics, lastError, nsLabel);
        this.writes = new TargetWrites(life, growth, lastError, metrics, nsLabel);
        this.heldBack = new HeldBackRecords(sampleBudget, writes, nsLabel);
        // Zero-valued series from the start: a family that only appears after its first event breaks rate() and alerts.
        for (var counter : List.of(
                metrics.records,
                metrics.tombstones,
                metrics.decodeErrors,
                metrics.nullKeys,
                metrics.oversize,
                metrics.corruptRecords,
                metrics.rebuilds,
                metrics.growths,
                metrics.replacements,
                metrics.resumes,
                metrics.stalls,
                metrics.keysOnSeveralPartitions)) {
            counter.labelValues(nsLabel);
        }
    }

    public TopicBinding binding() {
        return binding;
    }

    /** The last records skipped for this namespace; {@link #writeSkippedRecords} puts them where inspect finds them. */
    public SkippedRecords skipped() {
        return skipped;
    }

    /** Writes the skipped-records file when records were skipped since the last call (ingest thread). */
    public void writeSkippedRecords() {
        skipped.writeIfChanged(directory, nsLabel);
    }

    /**
     * Rebuilds at start whatever the published generation is, because the operator asked for it: {@link #start}
     * (including a start retried before anything is published) builds a fresh generation, readers keeping the
     * published one until it is complete.
     */
    public void rebuildAtStart(String reason) {
        requestedRebuild = reason;
    }

    /**
     * Chooses where to start: resume from the stored offsets after a clean stop when they are still valid, otherwise
     * rebuild from the beginning.
     *
     * @param beginning        per partition, the log start offset
     * @param end              per partition, the end offset now
     * @param retentionMillis  the topic's delete.retention.ms, or -1 when unknown
     * @param topicId          the topic's id, or null when unknown; recorded with the generations built from now on
     * @return per partition, the offset to consume from
     */
    public Map<Integer, Long> start(
            Map<Integer, Long> beginning, Map<Integer, Long> end, long retentionMillis, String topicId) {
        ResumeDecision decision = requestedRebuild != null
                ? ResumeDecision.rebuild(requestedRebuild)
                : ResumeDecision.decide(
                        directory.published().map(m -> ResumeDecision.Published.of(m, directory.canResume())),
                        directory.rebuildReason(),
                        binding.topic(),
                        attributes,
                        new ResumeDecision.TopicLog(beginning, end, retentionMillis, topicId),
                        System.currentTimeMillis());
        life.recordTopicId(topicId);
        life.setDeleteRetention(retentionMillis);
        String refusal = decision.rebuildReason();
        if (decision.resume()) {
            try {
                GenerationFile live = life.resume();
                recordTopicId(topicId);
                Manifest m = directory.published().orElseThrow();
                // Averages are not recorded with a generation: sample them from it, so that a replacement or a
                // bigger generation built before this run has seen records is sized for the entries it must hold
                // (the 16/32-byte fallbacks made such a copy overflow Chronicle's tiers).
                double[] averages = InitialSizing.averagesOf(live);
                // Its largest entry is not known (not seen in this run): learnt as copies meet entries they refuse
                // (each then starts again sized for it), not taken from the file's limit, which would keep every
                // later generation's tiers as long as this one's even once its large values are gone.
                life.setSizing(new GenerationSizing(
                        m.capacity(), averages[0], averages[1], GenerationSizing.MAX_BLOAT_FACTOR, 0));
                metrics.resumes.labelValues(nsLabel).inc();
                log.info(
                        "Namespace '{}': resuming generation {} from stored offsets {}",
                        nsLabel,
                        m.generation(),
                        m.offsets());
                Map<Integer, Long> from = new TreeMap<>(beginning);
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
     * @param topicId         the topic's id now, or null when unknown
     * @param retentionMillis the topic's delete.retention.ms now, or -1 when it could not be read (the value known
     *                        before is kept)
     * @return per partition, the offset to consume from
     */
    public Map<Integer, Long> rebuild(
            String reason, Map<Integer, Long> beginning, Map<Integer, Long> end, String topicId, long retentionMillis) {
        growth.startOver();
        life.dropForRebuild();
        life.recordTopicId(topicId);
        if (retentionMillis >= 0) {
            life.setDeleteRetention(retentionMillis);
        }
        initialSizing.clear();
        heldBack.clear();
        lastError.clear();
        return rebuildFrom(reason, beginning, end);
    }

    private Map<Integer, Long> rebuildFrom(String reason, Map<Integer, Long> beginning, Map<Integer, Long> end) {
        long expectedEntries = initialSizing.start(beginning, end);
        log.info(
                "Namespace '{}': building a fresh generation from the beginning of topic '{}' ({}); up to {} records;"
                        + " readers keep the last published generation meanwhile",
                nsLabel,
                binding.topic(),
                reason,
                expectedEntries);
        metrics.rebuilds.labelValues(nsLabel).inc();
        return beginning;
    }

    /**
     * A resumed generation built before topic ids were recorded learns its topic's; a manifest that cannot be
     * written now gets it at the next publish, and the resume goes on.
     */
    private void recordTopicId(String topicId) {
        if (topicId == null) {
            return;
        }
        try {
            life.recordAttribute(ResumeDecision.TOPIC_ID, topicId);
        } catch (IOException e) {
            log.warn(
                    "Namespace '{}': cannot record the topic's id in its manifest now ({}); the next publish does",
                    nsLabel,
                    e.toString());
        }
    }

    /**
     * Applies one decoded record: {@code value == null} removes. Held for the sample while sampling.
     *
     * @return {@link Applied#DONE} when it is applied or held; otherwise what the ingest thread must do about it
     *         (skip it, pause the topic and read it again, or rebuild)
     */
    public Applied apply(String key, String value, Positions positions) {
        lastUpdateMillis = System.currentTimeMillis();
        if (initialSizing.sampling()) {
            if (initialSizing.hold(key, value)) {
                return initialSizing.full() ? finishSampling(positions) : Applied.DONE;
            }
            // the heap budget for samples is spent: sized from what is held, then applied
            Applied sampled = finishSampling(positions);
            if (sampled.halts()) {
                return sampled;
            }
        }
        Applied earlier = heldBack.apply(positions); // records read before this one come first
        if (earlier.halts()) {
            return earlier;
        }
        Applied checked = growth.checkWithinBatch(positions);
        return checked.halts() ? checked : writes.apply(key, value, positions);
    }

    /** The generation a parallel pass of {@code records} records may fill now, or null: see {@link ParallelFill#of}. */
    public ParallelFill parallelFill(int records) {
        lastUpdateMillis = System.currentTimeMillis(); // asked only for a batch with records for this namespace
        return ParallelFill.of(life, growth, lastError, initialSizing.sampling() || !heldBack.isEmpty(), records);
    }

    /**
     * Creates the rebuild's generation, sized from the sample, and applies the records held back for it.
     *
     * @return {@link Applied#DONE}, or why the records held back cannot all be applied now
     */
    private Applied finishSampling(Positions positions) {
        GenerationSizing sizing = initialSizing.sizing(life.usableSpace());
        life.setSizing(sizing);
        GenerationFile building;
        try {
            building = life.startBuilding(sizing);
        } catch (IOException e) {
            return lastError.stall(
                    "cannot create a generation of " + sizing.entries() + " entries: " + e.getMessage(),
                    Applied.Stalled.PAUSE_MILLIS);
        }
        lastError.stallOver(); // the pause was for this generation: over even when no record was held back for it
        log.info(
                "Namespace '{}': new generation {} sized for {} entries (avg key {} B, value {} B)",
                nsLabel,
                building.file().getFileName(),
                sizing.entries(),
                Math.round(sizing.averageKeyBytes()),
                Math.round(sizing.averageValueBytes()));
        heldBack.addAll(initialSizing.finish());
        return heldBack.apply(positions);
    }

    /**
     * After a poll batch is fully applied ({@code positions} are exact): finishes sampling, publishes a rebuilt
     * generation once caught up, grows when needed.
     *
     * @return {@link Applied#DONE}, or the stall or rebuild that stopped the records held back for the sample
     */
    public Applied afterBatch(boolean nowCaughtUp, Positions positions) {
        life.setCaughtUp(nowCaughtUp);
        if (initialSizing.sampling() && nowCaughtUp) {
            Applied sampled = finishSampling(positions);
            if (sampled.halts()) {
                return sampled;
            }
        }
        if (!heldBack.isEmpty() && !lastError.stalledAt(System.nanoTime())) {
            // after a stall that left some held back, once its pause is over
            Applied earlier = heldBack.apply(positions);
            if (earlier.halts()) {
                return earlier;
            }
        }
        if (life.building() != null && nowCaughtUp && heldBack.isEmpty()) {
            life.publishBuilt(positions);
            if (life.building() == null) {
                requestedRebuild = null; // done: a later start (the broker lost and back) resumes it
            }
        }
        growth.afterBatch(positions, initialSizing.sampling());
        return Applied.DONE;
    }

    /** Records progress of a live generation for readers (content version) and for a later resume. */
    public void checkpoint(Positions positions) {
        life.checkpoint(positions);
    }

    public boolean isPublishedAndCaughtUp() {
        return life.isPublishedAndCaughtUp();
    }

    /** The published manifest's {@code updated.at}: since when its offsets are known current; UNKNOWN when none. */
    public long publishedCurrentAsOfMillis() {
        return directory.published().map(Manifest::updatedAtMillis).orElse(Positions.UNKNOWN);
    }

    /** Whether readers see what this writer applies: a generation is published and no rebuild replaces it. */
    public boolean isLive() {
        return life.isLive();
    }

    /**
     * Clean stop: a live generation is closed with its final offsets (the next start resumes); an unpublished one is
     * discarded.
     */
    public void close(Positions positions) {
        try {
            growth.cancelQuietly();
            life.closeCleanly(positions);
        } catch (IOException | RuntimeException e) {
            log.error("Namespace '{}': clean close failed, the next start rebuilds: {}", nsLabel, e.toString());
            try {
                life.releaseDirectory();
            } catch (IOException ignored) {
                // the OS releases the lock at exit anyway
            }
        }
    }

    /** Releases the namespace without marking it closed: used when the writer fails to start. */
    public void abandon() {
        try {
            growth.cancelQuietly();
            life.release();
        } catch (IOException | RuntimeException e) {
            log.warn("Namespace '{}': releasing failed: {}", nsLabel, e.toString());
        }
    }

    /**
     * A snapshot for HTTP and the heartbeat, with {@code lag}, the ingest side's reason why it is not ready and the
     * time its positions were last current with the topic ({@link Positions#currentAsOfMillis}); updates the gauges.
     */
    public NamespaceStatus status(Map<Integer, Long> lag, String notReadyReason, long currentAsOfMillis) {
        GenerationFile t = life.target();
        long generation = directory.published().map(Manifest::generation).orElse(0L);
        long entries = t == null ? initialSizing.sampled() : t.size();
        long capacity = t == null ? 0 : t.capacity();
        NamespaceStatus.State state;
        long now = System.nanoTime();
        boolean growthWaits = growth.deferred(now);
        String error = lastError.shown(growthWaits);
        if (lastError.stalledAt(now) || growthWaits && lastError.failing(LastError.GROWTH) != null) {
            state = NamespaceStatus.State.STALLED;
        } else if (life.building() != null || initialSizing.sampling()) {
            state = NamespaceStatus.State.REBUILDING;
        } else if (life.live() != null) {
            state = NamespaceStatus.State.LIVE;
        } else {
            state = NamespaceStatus.State.STARTING;
        }
        metrics.entries.labelValues(nsLabel).set(entries);
        metrics.capacity.labelValues(nsLabel).set(capacity);
        metrics.generation.labelValues(nsLabel).set(generation);
        metrics.caughtUp.labelValues(nsLabel).set(isPublishedAndCaughtUp() ? 1 : 0);
        // A partition no longer in the topic (recreated with fewer) would otherwise report its last lag forever.
        lagPartitions.stream()
                .filter(p -> !lag.containsKey(p))
                .forEach(p -> metrics.lag.remove(nsLabel, Integer.toString(p)));
        lag.forEach(
                (p, l) -> metrics.lag.labelValues(nsLabel, Integer.toString(p)).set(l));
        lagPartitions = Set.copyOf(lag.keySet());
        Manifest published = directory.published().orElse(null);
        Long digest = published == null ? null : published.contentDigest();
        if (digest != null) {
            metrics.contentDigest.labelValues(nsLabel).set(digest & WriterMetrics.DIGEST_GAUGE_MASK);
        }
        return new NamespaceStatus(
                nsLabel,
                binding.topic(),
                state,
                generation,
                entries,
                capacity,
                capacity == 0 ? 0 : (double) entries / capacity,
                lag,
                lastUpdateMillis,
                error,
                isPublishedAndCaughtUp(),
                notReadyReason,
                published == null ? Map.of() : published.offsets(),
                digest,
                skipped.list(),
                state == NamespaceStatus.State.LIVE ? currentAsOfMillis : Positions.UNKNOWN);
    }
}
