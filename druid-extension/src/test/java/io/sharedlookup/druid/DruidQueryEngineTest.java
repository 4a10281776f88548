package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.TestStores;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.druid.data.input.InputRow;
import org.apache.druid.data.input.MapBasedInputRow;
import org.apache.druid.java.util.common.DateTimes;
import org.apache.druid.java.util.common.Intervals;
import org.apache.druid.java.util.common.granularity.Granularities;
import org.apache.druid.math.expr.ExprMacroTable;
import org.apache.druid.query.Druids;
import org.apache.druid.query.Query;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.aggregation.LongSumAggregatorFactory;
import org.apache.druid.query.dimension.DefaultDimensionSpec;
import org.apache.druid.query.dimension.ExtractionDimensionSpec;
import org.apache.druid.query.dimension.LookupDimensionSpec;
import org.apache.druid.query.expression.LookupExprMacro;
import org.apache.druid.query.filter.EqualityFilter;
import org.apache.druid.query.filter.InDimFilter;
import org.apache.druid.query.filter.SelectorDimFilter;
import org.apache.druid.query.groupby.GroupByQuery;
import org.apache.druid.query.lookup.LookupExtractionFn;
import org.apache.druid.query.lookup.LookupExtractor;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;
import org.apache.druid.query.lookup.MapLookupExtractorFactory;
import org.apache.druid.query.lookup.RegisteredLookupExtractionFn;
import org.apache.druid.query.spec.MultipleIntervalSegmentSpec;
import org.apache.druid.query.spec.QuerySegmentSpec;
import org.apache.druid.query.topn.TopNQueryBuilder;
import org.apache.druid.segment.QueryableIndex;
import org.apache.druid.segment.column.ColumnType;
import org.apache.druid.segment.virtual.ExpressionVirtualColumn;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Druid's real query engine over a real segment: every query that uses the {@code users} lookup gives the same
 * results with {@code sharedLookup} as with Druid's built-in map lookup over the same data.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DruidQueryEngineTest {
    private static final String DATASOURCE = "events";
    private static final List<String> DIMENSIONS = List.of("user_id", "country");
    private static final String[] NAMES = {"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace"};
    private static final QuerySegmentSpec INTERVAL =
            new MultipleIntervalSegmentSpec(List.of(Intervals.of("2024-01-01/2024-01-08")));

    @TempDir
    static Path tmp;

    private SegmentQueries queries;
    private Map<String, String> users;
    private TestStores.Published published;
    private SharedLookupExtractorFactory shared;

    @BeforeAll
    void setUp() throws Exception {
        users = users(0);
        Path store = tmp.resolve("store");
        java.nio.file.Files.createDirectories(store);
        published = TestStores.publish(store, "users", users);
        shared = new SharedLookupExtractorFactory(
                "users",
                store.toString(),
                false,
                new SharedLookupConfig(
                        store.toString(), 10_000, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0));
        assertThat(shared.start()).isTrue();
        shared.awaitInitialization();

        queries = SegmentQueries.over(tmp.resolve("segment").toFile(), DATASOURCE, DIMENSIONS, rows());
    }

    @AfterAll
    void tearDown() throws Exception {
        shared.close();
        published.close();
        queries.close();
    }

    /** A memory-mapped segment of {@link #rows()}: dimensions user_id and country, metrics rows and amount. */
    static QueryableIndex buildIndex(java.io.File dir) {
        return SegmentQueries.buildIndex(dir, DIMENSIONS, rows());
    }

    /** ids 1..80 map to 7 names (many ids per name); ids 81..100 are absent; id 13 maps to "" (a value, not null). */
    static Map<String, String> users(int rotation) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int id = 1; id <= 80; id++) {
            map.put(Integer.toString(id), NAMES[(id + rotation) % NAMES.length]);
        }
        map.put("13", "");
        return map;
    }

    static List<InputRow> rows() {
        List<InputRow> rows = new ArrayList<>();
        String[] countries = {"DE", "FR", "US"};
        for (int i = 0; i < 1000; i++) {
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("user_id", Integer.toString(1 + (i * 7) % 100));
            event.put("country", countries[i % countries.length]);
            event.put("amount", (long) (i % 17));
            long time = DateTimes.of("2024-01-01").getMillis() + (i % 7) * 86_400_000L + i;
            rows.add(new MapBasedInputRow(time, List.of("user_id", "country"), event));
        }
        // A row without a user id.
        rows.add(new MapBasedInputRow(
                DateTimes.of("2024-01-02").getMillis(),
                List.of("user_id", "country"),
                Map.of("country", "DE", "amount", 5L)));
        return rows;
    }

    private static LookupExtractorFactoryContainerProvider mapProvider(Map<String, String> content) {
        return new MapLookupProvider(Map.of("users", new MapLookupExtractorFactory(content, false)));
    }

    private LookupExtractorFactoryContainerProvider sharedProvider() {
        return new MapLookupProvider(Map.of("users", shared));
    }

    private static ExprMacroTable macros(LookupExtractorFactoryContainerProvider lookups) {
        return new ExprMacroTable(List.of(new LookupExprMacro(lookups)));
    }

    private static RegisteredLookupExtractionFn lookupFn(
            LookupExtractorFactoryContainerProvider lookups, boolean retainMissing, boolean optimize) {
        return new RegisteredLookupExtractionFn(lookups, "users", retainMissing, null, null, optimize);
    }

    // ---- the queries, each a function of the lookups they resolve through ----

    private static GroupByQuery groupByLookupDimension(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(INTERVAL)
                .setGranularity(Granularities.ALL)
                .setDimensions(
                        new LookupDimensionSpec("user_id", "name", null, false, null, "users", null, lookups),
                        new DefaultDimensionSpec("country", "country"))
                .setAggregatorSpecs(
                        new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private static GroupByQuery groupByExtractionFnFilteredOnName(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(INTERVAL)
                .setGranularity(Granularities.DAY)
                .setDimensions(new ExtractionDimensionSpec("user_id", "name", lookupFn(lookups, true, false)))
                .setDimFilter(new SelectorDimFilter("user_id", "Carol", lookupFn(lookups, false, true)))
                .setAggregatorSpecs(
                        new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private static GroupByQuery groupByExpression(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(INTERVAL)
                .setGranularity(Granularities.ALL)
                .setVirtualColumns(new ExpressionVirtualColumn(
                        "v", "lookup(\"user_id\", 'users')", ColumnType.STRING, macros(lookups)))
                .setDimensions(new DefaultDimensionSpec("v", "name"))
                .setAggregatorSpecs(new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private static Query<?> topN(LookupExtractorFactoryContainerProvider lookups) {
        return new TopNQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.ALL)
                .dimension(new LookupDimensionSpec("user_id", "name", null, true, null, "users", null, lookups))
                .metric("amount")
                .threshold(4)
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private static Query<?> timeseriesFilteredOnNames(LookupExtractorFactoryContainerProvider lookups) {
        return Druids.newTimeseriesQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.DAY)
                .filters(new InDimFilter("user_id", List.of("Alice", "Bob", ""), lookupFn(lookups, false, true)))
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    /**
     * An optimised {@link LookupExtractionFn} in a filter is what Druid rewrites into a filter on the keys through
     * {@code unapplyAll} ({@code InDimFilter.optimizeLookup}); a registered-lookup function is not rewritten in Druid
     * 33 and applies the lookup to every dictionary value instead (the queries above).
     */
    private static Query<?> timeseriesFilteredThroughUnapplyAll(LookupExtractorFactoryContainerProvider lookups) {
        LookupExtractor lookup =
                lookups.get("users").orElseThrow().getLookupExtractorFactory().get();
        return Druids.newTimeseriesQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .granularity(Granularities.DAY)
                .filters(new InDimFilter(
                        "user_id",
                        List.of("Carol", "Erin", ""),
                        new LookupExtractionFn(lookup, false, null, null, true)))
                .aggregators(new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    private static Query<?> scanFilteredOnExpression(LookupExtractorFactoryContainerProvider lookups) {
        return Druids.newScanQueryBuilder()
                .dataSource(DATASOURCE)
                .intervals(INTERVAL)
                .virtualColumns(new ExpressionVirtualColumn(
                        "name", "lookup(\"user_id\", 'users')", ColumnType.STRING, macros(lookups)))
                .columns("__time", "user_id", "name", "amount")
                .filters(new EqualityFilter("name", ColumnType.STRING, "Dave", null))
                .build();
    }

    // ---- running them ----

    private List<Object> run(Query<?> query) {
        return queries.run(query);
    }

    private void assertSameAsMapLookup(Function<LookupExtractorFactoryContainerProvider, Query<?>> query) {
        List<Object> expected = run(query.apply(mapProvider(users)));
        List<Object> actual = run(query.apply(sharedProvider()));
        assertThat(expected).isNotEmpty();
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void groupByWithLookupDimensionSpec() {
        assertSameAsMapLookup(DruidQueryEngineTest::groupByLookupDimension);
        assertThat(run(groupByLookupDimension(sharedProvider())).toString()).contains("Alice", "Grace");
    }

    @Test
    void groupByWithRegisteredLookupExtractionFnAndFilterOnLookedUpValue() {
        assertSameAsMapLookup(DruidQueryEngineTest::groupByExtractionFnFilteredOnName);
        assertThat(run(groupByExtractionFnFilteredOnName(sharedProvider())).toString())
                .contains("Carol")
                .doesNotContain("Alice");
    }

    @Test
    void groupByOnLookupExpression() {
        assertSameAsMapLookup(DruidQueryEngineTest::groupByExpression);
    }

    @Test
    void topNOnLookedUpDimension() {
        assertSameAsMapLookup(DruidQueryEngineTest::topN);
    }

    @Test
    void timeseriesFilteredOnLookedUpValues() {
        assertSameAsMapLookup(DruidQueryEngineTest::timeseriesFilteredOnNames);
    }

    @Test
    void timeseriesFilteredOnLookedUpValuesThroughUnapplyAll() {
        assertSameAsMapLookup(DruidQueryEngineTest::timeseriesFilteredThroughUnapplyAll);
        assertThat(shared.get().unapplyAll(java.util.Set.of("Carol")))
                .toIterable()
                .as("ids named Carol")
                .isNotEmpty();
    }

    @Test
    void scanWithLookupExpressionAndFilterOnIt() {
        assertSameAsMapLookup(DruidQueryEngineTest::scanFilteredOnExpression);
        assertThat(run(scanFilteredOnExpression(sharedProvider())).toString()).contains("Dave");
    }

    @Test
    void newGenerationPublishedWhileQueriesRun() throws Exception {
        byte[] keyBefore = shared.get().getCacheKey();
        byte[] fnKeyBefore = lookupFn(sharedProvider(), false, true).getCacheKey();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong queries = new AtomicLong();
        Thread load = new Thread(
                () -> {
                    while (!stop.get()) {
                        try {
                            run(groupByLookupDimension(sharedProvider()));
                            run(scanFilteredOnExpression(sharedProvider()));
                            queries.incrementAndGet();
                        } catch (Throwable t) {
                            failure.compareAndSet(null, t);
                            return;
                        }
                    }
                },
                "query-load");
        load.start();
        Map<String, String> next = users(3);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> queries.get() >= 2);
            published.republish(next);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(run(groupByLookupDimension(sharedProvider())))
                        .isEqualTo(run(groupByLookupDimension(mapProvider(next))));
            });
            long after = queries.get();
            await().atMost(Duration.ofSeconds(30)).until(() -> queries.get() >= after + 2);
        } finally {
            stop.set(true);
            load.join(30_000);
            users = next;
        }
        assertThat(failure.get()).isNull();
        for (Function<LookupExtractorFactoryContainerProvider, Query<?>> q :
                List.<Function<LookupExtractorFactoryContainerProvider, Query<?>>>of(
                        DruidQueryEngineTest::groupByExtractionFnFilteredOnName, DruidQueryEngineTest::topN,
                        DruidQueryEngineTest::timeseriesFilteredOnNames,
                                DruidQueryEngineTest::scanFilteredOnExpression)) {
            assertSameAsMapLookup(q);
        }
        assertThat(shared.get().getCacheKey()).isNotEqualTo(keyBefore);
        assertThat(lookupFn(sharedProvider(), false, true).getCacheKey()).isNotEqualTo(fnKeyBefore);
    }
}
