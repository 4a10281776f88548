package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.net.HostAndPort;
import io.sharedlookup.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.druid.jackson.DefaultObjectMapper;
import org.apache.druid.java.util.emitter.EmittingLogger;
import org.apache.druid.java.util.emitter.service.AlertEvent;
import org.apache.druid.java.util.metrics.StubServiceEmitter;
import org.apache.druid.query.lookup.InProcessLookupNode;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainer;
import org.apache.druid.query.lookup.LookupsState;
import org.apache.druid.server.http.InProcessLookupStatus;
import org.apache.druid.server.lookup.cache.InProcessLookupCoordinator;
import org.apache.druid.server.lookup.cache.LookupExtractorFactoryMapContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Druid's lookup management makes of a {@code sharedLookup}, through Druid's own code: the node side is Druid's
 * {@code LookupReferencesManager} (what brokers, historicals and indexers run), the coordinator's side its decisions of
 * what to send a node and its {@code lookups/status} answer. Specs and states cross between them as JSON, as over
 * HTTP. A lookup counts as loaded on a node only once it serves; a lookup that serves keeps serving.
 */
class DruidLookupManagerTest {
    private static final String LOOKUP = "users";
    private static final HostAndPort NODE = HostAndPort.fromParts("historical", 8083);
    private static final TypeReference<LookupsState<LookupExtractorFactoryMapContainer>> WIRE_STATE =
            new TypeReference<>() {};

    @TempDir
    Path tmp;

    Path store;
    Path snapshots;
    ObjectMapper mapper;
    /** Where the node's alerts go (a node sends them to its emitter, e.g. the log or an alerting system). */
    StubServiceEmitter alerts;

