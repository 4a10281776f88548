package io.sharedlookup.writer.ingest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the health check asks the broker for end offsets without holding the ingest thread long: the consumer's
 * {@code endOffsets} blocks, and one topic that does not answer (its leader gone, a slow describe) holds up a call
 * that names it for the whole timeout. So a topic that did not answer at a check is left out of the call for all
 * topics at the next ones, and asked alone with a short timeout instead; once it answers it is asked with the others
 * again. All the asking of one check blocks the ingest thread at most {@link #CHECK_BUDGET} (plus one
 * {@link #MIN_ALONE}); a topic the budget leaves unasked is asked first at the next check. Owned by the ingest thread.
 */
final class EndsRefresh {
    private static final Logger log = LoggerFactory.getLogger(EndsRefresh.class);
    /** The most one health check may block the ingest thread asking for end offsets (it runs every 5 s). */
    static final Duration CHECK_BUDGET = Duration.ofMillis(1_200);
    /**
     * How long the call for all topics that answered last time is given: a healthy broker answers in milliseconds, and
     * a writer of one topic says Kafka is unreachable after this, so it leaves room for a pause on a loaded host.
     */
    static final Duration ALL_TIMEOUT = Duration.ofSeconds(1);
    /** The most one topic asked alone is given: a topic whose leader is back answers in milliseconds. */
    static final Duration ALONE_TIMEOUT = Duration.ofMillis(200);
    /** The least time one topic asked alone is given: a round trip's worth, so that a slow one fails only itself. */
    static final Duration MIN_ALONE = Duration.ofMillis(100);

    private final Consumer<byte[], byte[]> consumer;
    private final Function<String, List<TopicPartition>> partitionsOf;
    /** Receives each answer, with the wall-clock time it was asked at. */
    private final BiConsumer<Map<TopicPartition, Long>, Long> answered;
    /** Topics that did not answer (or were not asked) at the last check, in the order they are to be asked alone. */
    private final Set<String> slow = new LinkedHashSet<>();
    /** A topic asked alone that the writer may not describe, thrown once the others are asked. */
    private TopicAuthorizationException denied;
    /** How many slow topics the last {@link #askEachAlone} left unasked for want of time. */
    private int unaskedLeft;

    EndsRefresh(
            Consumer<byte[], byte[]> consumer,
            Function<String, List<TopicPartition>> partitionsOf,
            BiConsumer<Map<TopicPartition, Long>, Long> answered) {
        this.consumer = consumer;
        this.partitionsOf = partitionsOf;
        this.answered = answered;
    }

    /**
     * Asks for the end offsets of {@code topics} but {@code skip}; see {@link PartitionOffsets#refreshEnds}.
     *
     * @return the topics that did not answer (or that the budget left unasked): their namespaces say so
     */
    Set<String> refresh(Collection<String> topics, Set<String> skip, boolean eachAlone) {
        slow.removeIf(t -> skip.contains(t) || !topics.contains(t));
        List<String> asked = topics.stream().filter(t -> !skip.contains(t)).toList();
        if (asked.isEmpty()) {
            return Set.of();
        }
        long deadline = System.nanoTime() + CHECK_BUDGET.toNanos();
        denied = null;
        List<String> together = asked.stream().filter(t -> !slow.contains(t)).toList();
        boolean anyAnswered = false;
        TimeoutException noAnswer = null;
        if (!together.isEmpty()) {
            try {
                anyAnswered = ask(together, ALL_TIMEOUT);
            } catch (TimeoutException e) {
                if (asked.size() == 1 || !eachAlone) {
                    throw e;
                }
                noAnswer = e;
                // Which of them held it up is not known: each is asked alone, first, within what is left.
                List<String> before = List.copyOf(slow);
                slow.clear();
                slow.addAll(together);
                slow.addAll(before);
            }
        }
        boolean allAsked = true;
        if (eachAlone) {
            anyAnswered |= askEachAlone(deadline);
            allAsked = unaskedLeft == 0;
        }
        // Unreachable only when every topic was asked and none answered; topics the budget left unasked are asked
        // at the next check before that is said.
        if (!anyAnswered && allAsked) {
            throw noAnswer != null
                    ? noAnswer
                    : new TimeoutException("no end offsets answered for " + asked + " within " + CHECK_BUDGET);
        }
        if (!slow.isEmpty()) {
            log.debug("End offsets not answered for {} of {}", slow, asked);
        }
        if (denied != null) {
            throw denied;
        }
        return new TreeSet<>(slow);
    }

    /** Asks the slow topics one by one while the budget lasts; returns whether any answered. */
    private boolean askEachAlone(long deadline) {
        boolean anyAnswered = false;
        List<String> notAnswered = new ArrayList<>();
        List<String> queue = List.copyOf(slow);
        int i = 0;
        for (; i < queue.size() && System.nanoTime() < deadline; i++) {
            long left = Math.min(Math.max(deadline - System.nanoTime(), MIN_ALONE.toNanos()), ALONE_TIMEOUT.toNanos());
            try {
                ask(List.of(queue.get(i)), Duration.ofNanos(left));
                anyAnswered = true;
            } catch (TopicAuthorizationException e) {
                anyAnswered = true; // the broker answered: it is the permission that is missing
                denied = denied == null ? e : denied;
            } catch (TimeoutException e) {
                notAnswered.add(queue.get(i));
            }
        }
        // Those the budget left unasked go first next time, then those that did not answer.
        slow.clear();
        slow.addAll(queue.subList(i, queue.size()));
        unaskedLeft = queue.size() - i;
        slow.addAll(notAnswered);
        return anyAnswered;
    }

    /** Asks the topics' end offsets in one call; true when answered. */
    private boolean ask(List<String> topics, Duration timeout) {
        List<TopicPartition> tps = new ArrayList<>();
        topics.forEach(t -> tps.addAll(partitionsOf.apply(t)));
        long askedAt = System.currentTimeMillis();
        try {
            answered.accept(consumer.endOffsets(tps, timeout), askedAt);
        } catch (TopicAuthorizationException e) {
            List<TopicPartition> others = tps.stream()
                    .filter(tp -> !e.unauthorizedTopics().contains(tp.topic()))
                    .toList();
            if (!others.isEmpty()) {
                answered.accept(consumer.endOffsets(others, timeout), askedAt);
            }
            throw e;
        }
        return true;
    }
}
