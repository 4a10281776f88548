package io.sharedlookup.bench;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The writer's floor during a bootstrap (benchmark 4b): filling an empty, correctly sized generation with
 * {@value #RECORDS} new keys, one thread, as the ingest thread does, through the writer's own
 * {@link GenerationFile#put} (segment sequence counters, content digest, bounded locks), through a bare
 * {@link ChronicleMap#put} on the same layout, and into a {@link ConcurrentHashMap} (what a heap lookup does). Keys and
 * values are created up front, so only the put is measured; each invocation starts from a new, empty map.
 *
 * <p>One more: the same puts split over two threads by segment (even segments on one, odd on the other), the shape
 * an applier per group of segments would have. Chronicle's segment locks allow it and every key stays on one thread;
 * it says how far writing from more than one thread can take a bootstrap on this machine's cores.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(WriterPutBenchmark.RECORDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xmx2g",
            "-Dchronicle.analytics.disable=true",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED"
        })
@State(Scope.Benchmark)
public class WriterPutBenchmark {
    static final int RECORDS = 1_000_000;
    private static final long LOCK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final GenerationSizing SIZING = GenerationSizing.forExpected(RECORDS, 7, 14);

    String[] keys;
    String[] values;
    /** Indexes of the keys in even and in odd segments of {@link #SIZING}'s layout, computed on first use. */
    int[][] bySegmentParity;

    ExecutorService second;

    @Setup(Level.Trial)
    public void data() {
        keys = new String[RECORDS];
        values = new String[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            keys[i] = BenchData.key(i);
            values[i] = BenchData.value(i);
        }
        second = Executors.newSingleThreadExecutor();
    }

    @TearDown(Level.Trial)
    public void stopSecondThread() {
        second.shutdownNow();
    }

    /** A new, empty generation per invocation (each benchmark has its own, so none pays for another's setup). */
    @State(Scope.Benchmark)
    public static class Generation {
        Path dir;
        GenerationFile file;

        GenerationFile create(boolean reverseIndex) throws IOException {
            dir = Files.createTempDirectory("put-bench");
            file = GenerationFile.create(
                    dir.resolve("g0000000001.cmap"), SIZING, StorePermissions.DEFAULT, reverseIndex);
            return file;
        }

        void delete() throws IOException {
            file.close();
            TempTrees.delete(dir);
        }
    }

    /** Without a reverse index. */
    public static class Plain extends Generation {
        @Setup(Level.Invocation)
        public void empty() throws IOException {
            create(false);
        }

        @TearDown(Level.Invocation)
        public void drop() throws IOException {
            delete();
        }
    }

    /** With a reverse index (writer option {@code --reverse-index}): every put also updates value to keys. */
    public static class Indexed extends Generation {
        @Setup(Level.Invocation)
        public void empty() throws IOException {
            create(true);
        }

        @TearDown(Level.Invocation)
        public void drop() throws IOException {
            delete();
        }
    }

    /** A bare Chronicle Map of the same layout, no sequence counters, digest or bounded locks. */
    @State(Scope.Benchmark)
    public static class Bare {
        Path dir;
        ChronicleMap<CharSequence, CharSequence> map;

        @Setup(Level.Invocation)
        public void empty() throws IOException {
            dir = Files.createTempDirectory("put-bench");
            map = ChronicleMapBuilder.of(CharSequence.class, CharSequence.class)
                    .entries(SIZING.entries())
                    .averageKeySize(SIZING.averageKeyBytes())
                    .averageValueSize(SIZING.averageValueBytes())
                    .maxBloatFactor(SIZING.maxBloatFactor())
                    .checksumEntries(false)
                    .createPersistedTo(dir.resolve("bare.cmap").toFile());
        }

        @TearDown(Level.Invocation)
        public void drop() throws IOException {
            map.close();
            TempTrees.delete(dir);
        }
    }

    /** What a heap lookup fills. */
    @State(Scope.Benchmark)
    public static class Heap {
        ConcurrentHashMap<String, String> map;

        @Setup(Level.Invocation)
        public void empty() {
            map = new ConcurrentHashMap<>((int) SIZING.entries());
        }
    }

    @Benchmark
    public boolean generationFilePut(Plain generation) {
        return putAll(generation.file);
    }

    @Benchmark
    public boolean generationFilePutReverseIndex(Indexed generation) {
        return putAll(generation.file);
    }

    @Benchmark
    public boolean generationFilePutTwoThreads(Plain generation) throws Exception {
        if (bySegmentParity == null) {
            bySegmentParity = splitBySegmentParity(generation.file.layout());
        }
        Future<Boolean> odd = second.submit(() -> putAll(generation.file, bySegmentParity[1]));
        return putAll(generation.file, bySegmentParity[0]) | odd.get();
    }

    private int[][] splitBySegmentParity(MapLayout layout) {
        LongHashFunction xx = LongHashFunction.xx_r39(); // Chronicle's key hash: the segment a put locks
        int[] even = new int[RECORDS];
        int[] odd = new int[RECORDS];
        int evens = 0;
        int odds = 0;
        for (int i = 0; i < RECORDS; i++) {
            int segment = layout.segmentOf(xx.hashBytes(keys[i].getBytes(StandardCharsets.UTF_8)));
            if ((segment & 1) == 0) {
                even[evens++] = i;
            } else {
                odd[odds++] = i;
            }
        }
        return new int[][] {Arrays.copyOf(even, evens), Arrays.copyOf(odd, odds)};
    }

    private boolean putAll(GenerationFile file, int[] indexes) {
        boolean changed = false;
        for (int i : indexes) {
            changed |= file.put(keys[i], values[i], LOCK_NANOS);
        }
        return changed;
    }

    private boolean putAll(GenerationFile file) {
        boolean changed = false;
        for (int i = 0; i < RECORDS; i++) {
            changed |= file.put(keys[i], values[i], LOCK_NANOS);
        }
        return changed;
    }

    @Benchmark
    public int chronicleMapPut(Bare bare) {
        int previous = 0;
        for (int i = 0; i < RECORDS; i++) {
            previous += bare.map.put(keys[i], values[i]) == null ? 0 : 1;
        }
        return previous;
    }

    @Benchmark
    public int concurrentHashMapPut(Heap heap) {
        int previous = 0;
        for (int i = 0; i < RECORDS; i++) {
            previous += heap.map.put(keys[i], values[i]) == null ? 0 : 1;
        }
        return previous;
    }
}
