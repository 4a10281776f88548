package io.sharedlookup.bench;

import io.sharedlookup.druid.MapLookupProvider;
import io.sharedlookup.druid.SegmentQueries;
import io.sharedlookup.druid.SharedLookupConfig;
import io.sharedlookup.druid.SharedLookupExtractorFactory;
import io.sharedlookup.testing.TempTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.druid.data.input.InputRow;
import org.apache.druid.data.input.MapBasedInputRow;
import org.apache.druid.java.util.common.DateTimes;
import org.apache.druid.java.util.common.Intervals;
import org.apache.druid.java.util.common.granularity.Granularities;
import org.apache.druid.java.util.common.io.Closer;
import org.apache.druid.query.Druids;
import org.apache.druid.query.Query;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.aggregation.LongSumAggregatorFactory;
import org.apache.druid.query.dimension.LookupDimensionSpec;
import org.apache.druid.query.filter.SelectorDimFilter;
import org.apache.druid.query.groupby.GroupByQuery;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;
import org.apache.druid.query.lookup.MapLookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractionFn;
import org.apache.druid.query.lookup.LookupExtractor;
import org.apache.druid.query.spec.MultipleIntervalSegmentSpec;
import org.apache.druid.query.spec.QuerySegmentSpec;
import org.apache.druid.query.topn.TopNQueryBuilder;
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
 * {@code MapLookupExtractor} over the same data:
 * <ul>
 *   <li>a groupBy on the looked-up name ({@link LookupDimensionSpec}): one {@code apply} per distinct id per query;</li>
 *   <li>a topN of the 100 looked-up names with the largest sum of {@code amount}: {@code apply} per distinct id again,
 *       through Druid's topN engine;</li>
 *   <li>a timeseries filtered on one looked-up name ({@link SelectorDimFilter} with an optimised
 *       {@link LookupExtractionFn}): Druid turns it into a filter on the ids through {@code unapplyAll}, which
 *       {@code sharedLookup} answers from the writer's reverse index or, without one, by a scan.</li>
 * </ul>
 * Every query's answer is checked once against the map lookup's before measuring, so a fast wrong answer cannot
 * pass as a result.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {
        "-Xmx2g", "-Dchronicle.analytics.disable=true", "-Duser.timezone=UTC", "-Dfile.encoding=UTF-8",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"})
@State(Scope.Benchmark)
public class DruidQueryBenchmark {
    private static final String DATASOURCE = "events";
    private static final QuerySegmentSpec INTERVAL =
            new MultipleIntervalSegmentSpec(List.of(Intervals.of("2024-01-01/2024-01-02")));

    @Param({"1000000"})
    public int rows;

    @Param({"100000"})
    public int ids;

    /** The ids' shape ({@link KeyShapes}); {@code bench/run} measures {@code numeric7}, {@code ascii20} and {@code uuid}. */
    @Param({"numeric7"})
    public String keyShape;

    private final Closer closer = Closer.create();
    private final SplittableRandom random = new SplittableRandom(11);
    private Path dir;
    private SegmentQueries queries;
    private LookupExtractorFactoryContainerProvider mapLookup;
    private LookupExtractorFactoryContainerProvider sharedLookup;
    private LookupExtractorFactoryContainerProvider sharedLookupWithoutReverseIndex;
    private KeyShapes shape;

    @Setup(Level.Trial)
    public void load() throws Exception {
        dir = Files.createTempDirectory("druid-bench");
        shape = KeyShapes.of(keyShape);
        Map<String, String> users = new HashMap<>();
        for (int i = 0; i < ids; i++) {
            users.put(shape.key(i), BenchData.value(i));
        }
        mapLookup = provider(new MapLookupExtractorFactory(users, false));
        sharedLookup = provider(sharedFactory(dir.resolve("store"), true));
        sharedLookupWithoutReverseIndex = provider(sharedFactory(dir.resolve("store-scan"), false));

        queries = SegmentQueries.over(dir.resolve("segment").toFile(), DATASOURCE, List.of("user_id"), rows());
        closer.register(queries);

        checkSameAnswers();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        closer.close();
        TempTrees.delete(dir);
    }

    private SharedLookupExtractorFactory sharedFactory(Path store, boolean reverseIndex) throws IOException {
        Files.createDirectories(store);
        BenchData.writeStoreInOwnJvm(store, ids, reverseIndex, shape);
        SharedLookupExtractorFactory factory = new SharedLookupExtractorFactory(BenchData.NAMESPACE,
                store.toString(), false, new SharedLookupConfig(store.toString(), 10_000));
        if (!factory.start()) {
            throw new IllegalStateException("sharedLookup did not start on " + store);
        }
        closer.register(factory::close);
        return factory;
    }

    private static LookupExtractorFactoryContainerProvider provider(LookupExtractorFactory factory) {
        return new MapLookupProvider(Map.of(BenchData.NAMESPACE, factory));
    }

    /** {@code rows} rows spread evenly over the ids, plus 1% whose id is not in the lookup. */
    private Iterable<InputRow> rows() {
        long day = DateTimes.of("2024-01-01").getMillis();
        List<InputRow> list = new ArrayList<>(rows);
        SplittableRandom rows = new SplittableRandom(5);
        for (int i = 0; i < this.rows; i++) {
            String id = i % 100 == 99 ? "missing-" + (i % 1000) : shape.key(rows.nextInt(ids));
            list.add(new MapBasedInputRow(day + i % 86_400_000L, List.of("user_id"),
                    Map.of("user_id", id, "amount", (long) (i % 17))));
        }
        return list;
    }

    private static GroupByQuery groupByName(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(INTERVAL)
                .setGranularity(Granularities.ALL)
                .setDimensions(new LookupDimensionSpec("user_id", "name", null, false, null, BenchData.NAMESPACE, null,
                        lookups))
                .setAggregatorSpecs(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    /** The 100 looked-up names with the largest sum of {@code amount}. */
    private static Query<?> topNames(LookupExtractorFactoryContainerProvider lookups) {
        return new TopNQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.ALL)
                .dimension(new LookupDimensionSpec("user_id", "name", null, false, null, BenchData.NAMESPACE, null,
                        lookups))
                .metric("amount")
                .threshold(100)
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    /**
     * Rows whose id looks up to {@code name}. An optimised {@link LookupExtractionFn} is what Druid rewrites into a
     * filter on the ids through {@code unapplyAll} (its {@code InDimFilter.optimizeLookup}); a
     * {@code RegisteredLookupExtractionFn} is not rewritten in Druid 33 and applies the lookup to every id instead,
     * which is what {@link #groupByName} measures.
     */
    private static Query<?> rowsOfName(LookupExtractorFactoryContainerProvider lookups, String name) {
        LookupExtractor lookup = lookups.get(BenchData.NAMESPACE).orElseThrow().getLookupExtractorFactory().get();
        return Druids.newTimeseriesQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.ALL)
                .filters(new SelectorDimFilter("user_id", name, new LookupExtractionFn(lookup, false, null, null, true)))
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private List<Object> run(Query<?> query) {
        return queries.run(query);
    }

    private void checkSameAnswers() {
        List<Object> expected = run(groupByName(mapLookup));
        if (expected.size() < ids / 2 || !expected.equals(run(groupByName(sharedLookup)))) {
            throw new IllegalStateException("groupBy through sharedLookup differs from Druid's map lookup");
        }
        List<Object> top = run(topNames(mapLookup));
        if (top.isEmpty() || !top.equals(run(topNames(sharedLookup)))) {
            throw new IllegalStateException("topN through sharedLookup differs from Druid's map lookup");
        }
        String name = BenchData.value(ids / 3);
        List<Object> filtered = run(rowsOfName(mapLookup, name));
        if (filtered.isEmpty() || !filtered.equals(run(rowsOfName(sharedLookup, name)))
                || !filtered.equals(run(rowsOfName(sharedLookupWithoutReverseIndex, name)))) {
            throw new IllegalStateException("filter on a looked-up name through sharedLookup differs from Druid's");
        }
    }

    private String randomName() {
        return BenchData.value(random.nextInt(ids));
    }

    @Benchmark
    public List<Object> groupByMapLookup() {
        return run(groupByName(mapLookup));
    }

    @Benchmark
    public List<Object> groupBySharedLookup() {
        return run(groupByName(sharedLookup));
    }

    @Benchmark
    public List<Object> topNMapLookup() {
        return run(topNames(mapLookup));
    }

    @Benchmark
    public List<Object> topNSharedLookup() {
        return run(topNames(sharedLookup));
    }

    @Benchmark
    public List<Object> filterMapLookup() {
        return run(rowsOfName(mapLookup, randomName()));
    }

    @Benchmark
    public List<Object> filterSharedLookupReverseIndex() {
        return run(rowsOfName(sharedLookup, randomName()));
    }

    @Benchmark
    public List<Object> filterSharedLookupScan() {
        return run(rowsOfName(sharedLookupWithoutReverseIndex, randomName()));
    }
}
