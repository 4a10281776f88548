package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.liveness.WriterHeartbeat;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.druid.error.DruidException;
import org.apache.druid.jackson.DefaultObjectMapper;
import org.apache.druid.java.util.common.Intervals;
import org.apache.druid.java.util.common.granularity.Granularities;
import org.apache.druid.query.Query;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.dimension.LookupDimensionSpec;
import org.apache.druid.query.groupby.GroupByQuery;
import org.apache.druid.query.spec.MultipleIntervalSegmentSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code maxStaleness} through Druid's real query engine over a real segment, with a store made by the writer's own
 * classes and kept current by the writer's own heartbeat: queries run while the writer is current, fail with one line
 * saying how stale the content is once the writer has stopped for longer than the bound, and run again once it is
 * back; the lookup's introspection reports the same as JSON.
 */
class MaxStalenessQueryTest {
    private static final String MAX = "PT3S";

    @TempDir
    Path tmp;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final ObjectMapper json = new DefaultObjectMapper();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /**
     * A running writer as readers see it: its heartbeat moves and its checkpoints restamp the content as current (a
     * busy topic), its lag unknown.
     */
    private final class RunningWriter implements AutoCloseable {
        private final WriterHeartbeat heartbeat;
        private final ScheduledExecutorService checkpoints = Executors.newSingleThreadScheduledExecutor();

        /** A writer whose heartbeat moves, reporting {@code statuses}; nothing restamps the content (a quiet topic). */
        RunningWriter(
                Path store,
                TestStores.Published published,
                java.util.function.Supplier<Map<String, NamespaceStatus>> statuses)
                throws Exception {
            heartbeat =
                    WriterHeartbeat.start(new StoreLayout(store), List.of("users"), StorePermissions.DEFAULT, statuses);
        }

        RunningWriter(Path store, TestStores.Published published) throws Exception {
            this(store, published, Map::of);
            AtomicLong offset = new AtomicLong(100);
            checkpoints.scheduleWithFixedDelay(
                    () -> {
                        try {
                            published.writer.checkpoint(Map.of(0, offset.incrementAndGet()), true, true);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
        }

        /** Stops checkpointing and stops the heartbeat (a clean stop: the status file says stopped). */
        @Override
        public void close() throws Exception {
            checkpoints.shutdownNow();
            assertThat(checkpoints.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            heartbeat.close();
        }
    }

    @Test
    void queriesFailOnceTheWriterHasStoppedForLongerThanMaxStaleness_andRunAgainWhenItIsBack() throws Exception {
        Path store = Files.createDirectories(tmp.resolve("store"));
        Map<String, String> users = DruidQueryEngineTest.users(0);
        TestStores.Published published = TestStores.publish(store, "users", users);
        toClose.add(published);
        RunningWriter writer = new RunningWriter(store, published);
        toClose.add(writer); // closed below; again here if the test fails first
        SharedLookupExtractorFactory shared = new SharedLookupExtractorFactory(
                "users",
                store.toString(),
                false,
                MAX,
                new SharedLookupConfig(
                        store.toString(), 10_000, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0));
        assertThat(shared.start()).isTrue();
        toClose.add(shared::close);
        SegmentQueries queries = SegmentQueries.over(
                tmp.resolve("segment").toFile(), "events", List.of("user_id", "country"), DruidQueryEngineTest.rows());
        toClose.add(queries);
        MapLookupProvider lookups = new MapLookupProvider(Map.of("users", shared));
        List<Object> expected = queries.run(groupByName(new MapLookupProvider(
                Map.of("users", new org.apache.druid.query.lookup.MapLookupExtractorFactory(users, false)))));

        // A current writer: queries run for longer than the bound, since the content keeps being current.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4_000);
        int ran = 0;
        while (System.nanoTime() < until || ran < 3) {
            assertThat(queries.run(groupByName(lookups))).isEqualTo(expected);
            ran++;
        }
        JsonNode live = status(shared);
        assertThat(live.get("writerAlive").asBoolean()).as("%s", live).isTrue();
        assertThat(live.get("stale").asBoolean()).as("%s", live).isFalse();
        assertThat(live.get("maxStaleness").asText()).isEqualTo(MAX);

        writer.close();
        String[] failure = new String[1];
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    Throwable thrown =
                            org.assertj.core.api.Assertions.catchThrowable(() -> queries.run(groupByName(lookups)));
                    assertThat(thrown).as("a query after the writer stopped").isNotNull();
                    failure[0] = staleMessage(thrown);
                });
        assertThat(failure[0])
                .startsWith(
                        "sharedLookup 'users' is stale: its content was last known current with " + "the topic at 20")
                .contains(
                        " ago, over its maxStaleness PT3S; the writer's heartbeat was last seen at 20",
                        "(writer NOT_ALIVE, lag unknown)")
                .doesNotContain("\n");
        // Every way a query uses the lookup fails alike, reverse lookups included: no stale value is served.
        assertThatThrownBy(() -> shared.get().apply("1")).hasMessage(failure[0]);
        assertThatThrownBy(() -> shared.get().unapplyAll(Set.of("Alice"))).hasMessage(failure[0]);

        JsonNode stale = status(shared);
        assertThat(stale.get("namespace").asText()).isEqualTo("users");
        assertThat(stale.get("writerAlive").asBoolean()).as("%s", stale).isFalse();
        assertThat(stale.get("writer").asText()).isEqualTo("NOT_ALIVE");
        assertThat(stale.get("writerLastSeen").asText()).startsWith("20");
        assertThat(stale.get("currentAsOf").asText()).startsWith("20");
        assertThat(stale.get("contentAgeMillis").asLong()).isGreaterThan(3_000);
        assertThat(stale.get("lagRecords").isNull())
                .as("unknown lag is null: %s", stale)
                .isTrue();
        assertThat(stale.get("stale").asBoolean()).isTrue();
        assertThat(stale.get("maxStaleness").asText()).isEqualTo(MAX);
        SharedLookupIntrospectHandler handler = (SharedLookupIntrospectHandler) shared.getIntrospectHandler();
        JsonNode version =
                json.readTree(json.writeValueAsString(handler.getVersion().getEntity()));
        assertThat(version.get("freshness").get("writer").asText())
                .as("%s", version)
                .isEqualTo("NOT_ALIVE");
        assertThat(version.get("freshness").get("stale").asBoolean()).isTrue();

        toClose.add(new RunningWriter(store, published)); // a writer again, current again
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(DruidException.class) // still stale until the new stamp is read
                .untilAsserted(
                        () -> assertThat(queries.run(groupByName(lookups))).isEqualTo(expected));
        assertThat(status(shared).get("writerAlive").asBoolean()).isTrue();
    }

    /**
     * A quiet topic: the writer restamps the manifest only every 10 minutes, but its heartbeat carries the time its
     * positions were last current (moved on at every health check), so a healthy writer's quiet namespace is not
     * called stale; once it stops, the age grows from its last word.
     */
    @Test
    void aLiveWriterWithNoLagKeepsAQuietNamespaceCurrent() throws Exception {
        Path store = Files.createDirectories(tmp.resolve("store"));
        TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "one"));
        toClose.add(published);
        NamespaceStatus noLag = new NamespaceStatus(
                "users",
                "topic",
                NamespaceStatus.State.LIVE,
                1,
                1,
                16,
                0.1,
                Map.of(0, 0L),
                0,
                null,
                true,
                null,
                Map.of(0, 1L),
                null);
        RunningWriter writer = new RunningWriter(
                store, published, () -> Map.of("users", noLag.currentAsOf(System.currentTimeMillis())));
        toClose.add(writer);
        SharedLookupExtractorFactory shared =
                new SharedLookupExtractorFactory("users", store.toString(), false, "PT2S", config(store));
        assertThat(shared.start()).isTrue();
        toClose.add(shared::close);

        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_500);
        while (System.nanoTime() < until) {
            assertThat(shared.get().apply("1")).isEqualTo("one");
            Thread.onSpinWait();
        }
        JsonNode live = status(shared);
        assertThat(live.get("lagRecords").asLong()).as("%s", live).isZero();
        assertThat(live.get("contentAgeMillis").asLong()).as("%s", live).isLessThan(2_000);

