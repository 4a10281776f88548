package io.sharedlookup.druid;

import com.fasterxml.jackson.annotation.JacksonInject;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.NamespaceNotFoundException;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.annotation.Nullable;
import org.apache.druid.error.DruidException;
import org.apache.druid.query.lookup.LookupExtractor;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupIntrospectHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sharedLookup} lookup type:
 * <pre>{"type": "sharedLookup", "namespace": "users", "storeDir": "/var/lib/shared-lookup", "injective": false,
 *  "maxStaleness": "PT5M"}</pre>
 * Values come from the namespace's published generation in the shared store, read in place: nothing is copied onto
 * the Druid heap and nothing is loaded at start. With {@code maxStaleness} (optional, see {@link MaxStaleness}),
 * queries fail while the namespace's content is older than that, instead of being served stale values
 * ({@link StalenessCheck}).
 *
 * <p>The lookup is initialised once the namespace is published and its writer has reported it caught up with its
 * topic, and stays initialised afterwards. {@link #start()} fails, with one line saying why, while the namespace is
 * not initialised on this node, so that Druid's lookup manager does not hold the lookup and the coordinator does not
 * report it loaded: "loaded" then means "serves". The coordinator sends the spec again at each lookup sync
 * ({@code druid.manager.lookups.period}) and the first start after the writer published succeeds. A lookup that
 * started keeps serving: a later {@code start()} of it succeeds whatever the store looks like, and a new spec version
 * that cannot start leaves Druid serving the old one. Queries that reach a lookup that is not initialised (only
 * possible outside Druid's lookup manager) fail with an error naming the reason: an empty or partial lookup is never
 * served silently.
 */
@JsonTypeName(SharedLookupExtractorFactory.TYPE)
public final class SharedLookupExtractorFactory implements LookupExtractorFactory {
    public static final String TYPE = "sharedLookup";
    private static final Logger LOG = LoggerFactory.getLogger(SharedLookupExtractorFactory.class);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final String namespace;

    @Nullable
    private final String storeDir;

    private final boolean injective;
    private final LookupStoreDirectory storeDirectory;
    private final Path resolvedStoreDir;
    private final long initializationTimeoutMillis;
    private final int maxReverseLookupKeys;
    private final long closeDelayMillis;
    private final ContentAge contentAge = new ContentAge();

    @Nullable
    private final StalenessCheck staleness;

    private final SharedLookupExtractor extractor;
    private final List<String> ignoredFields = new CopyOnWriteArrayList<>();

    private final Object lifecycle = new Object();

    @Nullable
    private volatile SharedLookupStore store;

    @Nullable
    private volatile Lookup lookup;

    private volatile boolean initialized;

    @Nullable
    private volatile String lastProblem;

    /** A lookup without {@code maxStaleness}. */
    public SharedLookupExtractorFactory(
            @Nullable String namespace,
            @Nullable String storeDir,
            boolean injective,
            @Nullable SharedLookupConfig config) {
        this(namespace, storeDir, injective, null, config);
    }

    /**
     * @param maxStaleness the spec's {@code "maxStaleness"}: an ISO-8601 period string such as {@code "PT5M"}, or null
     * @throws IllegalArgumentException with one line saying what is wrong with the spec and how to write it
     */
    @JsonCreator
    public SharedLookupExtractorFactory(
            @JsonProperty("namespace") @Nullable String namespace,
            @JsonProperty("storeDir") @Nullable String storeDir,
            @JsonProperty("injective") boolean injective,
            @JsonProperty("maxStaleness") @Nullable Object maxStaleness,
            @JacksonInject @Nullable SharedLookupConfig config) {
        SharedLookupConfig settings = config == null ? new SharedLookupConfig() : config;
        if (namespace == null || namespace.isEmpty()) {
            throw new IllegalArgumentException("sharedLookup: \"namespace\" is required: the store namespace to read, "
                    + "e.g. {\"type\": \"sharedLookup\", \"namespace\": \"users\"}");
        }
        try {
            SharedLookupStore.requireValidNamespace(namespace);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sharedLookup: " + e.getMessage(), e);
        }
        this.namespace = namespace;
        this.storeDir = storeDir == null || storeDir.isBlank() ? null : storeDir;
        this.injective = injective;
        this.initializationTimeoutMillis = Math.max(0, settings.getInitializationTimeoutMillis());
        this.maxReverseLookupKeys = settings.getMaxReverseLookupKeys();
        this.closeDelayMillis = settings.getCloseDelayMillis();
        this.storeDirectory = LookupStoreDirectory.resolve(namespace, this.storeDir, settings);
        this.resolvedStoreDir = storeDirectory.path();
        MaxStaleness max = MaxStaleness.parse(namespace, maxStaleness);
        this.staleness = max == null ? null : new StalenessCheck(namespace, max, contentAge);
        this.extractor = new SharedLookupExtractor(this);
    }

    /**
     * A spec field this release does not know: a misspelt {@code "storedir"} would otherwise fall back to the node's
     * default directory without a word. Ignored, as Druid ignores unknown fields (throwing would stop a node whose
     * lookup snapshot holds the spec from starting, and fail specs written for a newer release during an upgrade), but
     * said in a WARN.
     */
    @JsonAnySetter
    void ignoreUnknownField(String name, Object value) {
        ignoredFields.add(name);
        LOG.warn(
                "sharedLookup '{}': the lookup spec's field \"{}\" is not one this extension knows and is ignored; "
                        + "its fields are \"namespace\", \"storeDir\", \"injective\" and \"maxStaleness\"",
                namespace,
                name);
    }

    /** The spec's fields that {@link #ignoreUnknownField} ignored. For tests. */
    List<String> ignoredFields() {
        return List.copyOf(ignoredFields);
    }

    @JsonProperty
    public String getNamespace() {
        return namespace;
    }

    /** The store directory as given in the spec; null when the node's default applies. */
    @JsonProperty
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Nullable
    public String getStoreDir() {
        return storeDir;
    }

    @JsonProperty
    public boolean isInjective() {
        return injective;
    }

    /** The spec's {@code maxStaleness} as written; null when unset (queries never fail for staleness). */
    @JsonProperty
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Nullable
    public String getMaxStaleness() {
        return staleness == null ? null : staleness.max().spec();
    }

    /** How old the namespace's content is, as this lookup has followed it. */
    ContentAge contentAge() {
        return contentAge;
    }

    /** What enforces {@code maxStaleness}; null when the spec has none. */
    @Nullable
    StalenessCheck staleness() {
        return staleness;
    }

    /** The directory actually read: the spec's storeDir, else {@code druid.sharedLookup.storeDir}, else the default. */
    public Path storeDirectory() {
        return resolvedStoreDir;
    }

    /** {@code druid.sharedLookup.maxReverseLookupKeys}: the most keys {@link SharedLookupExtractor#unapplyAll} returns. */
    int maxReverseLookupKeys() {
        return maxReverseLookupKeys;
    }

    /**
     * Opens the store and the namespace; succeeds only once the namespace is initialised (published and caught up),
     * so that Druid's lookup manager holds, and the coordinator reports as loaded, only lookups that serve.
     *
     * <p>Druid's {@code LookupReferencesManager} retries a start that throws ({@code druid.lookup.lookupStartRetries}
     * times, a second or two apart) and then gives the lookup up until the coordinator's next lookup sync, which sends
     * the spec again; at node start it likewise leaves out lookups that do not start. A lookup already started
     * (and so initialised) returns true at once: a store that is briefly unreadable never unloads a serving lookup.
     *
     * @return true once started
     * @throws IllegalStateException naming the namespace, the store directory and the fix when the store cannot be
     *                               opened or the namespace is not initialised on this node
     */
    @Override
    public boolean start() {
        synchronized (lifecycle) {
            if (store != null) {
                // Started before, so initialised: never fail now, or Druid would refuse a lookup that serves.
                return true;
            }
            lookup = null;
            initialized = false;
            storeDirectory.requireReadable();
            SharedLookupStore acquired;
            try {
                acquired = SharedStores.acquire(resolvedStoreDir, namespace);
            } catch (SharedLookupException e) {
                throw new IllegalStateException("sharedLookup '" + namespace + "': " + e.getMessage(), e);
            }
            store = acquired;
            boolean started = false;
            try {
                if (!isInitialized()) {
                    throw new IllegalStateException(
                            "sharedLookup '" + namespace + "' not loaded on this node: "
                                    + status() + "; the coordinator sends the spec again at its next lookup sync "
                                    + "(druid.manager.lookups.period) and it loads once the namespace is published and caught up");
                }
                // Not its size: counting reads every segment, and one left mid-change by a killed writer would fail
                // the start after the store was taken.
                LOG.info(
                        "Lookup over namespace '{}' in {} started: generation {}",
                        namespace,
                        resolvedStoreDir,
                        lookup.generation());
                started = true;
                return true;
            } finally {
                if (!started) {
                    // Not started (not initialised, or anything thrown on the way, an Error included): Druid never
                    // closes a lookup whose start failed, so give the store back here, and leave nothing that would
                    // make a retried start report success without being initialised.
                    store = null;
                    lookup = null;
                    initialized = false;
                    SharedStores.release(resolvedStoreDir, namespace, 0); // never served: nothing to wait for
                }
            }
        }
    }

    @Override
    public boolean close() {
        synchronized (lifecycle) {
            if (store != null) {
                // Queries still running keep reading: the namespace is let go only druid.sharedLookup.closeDelayMillis
                // after the last lookup over it is dropped, unless a lookup over it starts meanwhile.
                store = null;
                SharedStores.release(resolvedStoreDir, namespace, closeDelayMillis);
            }
            return true;
        }
    }

    // Deprecated in Druid but still abstract, and LookupExtractorFactoryContainer.replaces calls it when neither spec
    // carries a version: it must be implemented.
    @SuppressWarnings("deprecation")
    @Override
    public boolean replaces(@Nullable LookupExtractorFactory other) {
        return !equals(other);
    }

    @Override
    public LookupIntrospectHandler getIntrospectHandler() {
        return new SharedLookupIntrospectHandler(this);
    }

    /**
     * Waits up to {@code druid.sharedLookup.initializationTimeoutMillis} for the namespace to be initialised. Druid's
     * lookup manager waits only for a lookup that started without being initialised, which a started
     * {@code sharedLookup} never is; this serves callers outside it.
     */
    @Override
    public void awaitInitialization() throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(initializationTimeoutMillis);
        while (!isInitialized()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new TimeoutException("sharedLookup '" + namespace + "' not initialised after "
                        + initializationTimeoutMillis + " ms (druid.sharedLookup.initializationTimeoutMillis): "
                        + status());
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, POLL_NANOS));
        }
    }

    /** Initialised when the namespace is published and its writer reported it caught up; stays so afterwards. */
    @Override
    public boolean isInitialized() {
        if (initialized) {
            return true;
        }
        Lookup current = resolve();
        if (current != null && current.isCaughtUp()) {
            initialized = true;
            lastProblem = null;
        }
        return initialized;
    }

    @Override
    public LookupExtractor get() {
        return extractor;
    }

    /**
     * The lookup to read, once initialised.
     *
     * @throws DruidException (service unavailable) naming the reason when the lookup is not ready to serve
     */
    Lookup readyLookup() {
        Lookup current = lookup;
        if (initialized && current != null) {
            return current;
        }
        if (isInitialized()) {
            current = lookup;
            if (current != null) {
                return current;
            }
        }
        throw DruidException.forPersona(DruidException.Persona.OPERATOR)
                .ofCategory(DruidException.Category.SERVICE_UNAVAILABLE)
                .build("%s", "Lookup sharedLookup '" + namespace + "' is not ready: " + status());
    }

    private Lookup resolve() {
        Lookup current = lookup;
        SharedLookupStore open = store;
        if (current != null || open == null) {
            return current;
        }
        synchronized (lifecycle) {
            if (lookup == null && store != null) {
                try {
                    lookup = SharedStores.withExtensionClassLoader(() -> open.lookup(namespace));
                    lastProblem = null;
                } catch (NamespaceNotFoundException e) {
                    lastProblem = e.getMessage();
                } catch (SharedLookupException | IllegalStateException e) {
                    if (!Objects.equals(lastProblem, e.getMessage())) {
                        LOG.warn("sharedLookup '{}': cannot open the namespace yet: {}", namespace, e.getMessage());
                    }
                    lastProblem = e.getMessage();
                }
            }
            return lookup;
        }
    }

    /** The namespace's lookup once opened (it may still be catching up); null before. For tests. */
    @Nullable
    Lookup lookupIfOpen() {
        return resolve();
    }

    /** Why the lookup is, or is not, ready: for errors, logs and introspection. */
    String status() {
        if (store == null) {
            return "not started on this node (store " + resolvedStoreDir + ")";
        }
        Lookup current = lookup;
        if (current == null) {
            String problem = lastProblem;
            return problem != null
                    ? problem
                    : "namespace '" + namespace + "' in store " + resolvedStoreDir + " is not open yet";
        }
        if (!initialized && !current.isCaughtUp()) {
            return "namespace '" + namespace + "' in store " + resolvedStoreDir + " is published (generation "
                    + current.generation() + ", " + entries(current) + ") but its writer has not caught up "
                    + "with the topic yet";
        }
        return "ready: namespace '" + namespace + "' in store " + resolvedStoreDir + ", generation "
                + current.generation() + ", version " + current.version();
    }

    /** For messages: counting reads every segment, and one left mid-change by a killed writer would fail it. */
    private static String entries(Lookup lookup) {
        try {
            return lookup.size() + " entries";
        } catch (SharedLookupException e) {
            return "entries not countable now: " + e.getMessage();
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof SharedLookupExtractorFactory that)) {
            return false;
        }
        return injective == that.injective
                && namespace.equals(that.namespace)
                && resolvedStoreDir.equals(that.resolvedStoreDir)
                && Objects.equals(getMaxStaleness(), that.getMaxStaleness()); // a changed bound must be picked up
    }

    @Override
    public int hashCode() {
        return Objects.hash(namespace, resolvedStoreDir, injective, getMaxStaleness());
    }

    @Override
    public String toString() {
        return "SharedLookupExtractorFactory{namespace='" + namespace + "', storeDir=" + resolvedStoreDir
                + ", injective=" + injective + (staleness == null ? "" : ", maxStaleness=" + staleness.max()) + "}";
    }
}
