package io.sharedlookup.writer;

import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.NamespaceWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The writer's start before ingestion, as HTTP shows it: opening each namespace and, with {@code --seed}, copying and
 * checking its snapshot, which for a large store takes as long as copying and scanning gigabytes. HTTP listens before
 * this begins, so that a liveness probe meanwhile gets 200 ({@link #phase}, "seeding …") rather than no answer (a
 * probe that restarts the writer would make it seed again, for ever), and {@code /ready} 503 with the reason
 * ({@link #statuses}).
 */
final class Seeding {
    /** Seeds one namespace from a snapshot: the writer's own seeding, unless a test holds it up. */
    @FunctionalInterface
    interface Seeder {
        void seed(Path snapshot, NamespaceWriter writer, TopicBinding binding, Map<String, String> attributes);
    }

    private final List<TopicBinding> topics;
    /** What the start is doing now, for /health and /ready; null once ingestion has taken over. */
    private volatile String doing = "opening the store's namespaces";

    Seeding(List<TopicBinding> topics) {
        this.topics = List.copyOf(topics);
    }

    /** The start is seeding {@code namespace} from {@code snapshot}. */
    void seeding(String namespace, Path snapshot) {
        doing = "seeding namespace '" + namespace + "' from snapshot " + snapshot + " (copying and checking it)";
    }

    /** Ingestion has taken over: its statuses say the rest. */
    void done() {
        doing = null;
    }

    /** What the start is doing, while it is: {@code /health} answers 200 with it. */
    Optional<String> phase() {
        return Optional.ofNullable(doing);
    }

    /** Every namespace, not ready because of what the start is doing; empty once it is done. */
    Map<String, NamespaceStatus> statuses() {
        String why = doing;
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        if (why == null) {
            return out;
        }
        for (TopicBinding b : topics) {
            out.put(b.namespace(), new NamespaceStatus(b.namespace(), b.topic(), NamespaceStatus.State.STARTING, 0, 0,
                    0, 0, Map.of(), 0, null, false, "the writer is starting: " + why + "; readers keep what is "
                    + "published", Map.of(), null));
        }
        return out;
    }
}
