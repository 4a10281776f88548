package io.sharedlookup.writer.namespace;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.RateLimitedLog;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of a namespace's generations, from creation to retirement, as the ingest thread drives it: the live one
 * (published, updated in place), the one being built (during a rebuild; never visible until complete), the sizing the
 * current one was made with; creating, resuming, publishing, checkpointing, discarding and closing them with the
 * offsets applied. It is the only caller of the {@link NamespaceDirectory}'s life-cycle operations: {@link Growth},
 * {@link SynchronousReplacement} and {@link NamespaceIngest} ask it for a new generation, to discard one or to switch
 * to one, so that one class says in which order a generation is made, shown to readers and let go.
 */
final class GenerationLife {
    private static final Logger log = LoggerFactory.getLogger(GenerationLife.class);
    /** How the errors of the two recurring manifest writes start: each clears its own once it succeeds. */
    private static final String CHECKPOINT_FAILED = "cannot write the manifest: ";
    /**
     * A quiet topic's manifest is rewritten this often while the broker answers (more often for a topic whose
     * {@code delete.retention.ms} is shorter: {@link #stampRefreshFor}), so that its {@code updated.at} (how current its
     * offsets are) stays recent: a start after a stop, or a host seeded from a snapshot of it, measures that age
     * against the topic's {@code delete.retention.ms}, and would otherwise count it from the last record.
     */
    static final long STAMP_REFRESH_MILLIS = java.util.concurrent.TimeUnit.MINUTES.toMillis(10);
    /**
     * The shortest restamping interval, whatever the topic's {@code delete.retention.ms}: the period at which the
     * writer asks the broker for the end offsets, and so at which the offsets can be found current again.
     */
    static final long MIN_STAMP_REFRESH_MILLIS = 5_000;

    private static final String PUBLISH_FAILED = "cannot publish generation ";

    private final NamespaceDirectory directory;
    private final String topic;
    /** Recorded with every generation published; the topic's id joins them once known ({@link #recordTopicId}). */
    private Map<String, String> attributes;

    private final String nsLabel;
    private final LastError lastError;
    private final RateLimitedLog checkpointFailures = new RateLimitedLog(log, 60_000);
    /** A publish that fails is retried after every poll (5 a second): one ERROR, then one a minute. */
    private final RateLimitedLog publishFailures = new RateLimitedLog(log, 60_000);

    private GenerationFile live;
    private GenerationFile building;
    private GenerationSizing sizing;
    /** Whether readable content changed since the manifest was last written. */
    private boolean dirty;

    private boolean caughtUp;
    /** How often a quiet topic's manifest is restamped: see {@link #stampRefreshFor}. */
    private long stampRefreshMillis = STAMP_REFRESH_MILLIS;

    GenerationLife(
            NamespaceDirectory directory,
            String topic,
            String namespace,
            Map<String, String> attributes,
            LastError lastError) {
        this.directory = directory;
        this.topic = topic;
        this.nsLabel = namespace;
        this.attributes = attributes;
        this.lastError = lastError;
    }

    /**
     * The topic's {@code delete.retention.ms}, or -1 when unknown: sets how often a quiet topic is restamped. Told at
     * start and at each rebuild, when the writer reads it.
     */
    void setDeleteRetention(long retentionMillis) {
        stampRefreshMillis = stampRefreshFor(retentionMillis);
    }

    /**
     * How often a quiet topic's manifest is restamped: every {@link #STAMP_REFRESH_MILLIS}, or four times within a
     * {@code delete.retention.ms} shorter than that (at most every {@link #MIN_STAMP_REFRESH_MILLIS}), so that a
     * snapshot taken of it at any moment (a new host's seed) still has time to be copied and resumed before its stamp
     * is older than the topic's {@code delete.retention.ms}. Unknown ({@code -1}): Kafka's default, a day, which the
     * ten minutes are well within.
     */
    static long stampRefreshFor(long retentionMillis) {
        if (retentionMillis < 0) {
            return STAMP_REFRESH_MILLIS;
        }
        return Math.min(STAMP_REFRESH_MILLIS, Math.max(MIN_STAMP_REFRESH_MILLIS, retentionMillis / 4));
    }

    /** Where records go: the generation being built during a rebuild, the live one otherwise; null while sampling. */
    GenerationFile target() {
        return building != null ? building : live;
    }

