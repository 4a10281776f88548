package io.sharedlookup.bench;

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
 * Issue item 7: Druid's real query engine over a real memory-mapped segment of {@code rows} rows whose {@code user_id}
 * takes {@code ids} distinct values of the shape {@code keyShape} ({@link KeyShapes}: {@code numeric7}, {@code ascii20}
 * or {@code uuid}), resolved through the {@code users} lookup, with {@code sharedLookup} and with Druid's built-in
 * {@code MapLookupExtractor} over the same data ({@link DruidQuerySetup}): a groupBy and a topN on the looked-up name,
 * and a timeseries filtered on one looked-up name, which {@code sharedLookup} answers from the writer's reverse index
 * or, without one, by a scan. Every query's answer is checked once against the map lookup's before measuring.
 *
 * <p>Each benchmark runs in a fork of its own, minutes apart from its peer: on a shared machine that spreads the
 * figures more than the ratios being judged. {@code bench/run} therefore measures these queries with
 * {@link DruidQueryPairs} (the peers alternated in one JVM); this class stays for anyone who wants JMH's figures.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xmx2g",
            "-Dchronicle.analytics.disable=true",
            "-Duser.timezone=UTC",
            "-Dfile.encoding=UTF-8",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
        })
@State(Scope.Benchmark)
public class DruidQueryBenchmark {
    @Param({"1000000"})
    public int rows;

    @Param({"100000"})
    public int ids;

    /** The ids' shape ({@link KeyShapes}): {@code numeric7}, {@code ascii20} or {@code uuid}. */
    @Param({"numeric7"})
    public String keyShape;

    private final SplittableRandom random = new SplittableRandom(11);
    private DruidQuerySetup setup;

    @Setup(Level.Trial)
    public void load() throws Exception {
        setup = new DruidQuerySetup(rows, ids, KeyShapes.of(keyShape));
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        setup.close();
    }

    @Benchmark
    public List<Object> groupByMapLookup() {
        return setup.groupBy(setup.mapLookup);
    }

    @Benchmark
    public List<Object> groupBySharedLookup() {
        return setup.groupBy(setup.sharedLookup);
    }

    @Benchmark
    public List<Object> topNMapLookup() {
        return setup.topN(setup.mapLookup);
    }

    @Benchmark
    public List<Object> topNSharedLookup() {
        return setup.topN(setup.sharedLookup);
    }

    @Benchmark
    public List<Object> filterMapLookup() {
        return setup.filter(setup.mapLookup, setup.randomName(random));
    }

    @Benchmark
    public List<Object> filterSharedLookupReverseIndex() {
        return setup.filter(setup.sharedLookup, setup.randomName(random));
    }

    @Benchmark
    public List<Object> filterSharedLookupScan() {
        return setup.filter(setup.sharedLookupWithoutReverseIndex, setup.randomName(random));
    }
}
