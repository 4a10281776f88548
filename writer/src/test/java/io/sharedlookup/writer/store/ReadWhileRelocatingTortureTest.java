package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.LookupBatch;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.Utf8Text;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer thread rewrites the same keys with values whose length changes on every write (so entries relocate to
 * other chunks and the hash lookup changes under the readers) and removes and re-adds some; reader threads look the
 * keys up without any lock the whole time, one key at a time and in batches. Every value a reader gets must be one
 * the writer wrote for that key, whole: never a mix of two writes, never another key's value.
 */
class ReadWhileRelocatingTortureTest {
    private static final int KEYS = 200;
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    /** The value of write number {@code n} of {@code key}: self-describing, so that a reader can check it whole. */
    static String value(String key, long n) {
        int length = (int) ((n * 7919) % 400);
        char fill = (char) ('a' + (n % 26));
        return key + "#" + n + "#" + String.valueOf(fill).repeat(length) + "#";
    }

    static boolean isAValueWrittenFor(String key, CharSequence value) {
        String v = value.toString();
        if (!v.startsWith(key + "#")) {
            return false;
        }
        int second = v.indexOf('#', key.length() + 1);
        if (second < 0) {
            return false;
        }
        long n;
        try {
            n = Long.parseLong(v.substring(key.length() + 1, second));
        } catch (NumberFormatException e) {
            return false;
        }
        return v.equals(value(key, n));
    }

    @Test
    void readersRacingRelocatingWritesSeeOnlyWholeValues() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (GenerationFile g =
                GenerationFile.create(file, new GenerationSizing(1024, 6, 60, 4.0), StorePermissions.DEFAULT)) {
            for (int k = 0; k < KEYS; k++) {
                g.put("key" + k, value("key" + k, 0), TIMEOUT);
            }
            MappedMap reader = MappedMap.open(file, SequenceFile.of(file), g.layout());
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            Map<String, AtomicLong> readsBy = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> bad = new ConcurrentLinkedQueue<>();
            List<Thread> threads = new ArrayList<>();
            threads.add(guarded("writer", bad, () -> {
                for (long n = 1; !stop.get(); n++) {
                    String key = "key" + (n % KEYS);
                    if (n % 13 == 0) {
                        g.remove(key, TIMEOUT);
                    }
                    g.put(key, value(key, n), TIMEOUT);
                    writes.incrementAndGet();
                }
            }));
            for (int t = 0; t < 2; t++) {
                int seed = t;
                AtomicLong reads = readsBy.computeIfAbsent("reader-" + t, name -> new AtomicLong());
                threads.add(guarded("reader-" + t, bad, () -> {
                    StringBuilder out = new StringBuilder();
                    for (int i = seed; !stop.get(); i++) {
                        String key = "key" + (i % KEYS);
                        int found = reader.getInto(key, out, TIMEOUT);
                        if (found == MappedMap.PRESENT && !isAValueWrittenFor(key, out)) {
                            bad.add(key + " -> " + out);
                        } else if (found == MappedMap.TIMED_OUT) {
                            bad.add(key + " timed out");
                        }
                        reads.incrementAndGet();
                    }
                }));
            }
            AtomicLong batchReads = readsBy.computeIfAbsent("batch-reader", name -> new AtomicLong());
            threads.add(guarded(
                    "batch-reader",
                    bad,
                    () -> { // all its keys' reads interleaved, each still whole
                        LookupBatch batch = new LookupBatch();
                        for (int i = 0; i < LookupBatch.SIZE; i++) {
                            batch.out[i] = new Utf8Text();
                        }
                        String[] keys = new String[LookupBatch.SIZE];
                        for (int i = 0; !stop.get(); i += LookupBatch.SIZE) {
                            for (int j = 0; j < keys.length; j++) {
                                keys[j] = "key" + ((i + j * 7) % KEYS);
                            }
                            int present = reader.getAllInto(keys, 0, keys.length, batch, TIMEOUT);
                            if (present == MappedMap.TIMED_OUT) {
                                bad.add("batch timed out");
                            }
                            for (int j = 0; j < keys.length && present >= 0; j++) {
                                if (batch.found[j] && !isAValueWrittenFor(keys[j], batch.out[j])) {
                                    bad.add("batch: " + keys[j] + " -> " + batch.out[j]);
                                } else if (!batch.found[j] && batch.out[j].length() != 0) {
                                    bad.add("batch: " + keys[j] + " absent but not cleared");
                                }
                            }
                            batchReads.addAndGet(keys.length);
                        }
                    }));
            threads.forEach(Thread::start);
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < until && bad.isEmpty()) {
                    // the scan also races with the writer: whole entries only, each key at most once
                    reader.forEachWhile(
                            (k, v) -> {
                                if (!isAValueWrittenFor(k, v)) {
                                    bad.add("scan: " + k + " -> " + v);
                                }
                                return true;
                            },
                            TIMEOUT);
                }
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(30));
                    assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
                }
            }
            assertThat(bad).isEmpty();
            assertThat(writes.get()).isGreaterThan(10_000);
            // each reader, not only all of them together: one that died early would have checked little
            readsBy.forEach((name, reads) ->
                    assertThat(reads.get()).as("reads by %s", name).isGreaterThan(1_000));
            for (int segment = 0; segment < g.layout().segments(); segment++) {
                assertThat(g.sequence(segment))
                        .as("segment %d's counter at rest", segment)
                        .isEven();
            }
        }
    }

    /** A thread whose failure, a torn read's exception included, is a finding rather than a silent death. */
    private static Thread guarded(String name, ConcurrentLinkedQueue<String> bad, Runnable body) {
        return new Thread(
                () -> {
                    try {
                        body.run();
                    } catch (Throwable t) {
                        bad.add(name + " failed: " + t);
                    }
                },
                name);
    }
}
