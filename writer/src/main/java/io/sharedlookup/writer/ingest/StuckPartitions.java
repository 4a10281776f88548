package io.sharedlookup.writer.ingest;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partitions that stopped moving although their log goes on: the position has stayed put for longer than the bound
 * while the end offset is beyond it, the partition not paused and the broker answering. The consumer then gets neither
 * records nor an error from there: the broker cannot find a next batch in its own log at that offset (a batch whose
 * length was damaged to point past the log's end, or to where no batch starts), and answers with nothing. Nothing
 * else notices: no exception, no pause, and the namespace would serve stale values with only its lag to show for it.
 *
 * <p>Such a partition is reported (on {@code /ready}, at WARN, as a gauge) and not skipped: where the next readable
 * batch starts is not known, and guessing would lose updates without telling how many. It clears itself once the
 * partition moves again (repaired, or its leadership moved to an intact replica). Only the time the writer was free to
 * read counts towards the bound: time the ingest thread spent applying records ({@link #busyFor}) does not, so a writer
 * slower than its topic is not taken for a damaged log.
 *
 * <p>A partition held at its last stable offset by an open transaction stays put the same way: the writer reads
 * {@code read_committed}, so nothing past the transaction's first record is readable until it ends. Past the bound it
 * is reported stuck too, naming the transaction (a producer that died mid-transaction holds it until the broker aborts
 * it after {@code transaction.timeout.ms}). Owned by the ingest thread.
 */
final class StuckPartitions {
    private static final Logger log = LoggerFactory.getLogger(StuckPartitions.class);

    /**
     * Where a partition was last seen, since when it has been there, and how much of the ingest thread's time had gone
     * to its own work ({@link #busyFor}) by then.
     */
    private record Watch(long position, long sinceNanos, long busyNanosThen) {}

    /**
     * A longer time between two checks means the ingest thread was busy elsewhere (a growth copy, a slow disk): the
     * positions could not move then, so that time does not count.
     */
    static final long MAX_CHECK_GAP_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final long afterNanos;
    /**
     * The ingest thread's time spent on its own work (applying records, growing a generation), not asking the broker:
     * a writer slower than its topic (a growth copy on a host short of memory, a saturated disk) polls rarely and
     * leaves records unread in every partition, which says nothing about the broker's log. Only the time the writer
     * was free to read counts towards the bound.
     */
    private long busyNanos;

    private long lastCheck;
    private boolean checked;
    private final Map<TopicPartition, Watch> watched = new HashMap<>();
    /** Per stuck partition, its log's end at the last check (what {@code /ready} says is worked out from it). */
    private final Map<TopicPartition, Long> stuck = new HashMap<>();

    private static final String UNDESCRIBED = "an open transaction (not described yet)";
    /** Per partition held at its last stable offset with records beyond it, the open transaction holding it. */
    private final Map<TopicPartition, String> heldBy = new HashMap<>();

    /** @param afterSeconds how long a partition may stay put while its log goes on before it counts as stuck */
    StuckPartitions(long afterSeconds) {
        this.afterNanos = TimeUnit.SECONDS.toNanos(afterSeconds);
    }

    /** The ingest thread spent {@code nanos} on its own work since it last said so (between two polls). */
    void busyFor(long nanos) {
        busyNanos += Math.max(0, nanos);
    }

    /**
     * Looks at every assigned partition once more, after the end offsets were refreshed (so only while the broker
     * answers).
     *
     * @param paused   partitions the writer paused itself (a stalled namespace, an unreadable partition): they stay
     *                 put on purpose and are said to be paused already
     * @param position the consumer's position of a partition
     * @param end      the partition's end offset last seen
     */
    void check(
            long now,
            Collection<TopicPartition> assigned,
            Set<TopicPartition> paused,
            ToLongFunction<TopicPartition> position,
            ToLongFunction<TopicPartition> end) {
        check(now, assigned, paused, position, end, tp -> -1, tp -> null);
    }

    /**
     * As {@link #check(long, Collection, Set, ToLongFunction, ToLongFunction)}, where {@code end} is the last stable
     * offset ({@code read_committed}), and a partition may be held there by an open transaction: its records up to
     * the high watermark are then not readable yet, and a partition held so past the bound is stuck too.
     *
     * @param highWatermark   the partition's high watermark, -1 when not known
     * @param openTransaction the open transaction holding the partition, described, or null when not known
     */
    void check(
            long now,
            Collection<TopicPartition> assigned,
            Set<TopicPartition> paused,
            ToLongFunction<TopicPartition> position,
            ToLongFunction<TopicPartition> end,
            ToLongFunction<TopicPartition> highWatermark,
            Function<TopicPartition, String> openTransaction) {
        boolean wasAway = checked && now - lastCheck > MAX_CHECK_GAP_NANOS;
        checked = true;
        lastCheck = now;
        Set<TopicPartition> current = new HashSet<>(assigned);
        watched.keySet().retainAll(current);
        stuck.keySet().retainAll(current);
        heldBy.keySet().retainAll(current);
        for (TopicPartition tp : assigned) {
            if (paused.contains(tp)) {
                watched.remove(tp);
                stuck.remove(tp);
                heldBy.remove(tp);
                continue;
            }
            long at = position.applyAsLong(tp);
            long stable = end.applyAsLong(tp);
            long logEnd = Math.max(stable, highWatermark.applyAsLong(tp));
            if (at >= stable && logEnd > at) {
                String open = openTransaction.apply(tp);
                String before = heldBy.put(tp, open != null ? open : UNDESCRIBED);
                if (open != null && UNDESCRIBED.equals(before) && stuck.containsKey(tp)) {
                    log.warn("Topic '{}' is stuck: {}", tp.topic(), why(tp)); // reported before it was described
                }
            } else {
                heldBy.remove(tp);
            }
            Watch seen = watched.get(tp);
            if (seen == null || seen.position() != at || logEnd <= at) {
                heldBy.remove(tp);
                if (stuck.remove(tp) != null) {
                    log.info("Partition {} moves again (now at offset {}); no longer stuck", tp, at);
                }
                watched.put(tp, new Watch(at, now, busyNanos));
            } else if (stuck.containsKey(tp)) {
                stuck.put(tp, logEnd); // still stuck; the log may have gone on
            } else if (wasAway) {
                watched.put(tp, new Watch(at, now, busyNanos)); // it had no chance to move: watch it afresh
            } else if (now - seen.sinceNanos() - (busyNanos - seen.busyNanosThen()) >= afterNanos) {
                stuck.put(tp, logEnd);
                log.warn(
                        "Topic '{}' is stuck: {} (docs/writer.md, '{}')",
                        tp.topic(),
                        why(tp),
                        heldBy.containsKey(tp) ? "Transactions" : "Damaged or unreadable partitions");
            }
        }
    }

    /**
     * Watches afresh every partition not reported yet: the positions could not move for a reason of their own (the
     * broker gone, polls failing), reported as such. A partition already reported stays so until it moves.
     */
    void restart() {
        watched.keySet().removeIf(tp -> !stuck.containsKey(tp));
        checked = false;
    }

    /** What {@code /ready} says of a stuck partition, as of the last check. */
    private String why(TopicPartition tp) {
        Watch seen = watched.get(tp);
        String open = heldBy.get(tp);
        if (open != null) {
            return "partition " + tp.partition() + " has been held at its last stable offset " + seen.position()
                    + " for " + TimeUnit.NANOSECONDS.toSeconds(lastCheck - seen.sinceNanos()) + " s by " + open
                    + ": the records after it, up to offset " + stuck.get(tp) + ", are not readable (read_committed) "
                    + "until it commits or aborts; end it in its producer, or abort it with kafka-transactions.sh "
                    + "abort (the broker aborts it itself after the producer's transaction.timeout.ms)";
        }
        return "partition " + tp.partition() + " has not moved past offset " + seen.position() + " for "
                + TimeUnit.NANOSECONDS.toSeconds(lastCheck - seen.sinceNanos()) + " s although its log ends at "
                + stuck.get(tp) + ", and the broker sends neither records nor an error from there: its log is "
                + "probably damaged at that offset; repair the partition, e.g. move its leadership to a replica "
                + "with an intact copy";
    }

    /** Why the topic's partitions are stuck, one clause each, or null when none is. */
    String reason(String topic) {
        StringJoiner out = new StringJoiner("; ");
        byPartition(topic).values().forEach(tp -> out.add(why(tp)));
        return out.length() == 0 ? null : out.toString();
    }

    /** How many of the topic's partitions are stuck. */
    int count(String topic) {
        return byPartition(topic).size();
    }

    private Map<Integer, TopicPartition> byPartition(String topic) {
        Map<Integer, TopicPartition> out = new TreeMap<>();
        for (TopicPartition tp : stuck.keySet()) {
            if (tp.topic().equals(topic)) {
                out.put(tp.partition(), tp);
            }
        }
        return out;
    }
}
