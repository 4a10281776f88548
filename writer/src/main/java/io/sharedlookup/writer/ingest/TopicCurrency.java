package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.Positions;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Since when each topic's applied positions are known to be current: the last moment at which they had reached the
 * end offsets the broker gave when asked then, so that nothing written up to that moment was left unread. Stored with
 * the offsets ({@code updated.at}), it is what a later start measures against the topic's {@code delete.retention.ms}:
 * Kafka keeps a tombstone at least that long after compaction reaches it, so a reader that reads on from positions
 * current less than that long ago misses no delete. Owned by the ingest thread.
 *
 * <p>Each answer with end offsets (at start, for a rebuild or added partitions, at every health check) is kept for a
 * while per partition; a partition has reached an answer once its applied position is at or past that end, and a
 * topic is current as of the oldest such answer over its partitions. A topic behind (records keep coming) is so
 * credited with an earlier answer it has passed, not only with the latest: the last 24 answers are kept (two minutes
 * of health checks), and older ones one a minute for an hour, so that a topic up to an hour behind is still
 * credited, to within a minute.
 *
 * <p>Times come in and go out in wall-clock milliseconds, as the callers ask and as manifests store them, but are kept
 * on the monotonic clock ({@link CurrencyClock}): a time given is taken as that long before now, and a time returned
 * is now (on the wall clock) less the time that has passed since, on the monotonic clock. So a gap between two times
 * is what the monotonic clock measured, whatever the wall clock was stepped by meanwhile; a stamp is never later than
 * the wall clock now; and once a wall clock that ran ahead is set right, the stamps returned follow it.
 */
final class TopicCurrency {
    /** Recent answers kept per partition, every one: two minutes of health checks when nothing else asks. */
    private static final int ANSWERS_KEPT = 24;
    /** Older answers kept per partition, at least {@link #OLDER_SPACING_MILLIS} apart: an hour. */
    private static final int OLDER_KEPT = 60;

    private static final long OLDER_SPACING_MILLIS = 60_000;

    /** An answer: when it was asked for (monotonic milliseconds) and the end offset it gave. */
    private record Answer(long askedAtMillis, long end) {}

    /** A change of the wall clock against the monotonic one larger than this is a step, and followed. */
    static final long STEP_MILLIS = 1_000;

    private final CurrencyClock clock;
    /** How far the wall clock is ahead of the monotonic one, in milliseconds (see {@link #monotonicMillis}). */
    private long wallAhead;

    private boolean wallAheadKnown;
    private final Map<TopicPartition, Deque<Answer>> answers = new HashMap<>();
    /** Per partition, answers older than {@link #answers}' (newest first). */
    private final Map<TopicPartition, Deque<Answer>> older = new HashMap<>();
    /** Per partition, the latest answer its applied position has reached. */
    private final Map<TopicPartition, Answer> reachedAt = new HashMap<>();
    /** Per partition, the end of the answer it had reached when its topic was last credited. */
    private final Map<TopicPartition, Long> creditedEnd = new HashMap<>();
    /**
     * Per topic, since when its positions are known current (monotonic milliseconds, as every time kept here):
     * credited by the caller (see {@link #credit}).
     */
    private final Map<String, Long> currentAsOf = new HashMap<>();
    /** Topics read again from their beginning ({@link #restart}), neither credited nor {@link #interrupted} since. */
    private final Set<String> readFromBeginning = new HashSet<>();
    /** Topics rebuilt because their positions were not current for too long, not credited since. */
    private final Set<String> rebuiltForGap = new HashSet<>();

    TopicCurrency() {
        this(CurrencyClock.SYSTEM);
    }

    TopicCurrency(CurrencyClock clock) {
        this.clock = clock;
    }

    /** The broker gave these end offsets to a request sent at {@code askedAtMillis} (wall clock). */
    void answered(Map<TopicPartition, Long> ends, long askedAtMillis) {
        long askedAt = monotonic(askedAtMillis);
        ends.forEach((tp, end) -> {
            Deque<Answer> kept = answers.computeIfAbsent(tp, p -> new ArrayDeque<>());
            kept.addFirst(new Answer(askedAt, end));
            while (kept.size() > ANSWERS_KEPT) {
                keepOlder(tp, kept.removeLast());
            }
        });
    }

    /** An answer leaving the recent ones: kept on if a minute newer than the older ones kept. */
    private void keepOlder(TopicPartition tp, Answer a) {
        Deque<Answer> kept = older.computeIfAbsent(tp, p -> new ArrayDeque<>());
        if (kept.isEmpty() || a.askedAtMillis() - kept.getFirst().askedAtMillis() >= OLDER_SPACING_MILLIS) {
            kept.addFirst(a);
            while (kept.size() > OLDER_KEPT) {
                kept.removeLast();
            }
        }
    }

