package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The scale part's lookups ({@link ScaleLookups}): reader-lib's {@code getInto} into a {@link ValueBuffer} and
 * {@code getAllInto} in batches of 8 (reported per key) on an existing store of {@link ScaleData} records ({@code
 * store}: the writer-filled one, or a comparison store), and a {@code ConcurrentHashMap<String,String>} of the same
 * {@code entries} records where the heap takes it. Same JVM settings at every size, as {@link LookupBenchmark}'s
 * ({@code -Xmx6g}); readers need none of Chronicle's flags.
 *
 * <p>Keys are drawn at random from a set created once per trial: every key when {@code entries} is at most
 * {@value #KEY_SAMPLE}, else {@value #KEY_SAMPLE} keys drawn uniformly from all (100M key strings would take ~6 GB of
 * heap). Either way the lookups touch more entries than any CPU cache or TLB covers, so a sample measures the same
 * random access as all keys.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xmx6g"})
@State(Scope.Benchmark)
public class ScaleLookupBenchmark {
    static final int KEY_SAMPLE = 10_000_000;
    static final int BATCH = 8;

    /** The store directory to read. */
    @Param("")
    public String store;

    /** The entries it holds: keys {@code 0 .. entries-1}. */
    @Param("0")
    public long entries;

    String[] keys;

    @Setup(Level.Trial)
    public void keys() {
        if (entries <= KEY_SAMPLE) {
            keys = new String[(int) entries];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = ScaleData.key(i);
            }
        } else {
            SplittableRandom random = new SplittableRandom(11);
            keys = new String[KEY_SAMPLE];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = ScaleData.key(random.nextLong(entries));
            }
        }
    }

    /** Per-thread state: a random key stream and reusable buffers. */
    @State(Scope.Thread)
    public static class Caller {
        final SplittableRandom random = new SplittableRandom(7);
        final ValueBuffer value = new ValueBuffer();
        final String[] batchKeys = new String[BATCH];
        final ValueBuffer[] batchValues = new ValueBuffer[BATCH];

        public Caller() {
            for (int i = 0; i < BATCH; i++) {
                batchValues[i] = new ValueBuffer();
            }
        }
    }

    /** The store opened through the public read API. */
    @State(Scope.Benchmark)
    public static class Store {
        SharedLookupStore store;
        Lookup lookup;

        @Setup(Level.Trial)
        public void open(ScaleLookupBenchmark bench) throws IOException {
            readOnce(Path.of(bench.store));
            store = SharedLookupStore.open(Path.of(bench.store));
            lookup = store.lookup(BootstrapFeed.TOPIC);
            String key = ScaleData.key(bench.entries - 1);
            if (!ScaleData.value(bench.entries - 1).equals(lookup.get(key))) {
                throw new IllegalStateException(
                        bench.store + " does not hold " + key + ": not a store of " + bench.entries + " scale records");
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            store.close();
        }

        /**
         * Reads every file of the store once, so that every size is measured from the page cache. Without it, the first
         * benchmark on a 100M store that the run's snapshot and seeded copy had pushed out of the cache spent its warm-up
         * and first iterations on reads from disk (10 ms per lookup falling to 1.1 µs): a figure of the disk, not of the
         * lookup.
         */
        private static void readOnce(Path dir) throws IOException {
            ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                        while (channel.read(chunk.clear()) > 0) {
                            // only the page cache's copy is wanted
                        }
                    }
                }
            }
        }
    }

    private String nextKey(Caller caller) {
        return keys[caller.random.nextInt(keys.length)];
    }

    @Benchmark
    public boolean getIntoValueBuffer(Caller caller, Store store) {
        return store.lookup.getInto(nextKey(caller), caller.value);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int getAllIntoBatchOf8(Caller caller, Store store) {
        for (int i = 0; i < BATCH; i++) {
            caller.batchKeys[i] = nextKey(caller);
        }
        return store.lookup.getAllInto(caller.batchKeys, caller.batchValues, BATCH);
    }

    /** A heap copy of the same records, built from separately created key strings (as from a topic). */
    @State(Scope.Benchmark)
    public static class HeapMap {
        Map<String, String> map;

        @Setup(Level.Trial)
        public void load(ScaleLookupBenchmark bench) {
            map = new ConcurrentHashMap<>((int) Math.min(Integer.MAX_VALUE / 2, bench.entries * 2));
            for (long i = 0; i < bench.entries; i++) {
                map.put(ScaleData.key(i), ScaleData.value(i));
            }
        }
    }

    @Benchmark
    public String concurrentHashMapGet(Caller caller, HeapMap heap) {
        return heap.map.get(nextKey(caller));
    }
}