    GenerationFile live() {
        return live;
    }

    GenerationFile building() {
        return building;
    }

    GenerationSizing sizing() {
        return sizing;
    }

    void setSizing(GenerationSizing sizing) {
        this.sizing = sizing;
    }

    /** Whether this writer keeps a reverse index beside each generation (recorded as a namespace attribute). */
    boolean reverseIndex() {
        return Boolean.parseBoolean(attributes.get(StoreLayout.REVERSE_INDEX_ATTRIBUTE));
    }

    /**
     * Reopens the published generation for writing ({@link NamespaceDirectory#resume}): it is live again.
     *
     * @throws io.sharedlookup.internal.store.StoreFormatException when the generation cannot be opened
     */
    GenerationFile resume() throws IOException {
        live = directory.resume();
        return live;
    }

    /**
     * Creates the next generation file, empty and invisible to readers until it is switched to or published, with a
     * reverse index beside it when this writer keeps one ({@link #reverseIndex}).
     */
    GenerationFile create(GenerationSizing newSizing) throws IOException {
        return directory.createGeneration(newSizing, reverseIndex());
    }

    /** Abandons a generation that was never published (a failed or cancelled build or copy) and deletes its files. */
    void discard(GenerationFile generation) throws IOException {
        directory.discard(generation);
    }

    /** Bytes the store's file system has for this namespace now; {@code DiskFit.UNKNOWN} when it cannot say. */
    long usableSpace() {
        return directory.usableSpace();
    }

    /**
     * Before a change to {@code target}: makes sure the manifest says open when {@code target} is the resumed
     * generation ({@link NamespaceDirectory#requireMarkedOpen}).
     *
     * @throws IOException when the manifest still cannot be written (the change must wait)
     */
    void requireMarkedOpen(GenerationFile target) throws IOException {
        directory.requireMarkedOpen(target);
    }

    /** Records {@code name=value} among the published manifest's attributes (a setting learnt after it was built). */
    void recordAttribute(String name, String value) throws IOException {
        directory.recordAttribute(name, value);
    }

    /**
     * The topic's id, recorded with every generation published from now on; null when it could not be read, and
     * then none is recorded (an id from before could be another topic's).
     */
    void recordTopicId(String topicId) {
        Map<String, String> with = new java.util.HashMap<>(attributes);
        if (topicId == null) {
            with.remove(ResumeDecision.TOPIC_ID);
        } else {
            with.put(ResumeDecision.TOPIC_ID, topicId);
        }
        attributes = Map.copyOf(with);
    }

    /**
     * Creates a fresh generation of {@code newSizing}, filled from the beginning of the topic and published once
     * caught up ({@link #publishBuilt}); records go to it from now on.
     */
    GenerationFile startBuilding(GenerationSizing newSizing) throws IOException {
        building = create(newSizing);
        return building;
    }

    /** Readable content changed: the next checkpoint writes the manifest even if the offsets did not move. */
    void markDirty() {
        dirty = true;
    }

    boolean caughtUp() {
        return caughtUp;
    }

    void setCaughtUp(boolean caughtUp) {
        this.caughtUp = caughtUp;
    }

    boolean isLive() {
        return live != null && building == null;
    }

    boolean isPublishedAndCaughtUp() {
        return isLive() && caughtUp;
    }