    /**
     * The latest moment the topic's positions are current as of, by the answers kept and the positions now: the
     * oldest, over the partitions, of the latest answer each has reached; {@link Positions#UNKNOWN} while a partition
     * has reached none.
     */
    long reached(Collection<TopicPartition> partitions, Function<TopicPartition, Long> applied) {
        long asOf = Long.MAX_VALUE;
        for (TopicPartition tp : partitions) {
            Long next = applied.apply(tp);
            if (next != null && !reach(tp, next, answers.get(tp))) {
                reach(tp, next, older.get(tp));
            }
            Answer at = reachedAt.get(tp);
            if (at == null) {
                return Positions.UNKNOWN;
            }
            asOf = Math.min(asOf, at.askedAtMillis());
        }
        return asOf == Long.MAX_VALUE ? Positions.UNKNOWN : wall(asOf);
    }

    /** Notes the newest of {@code kept} that position {@code next} of {@code tp} has reached; whether there was one. */
    private boolean reach(TopicPartition tp, long next, Deque<Answer> kept) {
        if (kept != null) {
            for (Answer a : kept) { // newest first
                if (next >= a.end()) {
                    reachedAt.merge(tp, a, (was, now) -> now.askedAtMillis() > was.askedAtMillis() ? now : was);
                    return true;
                }
            }
        }
        return false;
    }

    /** The topic's positions (of {@code partitions}) are known current as of {@code asOfMillis} (never moves back). */
    void credit(String topic, Collection<TopicPartition> partitions, long asOfMillis) {
        if (asOfMillis != Positions.UNKNOWN) {
            currentAsOf.merge(topic, monotonic(asOfMillis), Math::max);
        }
        readFromBeginning.remove(topic);
        rebuiltForGap.remove(topic);
        for (TopicPartition tp : partitions) {
            Answer at = reachedAt.get(tp);
            if (at != null) {
                creditedEnd.put(tp, at.end());
            }
        }
    }

    /**
     * Whether nothing was written to these partitions since their topic was last credited: each has reached an answer
     * whose end is the one it had reached then. Nothing written means no delete can have been missed, however long
     * ago that was. False when that cannot be told (a partition never credited, or not at an answer now).
     */
    boolean nothingWrittenSinceCredited(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Answer at = reachedAt.get(tp);
            Long then = creditedEnd.get(tp);
            if (at == null || then == null || at.end() != then) {
                return false;
            }
        }
        return !partitions.isEmpty();
    }

    /**
     * Whether the topic's gap since it was last credited is the length of a read from its beginning, which another
     * read would not shorten: a read without an interruption, or the read of a rebuild made for such a gap already (a
     * hold-up in every read must not rebuild it over and over).
     */
    boolean readingFromBeginning(String topic) {
        return readFromBeginning.contains(topic) || rebuiltForGap.contains(topic);
    }

    /** The topic is rebuilt because its positions were not current for too long: see {@link #readingFromBeginning}. */
    void rebuiltForGap(String topic) {
        rebuiltForGap.add(topic);
    }

    /**
     * The topic's reading was held up (paused, the broker away): a gap since its read from the beginning began is no
     * longer that read's own length.
     */
    void interrupted(String topic) {
        readFromBeginning.remove(topic);
    }

    /** {@link #interrupted} for every topic. */
    void allInterrupted() {
        readFromBeginning.clear();
    }

    /** Since when the topic's positions are known current, or {@link Positions#UNKNOWN}. */
    long currentAsOf(String topic) {
        Long asOf = currentAsOf.get(topic);
        return asOf == null ? Positions.UNKNOWN : wall(asOf);
    }

    /**
     * The topic is read again from its beginning from a moment its ends were asked at: what its partitions reached
     * before no longer counts, and its positions are current as of that moment (what a rebuild publishes was read
     * from there), until they reach a later answer.
     */
    void restart(String topic, Collection<TopicPartition> partitions, long askedAtMillis) {
        partitions.forEach(reachedAt::remove);
        partitions.forEach(creditedEnd::remove);
        currentAsOf.put(topic, monotonic(askedAtMillis));
        readFromBeginning.add(topic);
    }

    /**
     * A wall-clock time given, on the monotonic clock: as long before now as the wall clock says. A time later than the
     * wall clock now (a manifest stamped by a clock that ran ahead) counts as now.
     */
    private long monotonic(long wallMillis) {
        long monotonicNow = monotonicMillis();
        return Math.min(wallMillis - wallAhead, monotonicNow);
    }

    /** A monotonic time kept here, on the wall clock: now less the time that has passed since, never later than now. */
    private long wall(long monotonicMillis) {
        long monotonicNow = monotonicMillis();
        return Math.min(monotonicMillis + wallAhead, monotonicNow + wallAhead);
    }

    /**
     * The monotonic clock now, in milliseconds, having noted how far the wall clock is ahead of it. That difference is
     * taken afresh only when it moved by more than {@link #STEP_MILLIS} (a step of the wall clock): the two clocks are
     * read one after the other and each is rounded, so that taking it afresh every time would make a time given and
     * read back differ by a millisecond.
     */
    private long monotonicMillis() {
        long monotonicNow = Math.floorDiv(clock.monotonicNanos(), 1_000_000L);
        long ahead = clock.wallMillis() - monotonicNow;
        if (!wallAheadKnown || Math.abs(ahead - wallAhead) > STEP_MILLIS) {
            wallAhead = ahead;
            wallAheadKnown = true;
        }
        return monotonicNow;
    }
}