    final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        alerts = new StubServiceEmitter();
        EmittingLogger.registerEmitter(alerts);
        store = Files.createDirectories(tmp.resolve("store"));
        snapshots = Files.createDirectories(tmp.resolve("lookup-snapshots"));
        mapper = new DefaultObjectMapper();
        mapper.registerModules(new SharedLookupDruidModule().getJacksonModules());
        mapper.setInjectableValues(new InjectableValues.Std()
                .addValue(
                        SharedLookupConfig.class,
                        new SharedLookupConfig(
                                store.toString(), 1_000, SharedLookupConfig.DEFAULT_MAX_REVERSE_LOOKUP_KEYS, 0)));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
        assertThat(SharedStores.openStores())
                .as("stores left open, e.g. by starts that failed")
                .isZero();
    }

    @Test
    void notLoadedWhileTheNamespaceIsUnpublishedThenLoadedAtTheSyncAfterPublication() throws Exception {
        InProcessLookupNode node = startNode();
        Coordinator coordinator = new Coordinator(node);
        coordinator.register(LOOKUP, "v1", Map.of("type", "sharedLookup", "namespace", "users"));

        coordinator.sync();
        coordinator.sync();
        assertNotLoaded(node, coordinator);
        assertThat(alerts.getAlerts())
                .extracting(AlertEvent::getDescription)
                .as("one alert per sync, saying why")
                .hasSize(2)
                .allMatch(d -> d.contains("sharedLookup 'users' not loaded on this node: No namespace 'users' in store "
                        + store + ": no writer has published it there yet"));

        TestStores.Published published = publish(store, Map.of("1", "one"), false);
        coordinator.sync();
        coordinator.sync();
        assertNotLoaded(node, coordinator); // published, but the writer has not caught up with its topic

        published.update(Map.of("2", "two"), true);
        coordinator.sync(); // the node starts the lookup
        assertThat(served(node, "1")).isEqualTo("one");
        assertThat(served(node, "2")).isEqualTo("two");
        coordinator.sync(); // and reports it at the next sync
        assertThat(coordinator.status(LOOKUP).get("loaded").asBoolean())
                .as("%s", coordinator.status(LOOKUP))
                .isTrue();
    }

    @Test
    void aNodeStartingBeforePublicationLeavesTheLookupOutAndLoadsItAtTheNextSync() throws Exception {
        // The node loaded the lookup before it stopped: its snapshot lists it. It starts again before the writer has
        // published into this (new, empty) store.
        LookupExtractorFactoryContainer before = mapper.readValue(
                "{\"version\": \"v1\", \"lookupExtractorFactory\": "
                        + "{\"type\": \"sharedLookup\", \"namespace\": \"users\"}}",
                LookupExtractorFactoryContainer.class);
        InProcessLookupNode.writeSnapshot(mapper, snapshots, Map.of(LOOKUP, before));

        InProcessLookupNode node = startNode();
        Coordinator coordinator = new Coordinator(node);
        coordinator.register(LOOKUP, "v1", Map.of("type", "sharedLookup", "namespace", "users"));
        assertThat(node.manager().get(LOOKUP)).as("started from the snapshot").isEmpty();
        coordinator.sync();
        assertNotLoaded(node, coordinator);

        publish(store, Map.of("1", "one"), true);
        coordinator.sync();
        coordinator.sync();
        assertThat(coordinator.status(LOOKUP).get("loaded").asBoolean()).isTrue();
        assertThat(served(node, "1")).isEqualTo("one");
    }

    @Test
    void aServingLookupKeepsServingWhileItsNewVersionCannotStart() throws Exception {
        publish(store, Map.of("1", "one"), true);
        InProcessLookupNode node = startNode();
        Coordinator coordinator = new Coordinator(node);
        coordinator.register(LOOKUP, "v1", Map.of("type", "sharedLookup", "namespace", "users"));
        coordinator.sync();
        coordinator.sync();
        assertThat(coordinator.status(LOOKUP).get("loaded").asBoolean()).isTrue();
        assertThat(served(node, "1")).isEqualTo("one");

        // Version 2 moves the lookup to a store the writer has not filled yet on this node.
        Path moved = Files.createDirectories(tmp.resolve("moved-store"));
        coordinator.register(
                LOOKUP, "v2", Map.of("type", "sharedLookup", "namespace", "users", "storeDir", moved.toString()));
        coordinator.sync();
        coordinator.sync();
        assertThat(node.manager().get(LOOKUP).map(LookupExtractorFactoryContainer::getVersion))
                .contains("v1");
        assertThat(served(node, "1")).as("version 1 still serves").isEqualTo("one");
        JsonNode status = coordinator.status(LOOKUP);
        assertThat(status.get("loaded").asBoolean()).as("%s", status).isFalse();

        publish(moved, Map.of("1", "uno"), true);
        coordinator.sync();
        coordinator.sync();
        assertThat(node.manager().get(LOOKUP).map(LookupExtractorFactoryContainer::getVersion))
                .contains("v2");
        assertThat(served(node, "1")).isEqualTo("uno");
        assertThat(coordinator.status(LOOKUP).get("loaded").asBoolean()).isTrue();
    }

    private void assertNotLoaded(InProcessLookupNode node, Coordinator coordinator) throws Exception {
        JsonNode status = coordinator.status(LOOKUP);
        assertThat(status.get("loaded").asBoolean())
                .as("coordinator status %s", status)
                .isFalse();
        assertThat(status.get("pendingNodes")).as("%s", status).hasSize(1);
        assertThat(node.manager().get(LOOKUP))
                .as("the node's lookup manager holds no lookup '%s'", LOOKUP)
                .isEmpty();
        assertThat(mapper.readValue(node.state(), WIRE_STATE).getCurrent()).doesNotContainKey(LOOKUP);
    }

    /** What a query on the node gets for {@code key} through the lookup named {@value #LOOKUP}. */
    private static String served(InProcessLookupNode node, String key) {
        Optional<LookupExtractorFactoryContainer> container = node.manager().get(LOOKUP);
        assertThat(container).as("lookup '%s' on the node", LOOKUP).isPresent();
        return container.get().getLookupExtractorFactory().get().apply(key);
    }

    private InProcessLookupNode startNode() throws Exception {
        InProcessLookupNode node = new InProcessLookupNode(mapper, snapshots);
        node.start();
        toClose.add(node);
        return node;
    }

    private TestStores.Published publish(Path dir, Map<String, String> content, boolean caughtUp) throws Exception {
        TestStores.Published published = TestStores.publish(dir, "users", content, caughtUp);
        toClose.add(published);
        return published;
    }

    /**
     * The coordinator's lookup management of one node on tier {@code __default}, one {@link #sync()} per
     * {@code druid.manager.lookups.period}: ask the node for its state, send what it lacks, keep the node's answer as
     * the last known state (what {@code lookups/status} reads). The node's notice thread then handles the update.
     */
    private final class Coordinator {
        final InProcessLookupNode node;
        final InProcessLookupCoordinator decisions = new InProcessLookupCoordinator();
        final Map<String, LookupExtractorFactoryMapContainer> tier = new LinkedHashMap<>();
        LookupsState<LookupExtractorFactoryMapContainer> lastKnown = new LookupsState<>(null, null, null);

        Coordinator(InProcessLookupNode node) {
            this.node = node;
        }

        void register(String name, String version, Map<String, Object> factory) {
            tier.put(name, new LookupExtractorFactoryMapContainer(version, factory));
        }

        void sync() throws Exception {
            LookupsState<LookupExtractorFactoryMapContainer> state = mapper.readValue(node.state(), WIRE_STATE);
            Map<String, LookupExtractorFactoryMapContainer> toLoad = decisions.toLoad(state, tier);
            Set<String> toDrop = decisions.toDrop(state, tier);
            if (!toLoad.isEmpty() || !toDrop.isEmpty()) {
                String update = mapper.writeValueAsString(new LookupsState<>(null, toLoad, toDrop));
                state = mapper.readValue(node.update(update), WIRE_STATE);
            }
            lastKnown = state;
            node.handlePendingNotices();
        }

        JsonNode status(String name) {
            return InProcessLookupStatus.status(mapper, name, tier.get(name), List.of(NODE), Map.of(NODE, lastKnown));
        }
    }
}