    /**
     * Drops what is being built and lets go of the live generation (only the writer's handle: the manifest still
     * points readers at it), for a rebuild from the beginning of the topic.
     */
    void dropForRebuild() {
        try {
            if (building != null) {
                discard(building);
            }
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "Namespace '{}': cannot delete the unpublished generation {}: {}",
                    nsLabel,
                    building.file().getFileName(),
                    e.toString());
        }
        building = null;
        if (live != null) {
            live.close();
            live = null;
        }
        caughtUp = false;
        dirty = false;
    }

    /** Publishes the generation a rebuild filled, once caught up: it becomes the live one. */
    void publishBuilt(Positions positions) {
        try {
            directory.publish(building, topic, positions.of(topic), true, attributes, currentAsOf(positions));
        } catch (IOException e) {
            String error = PUBLISH_FAILED + building.file().getFileName() + ": " + e.getMessage();
            lastError.stepFailed(PUBLISH_FAILED, error);
            publishFailures.error("Namespace '{}': {}", nsLabel, error);
            return;
        }
        lastError.stepSucceeded(PUBLISH_FAILED);
        if (live != null) {
            live.close();
        }
        live = building;
        building = null;
        dirty = false;
        log.info(
                "Namespace '{}': published generation {} with {} entries; caught up",
                nsLabel,
                live.file().getFileName(),
                live.size());
    }

    /** Makes {@code next}, a complete copy of the target, the target: published when the target was. */
    void switchTo(GenerationFile next, GenerationSizing newSizing, Positions positions, boolean positionsExact)
            throws IOException {
        if (building != null) {
            discard(building);
            building = next;
        } else {
            GenerationFile old = live;
            directory.publish(
                    next, topic, positions.of(topic), caughtUp && positionsExact, attributes, currentAsOf(positions));
            // Published: from here on `next` is the live generation whatever happens, so a failure to close the old
            // one must not reach a caller that would discard `next` as unpublished.
            live = next;
            dirty = false;
            try {
                old.close();
            } catch (RuntimeException e) {
                log.warn(
                        "Namespace '{}': cannot close generation {}: {}",
                        nsLabel,
                        old.file().getFileName(),
                        e.toString());
            }
        }
        sizing = newSizing;
        lastError.stallOver(); // a stall for room (a full generation, one left locked) ends with the new one
        log.info(
                "Namespace '{}': switched to generation {} ({} entries, capacity {})",
                nsLabel,
                next.file().getFileName(),
                next.size(),
                newSizing.entries());
    }

    /**
     * Since when the offsets are known current ({@code updated.at}): as the consumer knows it; else as the manifest
     * says (a resumed topic that has not reached the log's end in this run); else now (a first publish, which comes
     * only once caught up). Never later than this host's clock now: a stamp from the future would make offsets of any
     * age pass for fresh at a later start (see {@link ResumeDecision#CLOCK_SKEW_MILLIS}).
     */
    private long currentAsOf(Positions positions) {
        long now = System.currentTimeMillis();
        long asOf = positions.currentAsOfMillis(topic);
        if (asOf != Positions.UNKNOWN) {
            return Math.min(asOf, now);
        }
        return Math.min(directory.published().map(Manifest::updatedAtMillis).orElse(now), now);
    }

    /** Records progress of a live generation for readers (content version) and for a later resume. */
    void checkpoint(Positions positions) {
        directory.retryCleanUp(); // old generation files a publish could not delete; a no-op when there are none
        if (live == null || building != null) {
            return;
        }
        Map<Integer, Long> offsets = positions.of(topic);
        long asOf = currentAsOf(positions);
        Manifest current = directory.published().orElse(null);
        if (!dirty
                && current != null
                && current.offsets().equals(offsets)
                && current.caughtUp() == caughtUp
                && asOf - current.updatedAtMillis() < stampRefreshMillis) {
            // Nothing new: do not rewrite the manifest readers poll. It says what a checkpoint would (a publish
            // wrote it since), so a checkpoint that failed before is over.
            lastError.stepSucceeded(CHECKPOINT_FAILED);
            return;
        }
        try {
            directory.checkpoint(offsets, caughtUp, dirty, asOf);
            dirty = false;
            lastError.stepSucceeded(CHECKPOINT_FAILED);
        } catch (IOException e) {
            // Retried at every checkpoint (several a second): one WARN a minute says it, lastError shows it.
            String error = CHECKPOINT_FAILED + e.getMessage();
            lastError.stepFailed(CHECKPOINT_FAILED, error);
            checkpointFailures.warn("Namespace '{}': {}", nsLabel, error);
        }
    }

    /**
     * Clean stop: the live generation is closed with its final offsets (the next start resumes); an unpublished one
     * is discarded.
     */
    void closeCleanly(Positions positions) throws IOException {
        if (building != null) {
            discard(building);
            building = null;
        }
        if (live != null) {
            directory.closeCleanly(live, positions.of(topic), caughtUp, dirty, currentAsOf(positions));
            live = null;
        } else {
            directory.close();
        }
    }

    /** Lets go of everything without marking the namespace closed: the next start rebuilds. */
    void release() throws IOException {
        if (building != null) {
            discard(building);
        }
        if (live != null) {
            live.close();
        }
        directory.close();
    }

    /** After a failed clean close: lets go of the namespace's directory (its lock) without writing anything more. */
    void releaseDirectory() throws IOException {
        directory.close();
    }
}
