package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TempTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
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
 * A reverse lookup (what Druid's {@code unapplyAll} does for a filter on a looked-up value): with the writer's reverse
 * index vs a scan of the namespace, on the same data.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xmx1g",
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
public class ReverseLookupBenchmark {
    @Param({"100000"})
    public int entries;

    @Param({"false", "true"})
    public boolean reverseIndex;

    private Path dir;
    private SharedLookupStore store;
    private Lookup lookup;
    private final SplittableRandom random = new SplittableRandom(3);

    @Setup(Level.Trial)
    public void load() throws Exception {
        dir = Files.createTempDirectory("reverse-bench");
        BenchData.writeStoreInOwnJvm(dir, entries, reverseIndex);
        store = SharedLookupStore.open(dir);
        lookup = store.lookup(BenchData.NAMESPACE);
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        store.close();
        TempTrees.delete(dir);
    }

    @Benchmark
    public List<String> keysOfValue() {
        List<String> keys = lookup.keysOf(BenchData.value(random.nextInt(entries)));
        if (keys.size() != 1) {
            throw new IllegalStateException("expected one key, got " + keys);
        }
        return keys;
    }
}
