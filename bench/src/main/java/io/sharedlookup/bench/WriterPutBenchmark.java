package io.sharedlookup.bench;

import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(WriterPutBenchmark.RECORDS)
@Fork(value = 1, jvmArgsAppend = {
        "-Xmx2g", "-Dchronicle.analytics.disable=true",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class WriterPutBenchmark {
    static final int RECORDS = 1_000_000;
    private static final long LOCK_NANOS = TimeUnit.SECONDS.toNanos(1);

    String[] keys;
    String[] values;
    Path dir;
    GenerationFile generation;
    /** With a reverse index (writer option {@code --reverse-index}): every put also updates value to keys. */
    GenerationFile indexed;
    ChronicleMap<CharSequence, CharSequence> chronicle;
    ConcurrentHashMap<String, String> heap;

    @Setup(Level.Trial)
    public void data() throws IOException {
        keys = new String[RECORDS];
        values = new String[RECORDS];
        for (int i = 0; i < RECORDS; i++) {
            keys[i] = BenchData.key(i);
            values[i] = BenchData.value(i);
        }
        dir = Files.createTempDirectory("put-bench");
    }

    @Setup(Level.Invocation)
    public void empty() throws IOException {
        GenerationSizing sizing = GenerationSizing.forExpected(RECORDS, 7, 14);
        generation = GenerationFile.create(dir.resolve("g0000000001.cmap"), sizing, StorePermissions.DEFAULT, false);
        indexed = GenerationFile.create(dir.resolve("g0000000002.cmap"), sizing, StorePermissions.DEFAULT, true);
        chronicle = ChronicleMapBuilder.of(CharSequence.class, CharSequence.class).entries(sizing.entries())
                .averageKeySize(sizing.averageKeyBytes()).averageValueSize(sizing.averageValueBytes())
                .maxBloatFactor(sizing.maxBloatFactor()).checksumEntries(false)
                .createPersistedTo(dir.resolve("raw.cmap").toFile());
        heap = new ConcurrentHashMap<>((int) sizing.entries());
    }

    @TearDown(Level.Invocation)
    public void drop() throws IOException {
        generation.close();
        indexed.close();
        chronicle.close();
        heap = null;
        LookupBenchmark.deleteTree(dir);
        Files.createDirectories(dir);
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        LookupBenchmark.deleteTree(dir);
    }

    @Benchmark
    public boolean generationFilePut() {
        boolean changed = false;
        for (int i = 0; i < RECORDS; i++) {
            changed |= generation.put(keys[i], values[i], LOCK_NANOS);
        }
        return changed;
    }

    @Benchmark
    public boolean generationFilePutReverseIndex() {
        boolean changed = false;
        for (int i = 0; i < RECORDS; i++) {
            changed |= indexed.put(keys[i], values[i], LOCK_NANOS);
        }
        return changed;
    }

    @Benchmark
    public int chronicleMapPut() {
        int previous = 0;
        for (int i = 0; i < RECORDS; i++) {
            previous += chronicle.put(keys[i], values[i]) == null ? 0 : 1;
        }
        return previous;
    }

    @Benchmark
    public int concurrentHashMapPut() {
        int previous = 0;
        for (int i = 0; i < RECORDS; i++) {
            previous += heap.put(keys[i], values[i]) == null ? 0 : 1;
        }
        return previous;
    }
}
