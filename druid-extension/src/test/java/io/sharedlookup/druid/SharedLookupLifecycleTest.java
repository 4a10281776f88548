package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import javax.ws.rs.core.Response;
import org.apache.druid.error.DruidException;
import org.apache.druid.query.extraction.MapLookupExtractor;
import org.apache.druid.query.lookup.LookupExtractor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Initialisation, the extractor's semantics next to Druid's MapLookupExtractor, introspection, store sharing. */
class SharedLookupLifecycleTest {
    @TempDir
    Path tmp;

    Path store;
    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void createStore() throws Exception {
        store = Files.createDirectories(tmp.resolve("store"));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        assertThat(SharedStores.openStores()).isZero();
    }

    private SharedLookupExtractorFactory factory(String namespace, long timeoutMillis) {
        SharedLookupExtractorFactory f = new SharedLookupExtractorFactory(
                namespace,
                null,
                false,
                new SharedLookupConfig(
                        store.toString(), timeoutMillis, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0));
        toClose.add(f::close);
        return f;
    }

    private TestStores.Published publish(String namespace, Map<String, String> content, boolean caughtUp)
            throws Exception {
        TestStores.Published p = TestStores.publish(store, namespace, content, caughtUp);
        toClose.add(p);
        return p;
    }

    @Test
    void startFailsUntilPublishedAndCaughtUpAndNeverServesEmpty() throws Exception {
        SharedLookupExtractorFactory f = factory("users", 200);
        assertThatThrownBy(f::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("sharedLookup 'users' not loaded on this node: No namespace 'users' in store "
                        + store + ": no writer has published it there yet (check the writer's --store-dir and --topic)")
                .hasMessageContaining("next lookup sync (druid.manager.lookups.period)")
                .hasMessageNotContaining("\n");
        assertThat(SharedStores.openStores())
                .as("a failed start keeps no store open")
                .isZero();
        assertThat(f.isInitialized()).isFalse();
        assertThatThrownBy(f::awaitInitialization)
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("not started on this node");
        assertThatThrownBy(() -> f.get().apply("1"))
                .isInstanceOf(DruidException.class)
                .hasMessageContaining("Lookup sharedLookup 'users' is not ready");

        TestStores.Published p = publish("users", Map.of("1", "one"), false);
        assertThatThrownBy(f::start)
                .as("published but still catching up")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("namespace 'users' in store " + store + " is published (generation ")
                .hasMessageContaining("but its writer has not caught up with the topic yet");
        assertThat(SharedStores.openStores()).isZero();
        assertThatThrownBy(() -> f.get().apply("1")).isInstanceOf(DruidException.class);

        p.update(Map.of("2", "two"), true);
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(IllegalStateException.class)
                .until(f::start);
        assertThat(f.isInitialized()).isTrue();
        f.awaitInitialization();
        assertThat(f.get().apply("1")).isEqualTo("one");
        assertThat(f.get().apply("2")).isEqualTo("two");

        // Initialised stays initialised: a writer that restarts and reports catching up again does not stop queries.
        p.update(Map.of("3", "three"), false);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> "three".equals(f.get().apply("3")));
        assertThat(f.isInitialized()).isTrue();
        assertThat(f.start()).as("started again while the writer catches up").isTrue();
    }

    /** Druid may start a lookup it holds again; that must never fail, whatever happened to the store since. */
    @Test
    void aStartedLookupStartsAgainAndServesWhileItsStoreIsGone() throws Exception {
        publish("users", Map.of("1", "one"), true);
        SharedLookupExtractorFactory f = factory("users", 10_000);
        assertThat(f.start()).isTrue();
        Path away = tmp.resolve("store-away");
        Files.move(store, away);
        try {
            assertThat(f.start()).isTrue();
            assertThat(f.isInitialized()).isTrue();
            assertThat(f.get().apply("1"))
                    .as("served from the generation already mapped")
                    .isEqualTo("one");
        } finally {
            Files.move(away, store);
        }
    }

