package io.sharedlookup.writer.ingest;

import io.sharedlookup.writer.namespace.Applied;
import io.sharedlookup.writer.namespace.NamespaceIngest;
import io.sharedlookup.writer.namespace.ParallelFill;
import io.sharedlookup.writer.store.GenerationUnusableException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a poll batch's records into generations that no reader maps yet (a first build, a rebuild) with several
 * threads, before {@link BatchApplier} counts them: the generation's segments are split into one range per applier
 * (the ingest thread is one of them), and the ingest thread decodes each record and hands it to the applier of its
 * key's segment, so every key's records are put by one thread in their order,
 * and the latest offset wins as with one thread. The pass ends when every applier is done; only then does anything
 * count a record as applied (positions, lag, the offsets a publish records), and only the records the pass reports
 * {@link #APPLIED}.
 *
 * <p>A record an applier cannot put (no room left, an entry too large, a full disk, a lock held) is reported
 * {@link #FAILED}, and that applier puts none of its later records of the same partition: the ingest thread applies
 * the failed record and every later one not put through {@link NamespaceIngest#apply}, one by one, which grows, skips,
 * stalls or rebuilds exactly as without appliers. Since each applier stops at its first failure in a partition, the
 * records of a key that were put are always the first ones of that key: none is put after an older one it follows.
 *
 * <p>When the ingest thread then stops counting inside the batch (a stall or a rebuild that cannot start), the
 * consumer is sent back there and the later records the appliers did put are read again: they are remembered here
 * ({@link #keepAhead}) and counted, not put again, when read again, so that an older value is never put over a newer
 * one (nor a bad record counted twice). A rebuild of the topic forgets them ({@link #forget}): its new generation holds
 * none of them.
 */
final class ParallelApplier {
    private static final Logger log = LoggerFactory.getLogger(ParallelApplier.class);
    static final byte NOT_DONE = 0;
    static final byte APPLIED = 1;
    static final byte SKIPPED = 2;
    static final byte FAILED = 3;
    /** The put found the generation unusable: the ingest thread rebuilds the namespace here ({@link Part#unusable}). */
    static final byte UNUSABLE = 4;

    /** Decodes a record for a namespace on the ingest thread: {key, value (null removes)}, or null when skipped. */
    @FunctionalInterface
    interface Decoder {
        String[] decode(NamespaceIngest ingest, ConsumerRecord<byte[], byte[]> record);
    }

    /** What a pass did with one partition's records of the batch, by index in the batch. */
    static final class Part {
        private final int number;
        private final ParallelFill fill;
        private final byte[] states;
        private final String[][] decoded;
        /** Tombstones this pass removed (not those of an earlier one): counted by the ingest thread once. */
        private int removalsPut;

        private Part(int number, ParallelFill fill, int records) {
            this.number = number;
            this.fill = fill;
            this.states = new byte[records];
            this.decoded = new String[records][];
        }

        /** {@link #APPLIED}, {@link #SKIPPED} (counted as such while decoding), or not put yet. */
        byte state(int index) {
            return states[index];
        }

        /** Whether this pass put any of the records (not those put by an earlier one). */
        private boolean putAny() {
            for (int i = 0; i < states.length; i++) {
                if (states[i] == APPLIED && decoded[i] != null) {
                    return true;
                }
            }
            return false;
        }

        /**
         * What the ingest thread acts on at a record of this part not put, when an applier found the generation
         * unusable ({@link ParallelFill#poison}), as the one-by-one path does; null when it did not.
         */
        Applied.RebuildNeeded unusable() {
            return fill.rebuildNeeded();
        }

        /**
         * How many tombstones the appliers of this pass removed: each is counted here only, since it is put once (read
         * again after a stall, it is taken as {@link #APPLIED} from {@link #keepAhead}, not removed again).
         */
        int removalsPut() {
            return removalsPut;
        }

        /** The record decoded for its namespace: {key, value}. */
        String[] decoded(int index) {
            return decoded[index];
        }
    }

    /** One record for one applier. */
    private record Task(Part part, int index) {}

    private final int threads;
    /** threads - 1 appliers besides the ingest thread, made when first needed and ended when idle. */
    private final ThreadPoolExecutor pool;
    /**
     * Per partition, the records a pass put ({@link #APPLIED}) or skipped as bad ({@link #SKIPPED}, counted and logged
     * once) beyond where the count stopped: taken as such, neither put nor decoded again, when read again.
     */
    private final Map<TopicPartition, Map<Long, Byte>> ahead = new HashMap<>();

    ParallelApplier(int threads) {
        this.threads = threads;
        if (threads <= 1) {
            pool = null;
            return;
        }
        AtomicInteger made = new AtomicInteger();
        pool = new ThreadPoolExecutor(
                threads - 1, threads - 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "shared-lookup-applier-" + made.incrementAndGet());
                    t.setDaemon(true); // idle between passes; never holds the JVM up at exit
                    return t;
                });
        pool.allowCoreThreadTimeOut(true); // a writer whose namespaces are all published keeps no idle threads
    }

    /**
     * Puts the records of every partition whose topic feeds one namespace that can take them in parallel now
     * ({@link NamespaceIngest#parallelFill}); decodes them with {@code decoder} on this thread first.
     *
     * @param onlyNamespaceOf a topic's namespace when it feeds exactly one, else null
     * @return per partition covered, what was done with each record; empty with one thread
     */
    Map<TopicPartition, Part> run(
            ConsumerRecords<byte[], byte[]> records,
            Function<String, NamespaceIngest> onlyNamespaceOf,
            Decoder decoder) {
        if (pool == null || records.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, Part> parts = new HashMap<>();
        Map<NamespaceIngest, ParallelFill> fills = new IdentityHashMap<>();
        List<List<Task>> shares = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            shares.add(new ArrayList<>());
        }
        Map<NamespaceIngest, Integer> counts = new IdentityHashMap<>(); // each namespace's records in the batch
        for (TopicPartition tp : records.partitions()) {
            NamespaceIngest ingest = onlyNamespaceOf.apply(tp.topic());
            if (ingest != null) {
                counts.merge(ingest, records.records(tp).size(), Integer::sum);
            }
        }
        try {
            for (TopicPartition tp : records.partitions()) {
                NamespaceIngest ingest = onlyNamespaceOf.apply(tp.topic());
                if (ingest == null) {
                    continue;
                }
                if (!fills.containsKey(ingest)) {
                    fills.put(ingest, ingest.parallelFill(counts.get(ingest)));
                }
                ParallelFill fill = fills.get(ingest);
                if (fill == null) {
                    continue;
                }
                List<ConsumerRecord<byte[], byte[]>> list = records.records(tp);
                Part part = new Part(parts.size(), fill, list.size());
                parts.put(tp, part);
                for (int i = 0; i < list.size(); i++) {
                    ConsumerRecord<byte[], byte[]> r = list.get(i);
                    byte earlier = takeAhead(tp, r.offset());
                    if (earlier != NOT_DONE) {
                        part.states[i] = earlier; // done by an earlier pass, read again after a stall before it
                        continue;
                    }
                    String[] kv = decoder.decode(ingest, r);
                    if (kv == null) {
                        part.states[i] = SKIPPED;
                        continue;
                    }
                    part.decoded[i] = kv;
                    shares.get(shareOf(fill, fill.plan(kv[0], kv[1]))).add(new Task(part, i));
                }
            }
            // A namespace whose puts could race over tiers is left to the ingest thread: its records not put, in order.
            Set<ParallelFill> closed = Collections.newSetFromMap(new IdentityHashMap<>());
            fills.values().stream().filter(f -> f != null && !f.open()).forEach(closed::add);
            if (!closed.isEmpty()) {
                shares.forEach(share -> share.removeIf(task -> closed.contains(task.part().fill)));
            }
            if (shares.stream().anyMatch(share -> !share.isEmpty())) {
                runShares(shares, parts.size());
            }
        } finally {
            // Before anything else puts (the ingest thread, next): one put at a time again.
            fills.forEach((ingest, fill) -> {
                if (fill != null) {
                    fill.passOver(parts.values().stream().anyMatch(p -> p.fill == fill && p.putAny()));
                }
            });
        }
        for (Part part : parts.values()) {
            for (int i = 0; i < part.states.length; i++) {
                if (part.states[i] == APPLIED && part.decoded[i] != null) {
                    part.fill.counted(part.decoded[i][0], part.decoded[i][1]);
                    if (part.decoded[i][1] == null) {
                        part.removalsPut++;
                    }
                }
            }
        }
        return parts;
    }

    /**
     * Which applier takes a key of {@code segment}: the one whose range of the generation's segments holds it, so
     * every record of a key goes to the same applier, and no two appliers contend for a segment's lock.
     */
    private int shareOf(ParallelFill fill, int segment) {
        return (int) ((long) segment * threads / fill.segments());
    }

    /** Runs the first share on this thread, the others on the pool, and returns once every one is done. */
    private void runShares(List<List<Task>> shares, int partCount) {
        List<Future<?>> running = new ArrayList<>();
        for (int t = 1; t < threads; t++) {
            List<Task> share = shares.get(t);
            if (!share.isEmpty()) {
                running.add(pool.submit(() -> applyShare(share, partCount)));
            }
        }
        Throwable failure = null;
        try {
            applyShare(shares.get(0), partCount);
        } catch (RuntimeException | Error e) {
            failure = e;
        }
        // Every applier is waited for, whatever happened: nothing may put into a generation once this returns (a stop
        // closes and deletes it next).
        boolean interrupted = false;
        for (Future<?> f : running) {
            while (true) {
                try {
                    f.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    failure = failure != null ? failure : e.getCause();
                    break;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure instanceof Error e) {
            throw e; // the JVM is in trouble (a fault in a mapped file): the ingest thread fails, the next start
            // rebuilds
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        }
    }

    /** Puts one applier's records in order; after a failure in a partition, none of its later ones. */
    private static void applyShare(List<Task> share, int partCount) {
        boolean[] stopped = new boolean[partCount];
        for (Task task : share) {
            Part part = task.part();
            if (stopped[part.number]) {
                continue;
            }
            if (part.fill.poisoned()) {
                stopped[part.number] = true; // another applier found the generation unusable: nothing more goes in
                continue;
            }
            String[] kv = part.decoded[task.index()];
            try {
                part.fill.apply(kv[0], kv[1]);
                part.states[task.index()] = APPLIED;
            } catch (GenerationUnusableException e) {
                // Never put into it again, not even by the ingest thread (a copy to grow would lose entries, a write
                // past a refused extension faults): the namespace is rebuilt from its topic.
                part.fill.poison(e);
                part.states[task.index()] = UNUSABLE;
                stopped[part.number] = true;
                log.warn(
                        "An applier found the generation being built unusable; the namespace is rebuilt: {}",
                        e.getMessage());
            } catch (RuntimeException e) {
                // Left to the ingest thread, which meets the same refusal and deals with it (see the class comment).
                part.states[task.index()] = FAILED;
                stopped[part.number] = true;
                log.debug("An applier could not put a record; the ingest thread applies it: {}", e.toString());
            }
        }
    }

    /**
     * The count of {@code tp} stopped before record {@code from} of {@code list} and the consumer goes back there:
     * the later records {@code part} put or skipped are remembered, to be counted as such when read again.
     */
    void keepAhead(TopicPartition tp, Part part, int from, List<ConsumerRecord<byte[], byte[]>> list) {
        if (part == null) {
            return;
        }
        for (int i = from; i < list.size(); i++) {
            byte state = part.states[i];
            // A skipped record of an earlier pass (decoded null) stays skipped; one put by an earlier pass too.
            if (state == APPLIED || state == SKIPPED) {
                ahead.computeIfAbsent(tp, k -> new HashMap<>()).put(list.get(i).offset(), state);
            }
        }
    }

    /**
     * What an earlier pass did with the record at {@code offset} of {@code tp} beyond a stall ({@link #APPLIED} or
     * {@link #SKIPPED}), forgotten once asked; {@link #NOT_DONE} when nothing.
     */
    byte takeAhead(TopicPartition tp, long offset) {
        if (ahead.isEmpty()) {
            return NOT_DONE;
        }
        Map<Long, Byte> done = ahead.get(tp);
        Byte state = done == null ? null : done.remove(offset);
        if (done != null && done.isEmpty()) {
            ahead.remove(tp);
        }
        return state == null ? NOT_DONE : state;
    }

    /** The topic is rebuilt: its new generation holds nothing done ahead, so every record is applied again. */
    void forget(String topic) {
        ahead.keySet().removeIf(tp -> tp.topic().equals(topic));
    }

    /**
     * Ends the appliers now, when the writer stops: a stopped writer keeps no threads (they would otherwise idle for
     * their keep-alive, and a JVM that starts and stops writers, as tests and embedders do, would collect them). A
     * pass never runs at this point: passes run on the ingest thread, which is the one closing.
     */
    void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
