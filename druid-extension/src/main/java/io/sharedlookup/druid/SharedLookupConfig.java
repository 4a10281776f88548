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
 * </ul>
 */
public class SharedLookupConfig {
    public static final String PROPERTY_BASE = "druid.sharedLookup";
    public static final String DEFAULT_STORE_DIR = "/var/lib/shared-lookup";
    public static final long DEFAULT_INITIALIZATION_TIMEOUT_MILLIS = 60_000;

    @JsonProperty
    private String storeDir = DEFAULT_STORE_DIR;

    @JsonProperty
    private long initializationTimeoutMillis = DEFAULT_INITIALIZATION_TIMEOUT_MILLIS;

    public SharedLookupConfig() {
    }

    public SharedLookupConfig(String storeDir, long initializationTimeoutMillis) {
        this.storeDir = storeDir;
        this.initializationTimeoutMillis = initializationTimeoutMillis;
    }

    public String getStoreDir() {
        return storeDir == null || storeDir.isBlank() ? DEFAULT_STORE_DIR : storeDir;
    }

    public long getInitializationTimeoutMillis() {
        return initializationTimeoutMillis;
    }

    @Override
    public String toString() {
        return "SharedLookupConfig{storeDir=" + getStoreDir() + ", initializationTimeoutMillis="
                + initializationTimeoutMillis + "}";
    }
}
