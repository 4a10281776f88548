package org.apache.druid.query.lookup;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Constructor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Druid node's lookup side, in process: Druid's own {@link LookupReferencesManager} (the class every broker,
 * historical and indexer runs), fed the way {@link LookupListeningResource} feeds it when the coordinator posts
 * updates, and asked for the state that resource answers the coordinator with.
 *
 * <p>In Druid's package because the members used are package-private, kept visible for Druid's own tests: the
 * test-mode constructor (no notice thread, so the test decides when notices are handled, as the node's thread does
 * right after each update), {@code handlePendingNotices()} and {@code getAllLookupsState()}.
 */
public final class InProcessLookupNode implements AutoCloseable {
    private static final TypeReference<LookupsState<Object>> GENERIC_STATE = new TypeReference<>() {};

    private final ObjectMapper mapper;
    private final LookupReferencesManager manager;

    /**
     * A node with {@code druid.lookup.enableLookupSyncOnStartup=false} (no coordinator to ask at start) whose lookup
     * snapshots live in {@code snapshotDir}; other {@code druid.lookup.*} settings are Druid's defaults.
     */
    public InProcessLookupNode(ObjectMapper mapper, Path snapshotDir) throws Exception {
        this.mapper = mapper;
        LookupConfig config = mapper.readValue(
                "{\"snapshotWorkingDir\": " + mapper.writeValueAsString(snapshotDir.toString())
                        + ", \"enableLookupSyncOnStartup\": false}",
                LookupConfig.class);
        this.manager = new LookupReferencesManager(config, mapper, null, announcerConfig(), true);
    }

    /** Writes the snapshot a node that loaded {@code lookups} on tier {@code __default} leaves behind. */
    public static void writeSnapshot(
            ObjectMapper mapper, Path snapshotDir, Map<String, LookupExtractorFactoryContainer> lookups) {
        List<LookupBean> beans = new ArrayList<>();
        lookups.forEach((name, container) -> beans.add(new LookupBean(name, null, container)));
        new LookupSnapshotTaker(mapper, snapshotDir.toString())
                .takeSnapshot(LookupListeningAnnouncerConfig.DEFAULT_TIER, beans);
    }

    /** Starts the manager as a node does: the lookups of its snapshot are started before the node serves. */
    public void start() throws Exception {
        manager.start();
    }

    /**
     * What {@code POST /druid/listen/v1/lookups/updates} does with the coordinator's {@code {"toLoad": ..., "toDrop":
     * ...}}: queues a load or drop notice per lookup and answers the node's lookups state (as JSON).
     */
    public String update(String coordinatorUpdate) throws Exception {
        LookupsState<Object> generic = mapper.readValue(coordinatorUpdate, GENERIC_STATE);
        Map<String, LookupExtractorFactoryContainer> toLoad =
                LookupUtils.tryConvertObjectMapToLookupConfigMap(generic.getToLoad(), mapper);
        toLoad.forEach(manager::add);
        generic.getToDrop().forEach(name -> manager.remove(name, toLoad.get(name)));
        return state();
    }

    /** What {@code GET /druid/listen/v1/lookups} answers the coordinator: current, toLoad and toDrop, as JSON. */
    public String state() throws Exception {
        return mapper.writeValueAsString(manager.getAllLookupsState());
    }

    /** Handles the queued notices, as the node's notice thread does as soon as an update queues one. */
    public void handlePendingNotices() {
        manager.handlePendingNotices();
    }

    /** The manager itself: {@code get(name)} is what queries on this node resolve lookups through. */
    public LookupReferencesManager manager() {
        return manager;
    }

    @Override
    public void close() {
        manager.stop();
    }

    /**
     * Tier {@code __default}, all lookups: a broker's or historical's announcer config. Its constructor takes what
     * Druid injects, which differs between releases (33: DataSourceTaskIdHolder; 37: TaskHolder and LoadSpecHolder),
     * so each parameter gets that release's default.
     */
    private static LookupListeningAnnouncerConfig announcerConfig() throws Exception {
        Constructor<?> constructor = LookupListeningAnnouncerConfig.class.getConstructors()[0];
        Class<?>[] types = constructor.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = defaultOf(types[i]);
        }
        return (LookupListeningAnnouncerConfig) constructor.newInstance(args);
    }

    private static Object defaultOf(Class<?> type) throws Exception {
        String implementation = switch (type.getName()) {
            case "org.apache.druid.server.metrics.DataSourceTaskIdHolder" -> type.getName();
            case "org.apache.druid.java.util.metrics.TaskHolder" -> "org.apache.druid.java.util.metrics.NoopTaskHolder";
            case "org.apache.druid.server.metrics.LoadSpecHolder" ->
                "org.apache.druid.server.metrics.DefaultLoadSpecHolder";
            default ->
                throw new IllegalStateException("LookupListeningAnnouncerConfig of this Druid release takes a "
                        + type.getName() + ": add its default here");
        };
        return Class.forName(implementation).getConstructor().newInstance();
    }
}
