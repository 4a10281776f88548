package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.inject.Module;
import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.druid.data.input.InputRow;
import org.apache.druid.initialization.DruidModule;
import org.apache.druid.java.util.common.Intervals;
import org.apache.druid.java.util.common.io.Closer;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainer;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;
import org.apache.druid.query.lookup.MapLookupExtractorFactory;
import org.apache.druid.segment.QueryableIndex;
import org.apache.druid.server.SpecificSegmentsQuerySegmentWalker;
import org.apache.druid.server.security.AuthConfig;
import org.apache.druid.sql.DirectStatement;
import org.apache.druid.sql.SqlQueryPlus;
import org.apache.druid.sql.SqlStatementFactory;
import org.apache.druid.sql.calcite.SqlTestFrameworkConfig;
import org.apache.druid.sql.calcite.TempDirProducer;
import org.apache.druid.sql.calcite.planner.PlannerConfig;
import org.apache.druid.sql.calcite.planner.PlannerFactory;
import org.apache.druid.sql.calcite.util.CacheTestHelperModule;
import org.apache.druid.sql.calcite.util.CalciteTests;
import org.apache.druid.sql.calcite.util.DruidModuleCollection;
import org.apache.druid.sql.calcite.util.SqlTestFramework;
import org.apache.druid.sql.calcite.view.ViewManager;
import org.apache.druid.timeline.DataSegment;
import org.apache.druid.timeline.partition.LinearShardSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL {@code LOOKUP(user_id, 'users')} planned by druid-sql's real planner (Calcite, Druid's rules, reverse-lookup
 * rewrite of filters on looked-up values) and run by Druid's real query engine over a real segment, with the
 * {@code users} lookup resolving through {@link SharedLookupExtractorFactory} over a store written here. Every
 * statement gives the same rows as the same SQL with {@code users} registered as Druid's built-in map lookup over the
 * same data; the grouped totals also equal the ones computed here from the rows.
 *
 * <p>Built with the default (Druid 33.0.0) build only: druid-sql 37 is not on Maven Central, so {@code -Pdruid37}
 * leaves this class out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DruidSqlLookupTest {
    private static final String DATASOURCE = "events";

    @TempDir
    static Path tmp;

    private final Closer closer = Closer.create();
    private final SwitchableLookups lookups = new SwitchableLookups();
    private Map<String, String> users;
    private SharedLookupExtractorFactory shared;
    private SqlTestFramework framework;
    private SqlStatementFactory statements;

    @BeforeAll
    void setUp() throws Exception {
        users = DruidQueryEngineTest.users(0);
        Path store = Files.createDirectories(tmp.resolve("store"));
        TestStores.Published published = TestStores.publish(store, "users", users);
        closer.register(published::close);
        shared = new SharedLookupExtractorFactory(
                "users",
                store.toString(),
                false,
                new SharedLookupConfig(
                        store.toString(), 10_000, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0));
        assertThat(shared.start()).isTrue();
        closer.register(shared::close);
        shared.awaitInitialization();

        QueryableIndex index =
                DruidQueryEngineTest.buildIndex(tmp.resolve("segment").toFile());
        closer.register(index);
        // The framework's temporary directories; closed (deleted) by the framework too, and here if building it fails.
        TempDirProducer tempDirs = closer.register(new TempDirProducer("druid-sql-lookup"));
        framework = new SqlTestFramework.Builder(new EventsComponentSupplier(tempDirs, index, lookups))
                .withConfig(new SqlTestFrameworkConfig(Map.of()))
                .mergeBufferCount(2)
                // No result cache: every statement runs the query (as BaseCalciteQueryTest does by default).
                .withOverrideModule(CacheTestHelperModule.ResultCacheMode.DISABLED.makeModule())
                .build();
        closer.register(framework::close);
        statements = framework
                .plannerFixture(PlannerConfig.builder().build(), new AuthConfig())
                .statementFactory();
    }

    @AfterAll
    void tearDown() throws Exception {
        closer.close();
    }

    /**
     * Druid's standard SQL test components with one datasource, {@code events} (the segment built from
     * {@link DruidQueryEngineTest#rows()}), and the lookups of {@link SwitchableLookups} in place of the test
     * framework's own ({@code lookyloo} ...): the planner's LOOKUP operator, the {@code lookup()} expression macro,
     * lookup joins and the {@code lookup} schema all take them from there, as a Druid broker takes them from its
     * LookupReferencesManager.
     */
    static final class EventsComponentSupplier extends SqlTestFramework.StandardComponentSupplier {
        private final QueryableIndex index;
        private final LookupExtractorFactoryContainerProvider lookups;

        EventsComponentSupplier(
                TempDirProducer tempDirs, QueryableIndex index, LookupExtractorFactoryContainerProvider lookups) {
            super(tempDirs);
            this.index = index;
            this.lookups = lookups;
        }

        @Override
        protected SqlTestFramework.PlannerComponentSupplier buildPlannerComponentSupplier() {
            return new SqlTestFramework.StandardPlannerComponentSupplier() {
                @Override
                public void populateViews(ViewManager viewManager, PlannerFactory plannerFactory) {
                    // The standard views read the framework's test datasources, which are not loaded here.
                }
            };
        }

        @Override
        public SpecificSegmentsQuerySegmentWalker addSegmentsToWalker(SpecificSegmentsQuerySegmentWalker walker) {
            DataSegment segment = DataSegment.builder()
                    .dataSource(DATASOURCE)
                    .interval(Intervals.of("2024-01-01/2024-01-08"))
                    .version("1")
                    .shardSpec(new LinearShardSpec(0))
                    .size(0)
                    .build();
            return walker.add(segment, index);
        }

        @Override
        public DruidModule getOverrideModule() {
            Module lookupBinding = binder ->
                    binder.bind(LookupExtractorFactoryContainerProvider.class).toInstance(lookups);
            return DruidModuleCollection.of(super.getOverrideModule(), lookupBinding);
        }
    }

    /** The registered lookups, replaceable between statements: the shared-store lookup or Druid's map lookup. */
    static final class SwitchableLookups implements LookupExtractorFactoryContainerProvider {
        private volatile Map<String, LookupExtractorFactoryContainer> current = Map.of();

        void register(String name, LookupExtractorFactory factory) {
            current = Map.of(name, new LookupExtractorFactoryContainer("v1", factory));
        }

        @Override
        public Set<String> getAllLookupNames() {
            return current.keySet();
        }

        @Override
        public Optional<LookupExtractorFactoryContainer> get(String lookupName) {
            return Optional.ofNullable(current.get(lookupName));
        }

        @Override
        public String getCanonicalLookupName(String lookupName) {
            return lookupName;
        }
    }

    // ---- running SQL ----

    private List<List<Object>> sql(String sql) {
        SqlQueryPlus query = SqlQueryPlus.builder(sql)
                .auth(CalciteTests.SUPER_USER_AUTH_RESULT)
                .build();
        try (DirectStatement statement = statements.directStatement(query)) {
            List<List<Object>> rows = new ArrayList<>();
            statement.execute().getResults().forEach(row -> rows.add(Arrays.asList(row)));
            return rows;
        }
    }

    private List<List<Object>> withSharedLookup(String sql) {
        lookups.register("users", shared);
        return sql(sql);
    }

    private List<List<Object>> withMapLookup(String sql) {
        lookups.register("users", new MapLookupExtractorFactory(users, false));
        return sql(sql);
    }

    /** The statement's rows through the shared-store lookup, after checking they equal the map lookup's. */
    private List<List<Object>> assertSameAsMapLookup(String sql) {
        List<List<Object>> expected = withMapLookup(sql);
        List<List<Object>> actual = withSharedLookup(sql);
        assertThat(expected).as(sql).isNotEmpty();
        assertThat(actual).as(sql).isEqualTo(expected);
        return actual;
    }

    /** name (null for ids without a value and rows without an id) to [rows, sum(amount)], from the data itself. */
    private Map<String, List<Long>> totalsByName() {
        Map<String, List<Long>> totals = new HashMap<>();
        for (InputRow row : DruidQueryEngineTest.rows()) {
            List<String> ids = row.getDimension("user_id");
            String name = ids.isEmpty() ? null : users.get(ids.get(0));
            long amount = row.getMetric("amount").longValue();
            totals.merge(name, List.of(1L, amount), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
        }
        return totals;
    }

    private static Map<String, List<Long>> byFirstColumn(List<List<Object>> rows) {
        Map<String, List<Long>> map = new HashMap<>();
        for (List<Object> row : rows) {
            map.put((String) row.get(0), List.of(((Number) row.get(1)).longValue(), ((Number) row.get(2)).longValue()));
        }
        return map;
    }

    // ---- the statements ----

    @Test
    void groupByLookedUpValue() {
        List<List<Object>> rows =
                assertSameAsMapLookup("SELECT LOOKUP(user_id, 'users') AS name, COUNT(*) AS cnt, SUM(amount) AS total\n"
                        + "FROM events GROUP BY 1 ORDER BY 1");
        assertThat(byFirstColumn(rows)).isEqualTo(totalsByName());
        assertThat(rows).extracting(row -> row.get(0)).contains("Alice", "Grace", "", null);
    }

    @Test
    void whereOnLookedUpValue() {
        List<List<Object>> rows =
                assertSameAsMapLookup("SELECT country, COUNT(*) AS cnt, SUM(amount) AS total FROM events\n"
                        + "WHERE LOOKUP(user_id, 'users') = 'Carol' GROUP BY country ORDER BY country");
        long carolRows = rows.stream()
                .mapToLong(row -> ((Number) row.get(1)).longValue())
                .sum();
        assertThat(carolRows).isEqualTo(totalsByName().get("Carol").get(0));
    }

    @Test
    void whereInLookedUpValuesGroupedByThem() {
        List<List<Object>> rows = assertSameAsMapLookup(
                "SELECT LOOKUP(user_id, 'users') AS name, COUNT(*) AS cnt, SUM(amount) AS total FROM events\n"
                        + "WHERE LOOKUP(user_id, 'users') IN ('Alice', 'Bob', '') GROUP BY 1 ORDER BY 1");
        Map<String, List<Long>> expected = new HashMap<>(totalsByName());
        expected.keySet()
                .removeIf(name -> name == null || !Set.of("Alice", "Bob", "").contains(name));
        assertThat(byFirstColumn(rows)).isEqualTo(expected);
    }

    @Test
    void whereLookedUpValueIsNotOneOf() {
        assertSameAsMapLookup("SELECT LOOKUP(user_id, 'users') AS name, COUNT(*) AS cnt FROM events\n"
                + "WHERE LOOKUP(user_id, 'users') <> 'Dave' AND LOOKUP(user_id, 'users') IS NOT NULL\n"
                + "GROUP BY 1 ORDER BY 1");
    }

    @Test
    void lookupWithReplacementForMissingValues() {
        List<List<Object>> rows = assertSameAsMapLookup(
                "SELECT LOOKUP(user_id, 'users', 'unknown') AS name, COUNT(*) AS cnt, SUM(amount) AS total\n"
                        + "FROM events GROUP BY 1 ORDER BY 1");
        assertThat(rows).extracting(row -> row.get(0)).contains("unknown").doesNotContainNull();
    }

    @Test
    void topNOnLookedUpValue() throws Exception {
        String sql = "SELECT LOOKUP(user_id, 'users') AS name, SUM(amount) AS total FROM events\n"
                + "GROUP BY 1 ORDER BY total DESC LIMIT 3";
        assertThat(assertSameAsMapLookup(sql)).hasSize(3);
        assertThat(nativeQuery(sql).get("queryType").asText()).isEqualTo("topN");
    }

    @Test
    void scanFilteredOnLookedUpValue() throws Exception {
        List<List<Object>> rows =
                assertSameAsMapLookup("SELECT __time, user_id, LOOKUP(user_id, 'users') AS name, amount FROM events\n"
                        + "WHERE LOOKUP(user_id, 'users') = 'Dave' ORDER BY __time LIMIT 50");
        assertThat(rows).hasSize(50).allSatisfy(row -> assertThat(row.get(2)).isEqualTo("Dave"));
        assertThat(nativeQuery("SELECT __time, user_id, LOOKUP(user_id, 'users') AS name, amount FROM events\n"
                                + "WHERE LOOKUP(user_id, 'users') = 'Dave' ORDER BY __time LIMIT 50")
                        .get("queryType")
                        .asText())
                .isEqualTo("scan");
    }

    /**
     * The planner reads the lookup itself: a filter on a looked-up value is rewritten, at planning time, into a
     * filter on the ids our {@code unapplyAll} returns; a GROUP BY on it becomes a registered-lookup extraction.
     */
    @Test
    void plannerRewritesFilterOnLookedUpValueThroughReverseLookup() throws Exception {
        lookups.register("users", shared);
        JsonNode filtered = nativeQuery(
                "SELECT country, COUNT(*) AS cnt FROM events WHERE LOOKUP(user_id, 'users') = 'Carol' GROUP BY 1");
        List<String> carolIds = users.entrySet().stream()
                .filter(e -> e.getValue().equals("Carol"))
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
        assertThat(carolIds).hasSizeGreaterThan(5);
        assertThat(filtered.at("/filter/column").asText()).isEqualTo("user_id");
        List<String> filterIds = new ArrayList<>();
        filtered.at("/filter/sortedValues").forEach(id -> filterIds.add(id.asText()));
        assertThat(filterIds).containsExactlyInAnyOrderElementsOf(carolIds);

        JsonNode grouped =
                nativeQuery("SELECT LOOKUP(user_id, 'users') AS name, COUNT(*) AS cnt FROM events GROUP BY 1");
        assertThat(grouped.at("/dimensions/0/extractionFn/type").asText()).isEqualTo("registeredLookup");
        assertThat(grouped.at("/dimensions/0/extractionFn/lookup").asText()).isEqualTo("users");
    }

    private JsonNode nativeQuery(String sql) throws Exception {
        List<List<Object>> plan = sql("EXPLAIN PLAN FOR " + sql);
        JsonNode queries =
                framework.queryJsonMapper().readTree((String) plan.get(0).get(0));
        assertThat(queries.size()).as("native queries for %s", sql).isEqualTo(1);
        return queries.get(0).get("query");
    }

    @Test
    void lookupTableAndLookupJoin() {
        assertSameAsMapLookup("SELECT v, COUNT(*) AS keys FROM lookup.users GROUP BY v ORDER BY v");
        assertSameAsMapLookup("SELECT u.v AS name, COUNT(*) AS cnt, SUM(e.amount) AS total\n"
                + "FROM events e INNER JOIN lookup.users u ON e.user_id = u.k GROUP BY 1 ORDER BY 1");
    }
}