    /** A writer killed mid-change leaves a segment that lookups time out on until its successor rebuilds. */
    @Test
    void start_withASegmentLeftInTheMiddleOfAChange_startsAndHoldsNothingAfterClose() throws Exception {
        TestStores.Published p = publish("users", Map.of("1", "one"), true);
        p.leaveEverySegmentMidChange();
        SharedLookupExtractorFactory f = factory("users", 10_000);
        assertThat(f.start()).isTrue();
        assertThat(f.isInitialized()).isTrue();
        f.close();
        assertThat(SharedStores.openStores()).isZero();
    }

    /** Without and with the writer's reverse index: reverse lookups must agree either way. */
    @ParameterizedTest(name = "reverse index: {0}")
    @ValueSource(booleans = {false, true})
    void behavesLikeDruidsMapLookupExtractor(boolean reverseIndex) throws Exception {
        Map<String, String> content = new LinkedHashMap<>();
        for (int i = 0; i < 500; i++) {
            content.put("k" + i, "v" + (i % 7)); // values shared by ~70 keys each: the index says "scan" for them
        }
        for (int i = 0; i < 50; i++) {
            content.put("u" + i, "unique " + (i % 25)); // two keys per value: served from the index
        }
        content.put("empty", "");
        content.put("", "the empty key"); // a key like any other in Druid 33 (SQL-compatible nulls only)
        String namespace = "codes" + reverseIndex;
        TestStores.Published p = TestStores.publish(store, namespace, content, true, reverseIndex);
        toClose.add(p);
        SharedLookupExtractorFactory f = factory(namespace, 10_000);
        f.start();
        f.awaitInitialization();
        LookupExtractor shared = f.get();
        MapLookupExtractor map = new MapLookupExtractor(content, false);

        for (String key : new String[] {"k1", "k499", "empty", "", "absent", null}) {
            assertThat(shared.apply(key)).as(key).isEqualTo(map.apply(key));
        }
        assertThat(shared.apply("")).isEqualTo("the empty key");
        assertThat(shared.applyAll(List.of("k1", "absent"))).isEqualTo(map.applyAll(List.of("k1", "absent")));
        List<String> many = new ArrayList<>(content.keySet()); // several batches, absent, empty and null keys
        many.addAll(List.of("absent", "", "k1"));
        many.add(null);
        assertThat(shared.applyAll(many))
                .isEqualTo(map.applyAll(many))
                .containsEntry("k42", "v0")
                .containsEntry("", "the empty key")
                .containsEntry("absent", null)
                .containsEntry(null, null)
                .hasSize(content.size() + 2);
        assertThat(shared.applyAll(null)).isEmpty();
        assertThat(f.get().getClass()).isEqualTo(SharedLookupExtractor.class);
        for (Set<String> values : List.<Set<String>>of(
                Set.of("v1"),
                Set.of("v2", "v3"),
                Set.of(""),
                Set.of("nothing"),
                Set.of(),
                Set.of("unique 3"),
                Set.of("unique 4", "v5", "nothing"))) {
            assertThat(toSet(shared.unapplyAll(values))).as(values.toString()).isEqualTo(toSet(map.unapplyAll(values)));
        }
        Set<String> withNull = new HashSet<>();
        withNull.add(null);
        withNull.add("v4");
        assertThat(toSet(shared.unapplyAll(withNull))).isEqualTo(toSet(map.unapplyAll(withNull)));

        assertThat(shared.supportsAsMap()).isTrue();
        Map<String, String> view = shared.asMap();
        assertThat(view).isEqualTo(content);
        assertThat(view.get("k3")).isEqualTo("v3");
        assertThat(view.containsKey("absent")).isFalse();
        assertThat(view.get("")).isEqualTo("the empty key");
        assertThat(view.containsKey("")).isTrue();
        assertThat(view.size()).isEqualTo(content.size());
        assertThatThrownBy(() -> view.put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(shared.estimateHeapFootprint()).isZero();
        assertThat(shared.isOneToOne()).isFalse();
    }

    /**
     * A reverse lookup stops at druid.sharedLookup.maxReverseLookupKeys and answers "cannot" (null), which Druid's
     * callers take as "leave the filter as it is": a value most keys share is never collected onto the heap whole.
     */
    @ParameterizedTest(name = "reverse index: {0}")
    @ValueSource(booleans = {false, true})
    void unapplyAll_pastItsBound_answersCannot(boolean reverseIndex) throws Exception {
        Map<String, String> content = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            content.put("k" + i, i < 200 ? "common" : "rare " + (i % 3)); // "rare n": 33 or 34 keys each
        }
        String namespace = "bounded" + reverseIndex;
        toClose.add(TestStores.publish(store, namespace, content, true, reverseIndex));
        SharedLookupExtractorFactory f = new SharedLookupExtractorFactory(
                namespace, null, false, new SharedLookupConfig(store.toString(), 10_000, 100, 0));
        toClose.add(f::close);
        f.start();
        LookupExtractor shared = f.get();
        assertThat(shared.unapplyAll(Set.of("common")))
                .as("200 keys, bound 100")
                .isNull();
        assertThat(shared.unapplyAll(Set.of("rare 0", "rare 1", "rare 2")))
                .as("100 keys: at the bound")
                .isNotNull()
                .toIterable()
                .hasSize(100);
        assertThat(shared.unapplyAll(Set.of("rare 0", "rare 1", "rare 2", "common")))
                .isNull();
        assertThat(toSet(shared.unapplyAll(Set.of("rare 1"))))
                .hasSize(33)
                .allMatch(k -> content.get(k).equals("rare 1"));
        Set<String> onlyNull = new HashSet<>();
        onlyNull.add(null);
        assertThat(shared.unapplyAll(onlyNull))
                .as("no key maps to null")
                .isNotNull()
                .isExhausted();
    }

