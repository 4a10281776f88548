package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.Applied;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.Positions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic to namespaces fan-out: each topic is read once, by the one consumer, and every namespace it feeds
 * ({@code --lookup}) applies its records. Offsets are the topic's, so a topic's namespaces move together: they start
 * from the same positions (a start where some can resume and others must be built from the beginning builds them
 * all, readers keeping their published generations meanwhile), a rebuild rebuilds them all, and a pause holds them
 * all. Each keeps its own generations, readiness, metrics, digest and reverse index. Owned by the ingest thread.
 */
final class TopicNamespaces {
    private static final Logger log = LoggerFactory.getLogger(TopicNamespaces.class);

    private final Map<String, List<NamespaceIngest>> byTopic = new LinkedHashMap<>();
    private final List<NamespaceIngest> all;

    TopicNamespaces(List<NamespaceIngest> namespaces) {
        namespaces.forEach(s -> byTopic.computeIfAbsent(s.binding().topic(), t -> new ArrayList<>())
                .add(s));
        all = List.copyOf(namespaces);
    }

    Set<String> topics() {
        return byTopic.keySet();
    }

    /** Every namespace, in the order configured. */
    List<NamespaceIngest> all() {
        return all;
    }

    /** The namespaces the topic feeds (at least one). */
    List<NamespaceIngest> of(String topic) {
        return byTopic.get(topic);
    }

    /** The names of the namespaces the topic feeds. */
    List<String> namespacesOf(String topic) {
        return of(topic).stream().map(s -> s.binding().namespace()).toList();
    }

    /** Whether readers see what is applied in every namespace of the topic. */
    boolean isLive(String topic) {
        return of(topic).stream().allMatch(NamespaceIngest::isLive);
    }

    /** Since when the offsets of the topic's published manifests are known current: the oldest of them. */
    long publishedCurrentAsOfMillis(String topic) {
        return of(topic).stream()
                .mapToLong(NamespaceIngest::publishedCurrentAsOfMillis)
                .min()
                .orElse(Positions.UNKNOWN);
    }

    /**
     * Lets each namespace of the topic choose between resume and rebuild ({@link NamespaceIngest#start}). The topic is
     * read from one position per partition, so when they do not all resume from the same offsets, those that resumed
     * are rebuilt with the others.
     *
     * @return per partition, the offset to consume from
     */
    Map<Integer, Long> start(
            String topic, Map<Integer, Long> beginning, Map<Integer, Long> end, long retentionMillis, String topicId) {
        Set<Map<Integer, Long>> froms = new HashSet<>();
        for (NamespaceIngest ingest : of(topic)) {
            froms.add(ingest.start(beginning, end, retentionMillis, topicId));
        }
        if (froms.size() == 1) {
            return froms.iterator().next();
        }
        List<String> building = of(topic).stream()
                .filter(s -> !s.isLive())
                .map(s -> s.binding().namespace())
                .toList();
        // None building: all could resume, but from different offsets (seeded from snapshots taken apart). One
        // consumer position per partition cannot serve both, and replaying from the lowest would show readers of the
        // others older values for a while: all are rebuilt.
        String why = building.isEmpty()
                ? "topic '" + topic + "' feeds namespaces "
                        + of(topic).stream().map(s -> s.binding().namespace()).toList()
                        + " whose published offsets differ (snapshots taken at different moments?), and "
                        + "one consumer reads the topic for all: all are read again from its beginning (take the "
                        + "snapshots of one topic's namespaces together to resume them)"
                : "topic '" + topic + "' is read from its beginning for namespace(s) " + building
                        + " of the same topic, which cannot resume";
        for (NamespaceIngest ingest : of(topic)) {
            if (ingest.isLive()) {
                log.info("Namespace '{}': {}", ingest.binding().namespace(), why);
                ingest.rebuild(why, beginning, end, topicId, -1);
            }
        }
        return beginning;
    }

    /** Rebuilds every namespace of the topic from the beginning (see {@link NamespaceIngest#rebuild}). */
    void rebuild(
            String topic,
            String why,
            Map<Integer, Long> beginning,
            Map<Integer, Long> end,
            String topicId,
            long retentionMillis) {
        of(topic).forEach(s -> s.rebuild(why, beginning, end, topicId, retentionMillis));
    }

    /**
     * After a poll batch: each namespace finishes sampling, publishes or grows ({@link NamespaceIngest#afterBatch}).
     * One that cannot take records stalls its topic; one that needs a rebuild has the topic rebuilt, which starts
     * its other namespaces over too.
     */
    void afterBatch(
            Predicate<String> caughtUp,
            Positions positions,
            BatchApplier.Stall stall,
            BiConsumer<String, String> rebuild) {
        byTopic.forEach((topic, namespaces) -> {
            for (NamespaceIngest ingest : namespaces) {
                Applied outcome = ingest.afterBatch(caughtUp.test(topic), positions);
                if (outcome instanceof Applied.Stalled stalled) {
                    stall.stall(topic, stalled.reason(), stalled.retryMillis());
                } else if (outcome instanceof Applied.RebuildNeeded needed) {
                    rebuild.accept(topic, needed.reason());
                    break; // every namespace of the topic starts over
                }
            }
        });
    }
}
