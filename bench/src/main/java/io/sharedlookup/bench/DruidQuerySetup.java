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
import org.apache.druid.query.lookup.LookupExtractionFn;
import org.apache.druid.query.lookup.LookupExtractor;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;
import org.apache.druid.query.lookup.MapLookupExtractorFactory;
import org.apache.druid.query.spec.MultipleIntervalSegmentSpec;
import org.apache.druid.query.spec.QuerySegmentSpec;
import org.apache.druid.query.topn.TopNQueryBuilder;

/**
 * The Druid query set-up that {@link DruidQueryBenchmark} (JMH) and {@link DruidQueryPairs} (paired rounds in one JVM)
 * both measure: Druid's real query engine over a real memory-mapped segment of {@code rows} rows whose {@code user_id}
 * takes {@code ids} distinct values of one {@link KeyShapes} shape, resolved through the {@code users} lookup three
 * ways: Druid's built-in {@code MapLookupExtractor}, {@code sharedLookup} over a store the writer filled with its
 * reverse index, and {@code sharedLookup} over a store without one (its {@code unapplyAll} scans). The queries:
 * <ul>
 *   <li>{@link #groupBy}: a groupBy on the looked-up name ({@link LookupDimensionSpec}), one {@code apply} per
 *       distinct id per query;</li>
 *   <li>{@link #topN}: the 100 looked-up names with the largest sum of {@code amount}, {@code apply} per distinct id
 *       again, through Druid's topN engine;</li>
 *   <li>{@link #filter}: a timeseries filtered on one looked-up name, which Druid turns into a filter on the ids
 *       through {@code unapplyAll}.</li>
 * </ul>
 * Every query's answer is checked once against the map lookup's when the set-up is made, so a fast wrong answer
 * cannot pass as a result. Closing it deletes the segment and the stores.
 */
final class DruidQuerySetup implements AutoCloseable {
    private static final String DATASOURCE = "events";
    private static final QuerySegmentSpec INTERVAL =
            new MultipleIntervalSegmentSpec(List.of(Intervals.of("2024-01-01/2024-01-02")));

    private final int rows;
    private final int ids;
    private final KeyShapes shape;
    private final Closer closer = Closer.create();
    private final Path dir;
    private final SegmentQueries queries;
    /** Druid's built-in {@code MapLookupExtractor} over the same data. */
    final LookupExtractorFactoryContainerProvider mapLookup;
    /** {@code sharedLookup} over a store with the writer's reverse index. */
    final LookupExtractorFactoryContainerProvider sharedLookup;
    /** {@code sharedLookup} over a store without a reverse index: {@code unapplyAll} scans. */
    final LookupExtractorFactoryContainerProvider sharedLookupWithoutReverseIndex;

    /**
     * Writes the two stores (each in a JVM of its own, as the writer would), builds the segment and checks that every
     * query answers as the map lookup does.
     */
    DruidQuerySetup(int rows, int ids, KeyShapes shape) throws Exception {
        if (rows < 1 || ids < 2) {
            throw new IllegalArgumentException(
                    "rows must be at least 1 and ids at least 2 (got rows=" + rows + ", ids=" + ids + ")");
        }
        this.rows = rows;
        this.ids = ids;
        this.shape = shape;
        dir = Files.createTempDirectory("druid-bench");
        try {
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
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** A name that some ids look up to, drawn from {@code random}: what {@link #filter} asks for. */
    String randomName(SplittableRandom random) {
        return BenchData.value(random.nextInt(ids));
    }

    /** The groupBy on the looked-up name through {@code lookups}. */
    List<Object> groupBy(LookupExtractorFactoryContainerProvider lookups) {
        return queries.run(groupByName(lookups));
    }

    /** The topN of looked-up names through {@code lookups}. */
    List<Object> topN(LookupExtractorFactoryContainerProvider lookups) {
        return queries.run(topNames(lookups));
    }

    /** The rows whose id looks up to {@code name} through {@code lookups}. */
    List<Object> filter(LookupExtractorFactoryContainerProvider lookups, String name) {
        return queries.run(rowsOfName(lookups, name));
    }

    @Override
    public void close() throws IOException {
        try {
            closer.close();
        } finally {
            TempTrees.delete(dir);
        }
    }

    private SharedLookupExtractorFactory sharedFactory(Path store, boolean reverseIndex) throws IOException {
        Files.createDirectories(store);
        BenchData.writeStoreInOwnJvm(store, ids, reverseIndex, shape);
        SharedLookupExtractorFactory factory = new SharedLookupExtractorFactory(
                BenchData.NAMESPACE, store.toString(), false, new SharedLookupConfig(store.toString(), 10_000));
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
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < rows; i++) {
            String id = i % 100 == 99 ? "missing-" + (i % 1000) : shape.key(random.nextInt(ids));
            list.add(new MapBasedInputRow(
                    day + i % 86_400_000L, List.of("user_id"), Map.of("user_id", id, "amount", (long) (i % 17))));
        }
        return list;
    }

    private static GroupByQuery groupByName(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(INTERVAL)
                .setGranularity(Granularities.ALL)
                .setDimensions(new LookupDimensionSpec(
                        "user_id", "name", null, false, null, BenchData.NAMESPACE, null, lookups))
                .setAggregatorSpecs(
                        new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    /** The 100 looked-up names with the largest sum of {@code amount}. */
    private static Query<?> topNames(LookupExtractorFactoryContainerProvider lookups) {
        return new TopNQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.ALL)
                .dimension(new LookupDimensionSpec(
                        "user_id", "name", null, false, null, BenchData.NAMESPACE, null, lookups))
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
        LookupExtractor lookup = lookups.get(BenchData.NAMESPACE)
                .orElseThrow()
                .getLookupExtractorFactory()
                .get();
        return Druids.newTimeseriesQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.ALL)
                .filters(
                        new SelectorDimFilter("user_id", name, new LookupExtractionFn(lookup, false, null, null, true)))
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private void checkSameAnswers() {
        List<Object> expected = groupBy(mapLookup);
        if (expected.size() < ids / 2 || !expected.equals(groupBy(sharedLookup))) {
            throw new IllegalStateException("groupBy through sharedLookup differs from Druid's map lookup");
        }
        List<Object> top = topN(mapLookup);
        if (top.isEmpty() || !top.equals(topN(sharedLookup))) {
            throw new IllegalStateException("topN through sharedLookup differs from Druid's map lookup");
        }
        String name = BenchData.value(ids / 3);
        List<Object> filtered = filter(mapLookup, name);
        if (filtered.isEmpty()
                || !filtered.equals(filter(sharedLookup, name))
                || !filtered.equals(filter(sharedLookupWithoutReverseIndex, name))) {
            throw new IllegalStateException("filter on a looked-up name through sharedLookup differs from Druid's");
        }
    }
}