    /** A reverse lookup that cannot be read (a segment left mid-change) answers "cannot", not a failed query. */
    @Test
    void unapplyAll_thatCannotRead_answersCannot() throws Exception {
        TestStores.Published p = publish("stuck", Map.of("1", "one", "2", "two"), true);
        SharedLookupExtractorFactory f = factory("stuck", 10_000);
        f.start();
        p.leaveEverySegmentMidChange(); // as a writer killed in the middle of a change leaves them
        assertThat(f.get().unapplyAll(Set.of("one"))).isNull();
    }

    private static Set<String> toSet(java.util.Iterator<String> it) {
        Set<String> out = new HashSet<>();
        it.forEachRemaining(out::add);
        return out;
    }

    @Test
    void cacheKeyFollowsContentVersion() throws Exception {
        TestStores.Published p = publish("users", Map.of("1", "one"), true);
        SharedLookupExtractorFactory f = factory("users", 10_000);
        f.start();
        f.awaitInitialization();
        byte[] first = f.get().getCacheKey();
        assertThat(f.get().getCacheKey()).as("stable while content is").isEqualTo(first);

        p.update(Map.of("1", "uno"), true);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !java.util.Arrays.equals(f.get().getCacheKey(), first));
        assertThat(f.get().apply("1")).isEqualTo("uno");
        byte[] second = f.get().getCacheKey();

