package io.sharedlookup.bench;

import io.sharedlookup.internal.store.GenerationFile;
import io.sharedlookup.internal.store.GenerationSizing;
import io.sharedlookup.internal.store.NamespaceWriter;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.StorePermissions;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Lookup latency on the same data: reader-lib's {@code getInto} and {@code get} against a
 * {@code ConcurrentHashMap<String,String>}, what Druid's Kafka lookup keeps on every heap. Keys are drawn at random
 * from the loaded ids, so every call is a hit and caches see a realistic spread.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {
        "-Xmx4g", "-Dchronicle.analytics.disable=true",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class LookupBenchmark {
    @Param({"1000000"})
    public int entries;

    private Path dir;
    private NamespaceWriter writer;
    private SharedLookupStore store;
    private Lookup lookup;
    private Map<String, String> heapMap;
    private String[] keys;

    @Setup(Level.Trial)
    public void load() throws Exception {
        dir = Files.createTempDirectory("lookup-bench");
        writer = NamespaceWriter.open(new StoreLayout(dir), "users", StorePermissions.DEFAULT);
        GenerationFile generation = writer.createGeneration(GenerationSizing.forExpected(entries, 8, 16));
        heapMap = new ConcurrentHashMap<>(entries * 2);
        keys = new String[entries];
        for (int i = 0; i < entries; i++) {
            String key = Integer.toString(1_000_000 + i);
            String value = "User name " + i;
            keys[i] = key;
            heapMap.put(key, value);
            generation.put(key, value, TimeUnit.SECONDS.toNanos(1));
        }
        writer.publish(generation, "users", Map.of(), true, Map.of());
        generation.close();
        store = SharedLookupStore.open(dir);
        lookup = store.lookup("users");
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        store.close();
        writer.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Per-thread state: a random key stream and a reusable output buffer. */
    @State(Scope.Thread)
    public static class Caller {
        final SplittableRandom random = new SplittableRandom(7);
        final StringBuilder out = new StringBuilder(64);
    }

    private String nextKey(Caller caller) {
        return keys[caller.random.nextInt(keys.length)];
    }

    @Benchmark
    public boolean sharedLookupGetInto(Caller caller) {
        return lookup.getInto(nextKey(caller), caller.out);
    }

    @Benchmark
    public String sharedLookupGet(Caller caller) {
        return lookup.get(nextKey(caller));
    }

    @Benchmark
    public String concurrentHashMapGet(Caller caller) {
        return heapMap.get(nextKey(caller));
    }
}
