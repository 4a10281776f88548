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
 */
final class TopicCurrency {
    /** Recent answers kept per partition, every one: two minutes of health checks when nothing else asks. */
    private static final int ANSWERS_KEPT = 24;
    /** Older answers kept per partition, at least {@link #OLDER_SPACING_MILLIS} apart: an hour. */
    private static final int OLDER_KEPT = 60;
    private static final long OLDER_SPACING_MILLIS = 60_000;

    private record Answer(long askedAtMillis, long end) {
    }

    private final Map<TopicPartition, Deque<Answer>> answers = new HashMap<>();
    /** Per partition, answers older than {@link #answers}' (newest first). */
    private final Map<TopicPartition, Deque<Answer>> older = new HashMap<>();
    /** Per partition, the latest answer its applied position has reached. */
    private final Map<TopicPartition, Answer> reachedAt = new HashMap<>();
    /** Per partition, the end of the answer it had reached when its topic was last credited. */
    private final Map<TopicPartition, Long> creditedEnd = new HashMap<>();
    /** Per topic, since when its positions are known current: credited by the caller (see {@link #credit}). */
    private final Map<String, Long> currentAsOf = new HashMap<>();
    /** Topics read again from their beginning ({@link #restart}), neither credited nor {@link #interrupted} since. */
    private final Set<String> readFromBeginning = new HashSet<>();
    /** Topics rebuilt because their positions were not current for too long, not credited since. */
    private final Set<String> rebuiltForGap = new HashSet<>();

    /** The broker gave these end offsets to a request sent at {@code askedAtMillis}. */
    void answered(Map<TopicPartition, Long> ends, long askedAtMillis) {
        ends.forEach((tp, end) -> {
            Deque<Answer> kept = answers.computeIfAbsent(tp, p -> new ArrayDeque<>());
            kept.addFirst(new Answer(askedAtMillis, end));
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
        return asOf == Long.MAX_VALUE ? Positions.UNKNOWN : asOf;
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
        currentAsOf.merge(topic, asOfMillis, Math::max);
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
        return currentAsOf.getOrDefault(topic, Positions.UNKNOWN);
    }

    /**
     * The topic is read again from its beginning from a moment its ends were asked at: what its partitions reached
     * before no longer counts, and its positions are current as of that moment (what a rebuild publishes was read
     * from there), until they reach a later answer.
     */
    void restart(String topic, Collection<TopicPartition> partitions, long askedAtMillis) {
        partitions.forEach(reachedAt::remove);
        partitions.forEach(creditedEnd::remove);
        currentAsOf.put(topic, askedAtMillis);
        readFromBeginning.add(topic);
    }
}