        p.republish(Map.of("1", "eins"));
        await().atMost(Duration.ofSeconds(30)).until(() -> "eins".equals(f.get().apply("1")));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !java.util.Arrays.equals(f.get().getCacheKey(), second));

        // An update the writer applied but could not checkpoint (a full volume, or killed right after): the
        // manifest, and so version(), stays; the key must still move, or Druid's caches would serve "eins".
        byte[] third = f.get().getCacheKey();
        long version = f.lookupIfOpen().version();
        p.generation.put("1", "un", TestStores.TIMEOUT);
        await().atMost(Duration.ofSeconds(1))
                .until(() -> !java.util.Arrays.equals(f.get().getCacheKey(), third));
        assertThat(f.get().apply("1")).isEqualTo("un");
        assertThat(f.lookupIfOpen().version()).as("no checkpoint").isEqualTo(version);
        byte[] fourth = f.get().getCacheKey();
        assertThat(f.get().getCacheKey()).as("stable while content is").isEqualTo(fourth);

        SharedLookupExtractorFactory other = factory("others", 10_000);
        publish("others", Map.of("1", "eins"), true);
        other.start();
        other.awaitInitialization();
        assertThat(other.get().getCacheKey()).isNotEqualTo(f.get().getCacheKey());
    }

    @Test
    void oneStorePerDirectoryClosedWithTheLastLookup() throws Exception {
        publish("a", Map.of("1", "x"), true);
        publish("b", Map.of("1", "y"), true);
        SharedLookupExtractorFactory a = factory("a", 10_000);
        SharedLookupExtractorFactory b = factory("b", 10_000);
        a.start();
        b.start();
        a.start(); // starting twice is fine and takes no second reference
        assertThat(SharedStores.openStores()).isEqualTo(1);
        a.awaitInitialization();
        b.awaitInitialization();
        assertThat(a.get().apply("1")).isEqualTo("x");
        assertThat(b.get().apply("1")).isEqualTo("y");
        assertThat(a.close()).isTrue();
        assertThat(a.close()).isTrue();
        assertThat(SharedStores.openStores()).isEqualTo(1);
        assertThat(b.get().apply("1")).isEqualTo("y");
        assertThat(b.destroy()).isTrue();
        assertThat(SharedStores.openStores()).isZero();
        // Restartable.
        assertThat(b.start()).isTrue();
        b.awaitInitialization();
        assertThat(b.get().apply("1")).isEqualTo("y");
    }

    /**
     * A dropped lookup keeps serving the queries still running on it for {@code druid.sharedLookup.closeDelayMillis},
     * then lets its namespace go while the store stays open for the other lookups; a lookup over the same namespace
     * started within the delay keeps it. Before, a dropped lookup's namespace stayed open and followed until the last
     * lookup over the store directory was dropped (the files of a namespace the writer deleted held with it), and
     * that last drop failed the queries still running at once.
     */
    @Test
    void aDroppedLookupServesForTheCloseDelayThenLetsItsNamespaceGo() throws Exception {
        publish("a", Map.of("1", "x"), true);
        publish("b", Map.of("1", "y"), true);
        long delayMillis = 2_000; // the checks meant to land within it have that long, on a loaded machine too
        SharedLookupExtractorFactory a = closingAfter("a", delayMillis);
        SharedLookupExtractorFactory b = closingAfter("b", delayMillis);
        a.start();
        b.start();
        a.awaitInitialization();
        b.awaitInitialization();
        LookupExtractor dropped = a.get();
        assertThat(a.close()).isTrue();
        long closedAt = System.nanoTime();
        assertThat(dropped.apply("1"))
                .as("a query still running on the dropped lookup")
                .isEqualTo("x");
        await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> closed(dropped, "Namespace 'a' is closed"));
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isGreaterThan(Duration.ofMillis(delayMillis - 100));
        assertThat(b.get().apply("1"))
                .as("the store stays open for the other lookup")
                .isEqualTo("y");
        assertThat(SharedStores.openStores()).isEqualTo(1);

        // Dropped and started again within the delay, as when Druid replaces a lookup with one over the same
        // namespace: nothing is let go.
        LookupExtractor replaced = b.get();
        assertThat(b.close()).isTrue();
        SharedLookupExtractorFactory again = closingAfter("b", delayMillis);
        assertThat(again.start()).isTrue();
        await().during(Duration.ofMillis(delayMillis + 500))
                .atMost(Duration.ofMillis(3 * delayMillis))
                .until(() -> "y".equals(replaced.apply("1"))
                        && "y".equals(again.get().apply("1")));

        assertThat(again.close()).isTrue();
        assertThat(SharedStores.openStores()).as("closed only after the delay").isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> SharedStores.openStores() == 0);
        assertThat(closed(replaced, "Namespace 'b' is closed")).isTrue();
    }

    /**
     * A lookup over a dropped lookup's namespace whose start fails within the delay (the namespace not caught up, say)
     * gives the namespace back at once; that must not cut short the delay owed to the dropped lookup's queries.
     */
    @Test
    void aStartThatFailsWithinTheDelayKeepsTheNamespaceForTheDroppedLookup() throws Exception {
        publish("a", Map.of("1", "x"), true);
        publish("b", Map.of("1", "y"), true);
        long delayMillis = 2_000;
        SharedLookupExtractorFactory a = closingAfter("a", delayMillis);
        SharedLookupExtractorFactory b = closingAfter("b", delayMillis);
        assertThat(a.start()).isTrue();
        assertThat(b.start()).isTrue();
        LookupExtractor dropped = a.get();
        assertThat(dropped.apply("1")).isEqualTo("x");
        assertThat(a.close()).isTrue();
        long closedAt = System.nanoTime();

        // What SharedLookupExtractorFactory.start does with a start that fails after taking the store.
        SharedStores.acquire(store.toAbsolutePath().normalize(), "a");
        SharedStores.release(store.toAbsolutePath().normalize(), "a", 0);
        assertThat(dropped.apply("1")).as("still within the delay").isEqualTo("x");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> closed(dropped, "Namespace 'a' is closed"));
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isGreaterThan(Duration.ofMillis(delayMillis - 100));
        assertThat(b.close()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> SharedStores.openStores() == 0);
    }

    private SharedLookupExtractorFactory closingAfter(String namespace, long closeDelayMillis) {
        SharedLookupExtractorFactory f = new SharedLookupExtractorFactory(
                namespace,
                null,
                false,
                new SharedLookupConfig(
                        store.toString(),
                        10_000,
                        SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS,
                        closeDelayMillis));
        toClose.add(f::close);
        return f;
    }

    /** Whether {@code lookup} fails as one whose namespace was let go, with a message starting {@code message}. */
    private static boolean closed(LookupExtractor lookup, String message) {
        try {
            lookup.apply("1");
            return false;
        } catch (IllegalStateException e) {
            assertThat(e).hasMessageStartingWith(message);
            return true;
        }
    }

    @Test
    void equalSpecsDoNotReplaceEachOther() {
        SharedLookupExtractorFactory a = factory("users", 10_000);
        SharedLookupExtractorFactory same = factory("users", 10_000);
        SharedLookupExtractorFactory injective =
                new SharedLookupExtractorFactory("users", store.toString(), true, null);
        assertThat(a.replaces(same)).isFalse();
        assertThat(a.replaces(injective)).isTrue();
        assertThat(a.replaces(null)).isTrue();
    }

    @Test
    @SuppressWarnings("unchecked")
    void introspectionIsBounded() throws Exception {
        Map<String, String> content = new LinkedHashMap<>();
        for (int i = 0; i < 3000; i++) {
            content.put("k" + i, "v" + i);
        }
        SharedLookupExtractorFactory f = factory("big", 10_000);
        SharedLookupIntrospectHandler handler = (SharedLookupIntrospectHandler) f.getIntrospectHandler();
        assertThat(handler.getKeys(10).getStatus()).isEqualTo(Response.Status.SERVICE_UNAVAILABLE.getStatusCode());
        assertThat((Map<String, Object>) handler.getVersion().getEntity()).containsEntry("initialized", false);

        publish("big", content, true);
        assertThat(f.start()).isTrue();
        assertThat((List<String>) handler.getKeys(SharedLookupIntrospectHandler.DEFAULT_LIMIT)
                        .getEntity())
                .hasSize(SharedLookupIntrospectHandler.DEFAULT_LIMIT)
                .allMatch(content::containsKey);
        assertThat((List<String>) handler.getValues(5).getEntity()).hasSize(5).allMatch(v -> v.startsWith("v"));
        Map<String, String> map = (Map<String, String>) handler.getMap(100_000).getEntity();
        assertThat(map).isEqualTo(content);
        assertThat((Map<String, String>) handler.getMap(20).getEntity()).hasSize(20);
        Map<String, Object> version = (Map<String, Object>) handler.getVersion().getEntity();
        assertThat(version)
                .containsEntry("initialized", true)
                .containsEntry("size", 3000L)
                .containsEntry("namespace", "big")
                .containsKey("version");
        long expected = 0;
        for (Map.Entry<String, String> e : content.entrySet()) {
            expected += io.sharedlookup.internal.store.ContentDigest.of(e.getKey(), e.getValue());
        }
        assertThat(version)
                .as("the writer's digest of this content")
                .containsEntry("digest", io.sharedlookup.internal.store.ContentDigest.hex(expected));
    }
}
