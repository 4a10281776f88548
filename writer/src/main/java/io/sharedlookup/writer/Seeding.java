package io.sharedlookup.writer;

import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The writer's start before ingestion, as HTTP shows it: opening each namespace and, with {@code --seed}, copying and
 * checking its snapshot, which for a large store takes as long as copying and scanning gigabytes; before that, checking
 * the store's layout and asking Kafka for the topics, which takes up to 10 s when no broker answers. HTTP listens
 * before all of this begins, so that a liveness probe meanwhile gets 200 ({@link #phase}, "seeding …") rather than no
 * answer (a probe that restarts the writer would make it seed again, for ever), and {@code /ready} 503 with the
 * reason ({@link #statuses}).
 */
final class Seeding {
    /** Seeds one namespace from a snapshot: the writer's own seeding, unless a test holds it up. */
    @FunctionalInterface
    interface Seeder {
        void seed(Path snapshot, NamespaceDirectory directory, TopicBinding binding, Map<String, String> attributes);
    }

    /** A step of the start: what it does, and since when (System.nanoTime) when the time spent is worth telling. */
    private record Step(String what, long sinceNanos, boolean timed) {
        String describe() {
            return timed
                    ? what + " since " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - sinceNanos) + " s"
                    : what;
        }
    }

    private final List<TopicBinding> topics;
    /** What the start is doing now, for /health and /ready; null once ingestion has taken over. */
    private volatile Step doing = new Step("opening the store's namespaces", 0, false);

    Seeding(List<TopicBinding> topics) {
        this.topics = List.copyOf(topics);
    }

    /** The start is checking that readers read this Chronicle Map's files (a second or two). */
    void checkingLayout() {
        doing = new Step("checking that readers read the files this Chronicle Map writes", 0, false);
    }

    /** The start is asking Kafka whether the topics exist, which takes up to 10 s when no broker answers. */
    void connecting(String bootstrapServers) {
        doing = new Step("connecting to Kafka at " + bootstrapServers, System.nanoTime(), true);
    }

    /** The start is seeding {@code namespace} from {@code snapshot}. */
    void seeding(String namespace, Path snapshot) {
        doing = new Step(
                "seeding namespace '" + namespace + "' from snapshot " + snapshot + " (copying and checking it)",
                0,
                false);
    }

    /** Ingestion has taken over: its statuses say the rest. */
    void done() {
        doing = null;
    }

    /** What the start is doing, while it is: {@code /health} answers 200 with it. */
    Optional<String> phase() {
        return Optional.ofNullable(doing).map(Step::describe);
    }

    /** Every namespace, not ready because of what the start is doing; empty once it is done. */
    Map<String, NamespaceStatus> statuses() {
        String why = phase().orElse(null);
        Map<String, NamespaceStatus> out = new LinkedHashMap<>();
        if (why == null) {
            return out;
        }
        for (TopicBinding b : topics) {
            out.put(
                    b.namespace(),
                    new NamespaceStatus(
                            b.namespace(),
                            b.topic(),
                            NamespaceStatus.State.STARTING,
                            0,
                            0,
                            0,
                            0,
                            Map.of(),
                            0,
                            null,
                            false,
                            "the writer is starting: " + why + "; readers keep what is " + "published",
                            Map.of(),
                            null));
        }
        return out;
    }
}