        writer.close();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThatThrownBy(() -> shared.get().apply("1"))
                        .hasMessageContaining("is stale")
                        .hasMessageContaining("over its maxStaleness PT2S"));
    }

    /** Without maxStaleness a stopped writer's content is served as it is, as before. */
    @Test
    void withoutMaxStalenessAStoppedWritersContentIsServed() throws Exception {
        Path store = Files.createDirectories(tmp.resolve("store"));
        TestStores.Published published = TestStores.publish(store, "users", Map.of("1", "one"));
        toClose.add(published);
        SharedLookupExtractorFactory shared =
                new SharedLookupExtractorFactory("users", store.toString(), false, config(store));
        assertThat(shared.start()).isTrue();
        toClose.add(shared::close);
        JsonNode status = status(shared);
        assertThat(status.get("writer").asText())
                .as("no heartbeat ever: %s", status)
                .isEqualTo("UNKNOWN");
        assertThat(status.get("maxStaleness").isNull()).isTrue();
        assertThat(status.get("stale").asBoolean()).isFalse();
        assertThat(shared.get().apply("1")).isEqualTo("one");
    }

    /** The store is let go as soon as the lookup closes (closeDelayMillis 0): other test classes count open stores. */
    private static SharedLookupConfig config(Path store) {
        return new SharedLookupConfig(store.toString(), 10_000, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0);
    }

    private JsonNode status(SharedLookupExtractorFactory factory) throws Exception {
        SharedLookupIntrospectHandler handler = (SharedLookupIntrospectHandler) factory.getIntrospectHandler();
        javax.ws.rs.core.Response response = handler.getStatus();
        assertThat(response.getStatus()).isEqualTo(200);
        return json.readTree(json.writeValueAsString(response.getEntity()));
    }

    /** The stale lookup's message, wherever the query engine wrapped it. */
    private static String staleMessage(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().startsWith("sharedLookup 'users' is stale")) {
                return t.getMessage();
            }
        }
        throw new AssertionError("no staleness message in " + thrown, thrown);
    }

    private static Query<?> groupByName(MapLookupProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource("events")
                .setQuerySegmentSpec(new MultipleIntervalSegmentSpec(List.of(Intervals.of("2024-01-01/2024-01-08"))))
                .setGranularity(Granularities.ALL)
                .setDimensions(new LookupDimensionSpec("user_id", "name", null, false, null, "users", null, lookups))
                .setAggregatorSpecs(new CountAggregatorFactory("rows"))
                .build();
    }
}
