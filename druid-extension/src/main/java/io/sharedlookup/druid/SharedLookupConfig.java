package io.sharedlookup.druid;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Node-wide settings, from Druid runtime properties under {@code druid.sharedLookup.}:
 * <ul>
 *   <li>{@code druid.sharedLookup.storeDir} — store directory used by lookups that do not name one
 *       (default {@value #DEFAULT_STORE_DIR});</li>
 *   <li>{@code druid.sharedLookup.initializationTimeoutMillis} — how long {@code awaitInitialization} waits for a
 *       namespace to be published and caught up before giving up (default 60000). Druid's lookup manager does not
 *       wait on a {@code sharedLookup}: its start succeeds only once the namespace is initialised.</li>
 *   <li>{@code druid.sharedLookup.maxReverseLookupKeys} — the most keys one reverse lookup ({@code unapplyAll}) returns
 *       (default {@value #DEFAULT_MAX_REVERSE_LOOKUP_KEYS}). Past it the lookup answers "cannot" (null), and Druid
 *       leaves the filter as it is instead of rewriting it into a filter on the keys; without the bound a filter on a
 *       value most keys share would collect them all onto the heap for every query.</li>
 *   <li>{@code druid.sharedLookup.closeDelayMillis} — how long a dropped lookup's namespace stays open on the node
 *       after the last lookup over it is dropped, so that queries still running on it finish (default
 *       {@value #DEFAULT_CLOSE_DELAY_MILLIS}, Druid's default query timeout). Then the namespace is let go (its files
 *       with it), and with the last namespace of a store directory the store closes. 0: at once.</li>
 * </ul>
 */
public class SharedLookupConfig {
    public static final String PROPERTY_BASE = "druid.sharedLookup";
    public static final String DEFAULT_STORE_DIR = "/var/lib/shared-lookup";
    public static final long DEFAULT_INITIALIZATION_TIMEOUT_MILLIS = 60_000;
    public static final int DEFAULT_MAX_REVERSE_LOOKUP_KEYS = 100_000;
    public static final long DEFAULT_CLOSE_DELAY_MILLIS = 300_000;

    @JsonProperty
    private String storeDir = DEFAULT_STORE_DIR;

    @JsonProperty
    private long initializationTimeoutMillis = DEFAULT_INITIALIZATION_TIMEOUT_MILLIS;

    @JsonProperty
    private int maxReverseLookupKeys = DEFAULT_MAX_REVERSE_LOOKUP_KEYS;

    @JsonProperty
    private long closeDelayMillis = DEFAULT_CLOSE_DELAY_MILLIS;

    public SharedLookupConfig() {}

    public SharedLookupConfig(String storeDir, long initializationTimeoutMillis) {
        this(storeDir, initializationTimeoutMillis, DEFAULT_MAX_REVERSE_LOOKUP_KEYS);
    }

    public SharedLookupConfig(String storeDir, long initializationTimeoutMillis, int maxReverseLookupKeys) {
        this(storeDir, initializationTimeoutMillis, maxReverseLookupKeys, DEFAULT_CLOSE_DELAY_MILLIS);
    }

    public SharedLookupConfig(
            String storeDir, long initializationTimeoutMillis, int maxReverseLookupKeys, long closeDelayMillis) {
        this.storeDir = storeDir;
        this.initializationTimeoutMillis = initializationTimeoutMillis;
        this.maxReverseLookupKeys = maxReverseLookupKeys;
        this.closeDelayMillis = closeDelayMillis;
    }

    public String getStoreDir() {
        return storeDir == null || storeDir.isBlank() ? DEFAULT_STORE_DIR : storeDir;
    }

    public long getInitializationTimeoutMillis() {
        return initializationTimeoutMillis;
    }

    public int getMaxReverseLookupKeys() {
        return Math.max(0, maxReverseLookupKeys);
    }

    public long getCloseDelayMillis() {
        return Math.max(0, closeDelayMillis);
    }

    @Override
    public String toString() {
        return "SharedLookupConfig{storeDir=" + getStoreDir() + ", initializationTimeoutMillis="
                + initializationTimeoutMillis + ", maxReverseLookupKeys=" + maxReverseLookupKeys
                + ", closeDelayMillis=" + closeDelayMillis + "}";
    }
}
