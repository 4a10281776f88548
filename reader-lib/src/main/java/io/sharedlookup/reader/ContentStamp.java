package io.sharedlookup.reader;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.PublishedGeneration;
import io.sharedlookup.internal.store.RateLimitedLog;

/**
 * A live lookup's content stamp ({@link Lookup#contentStamp()}): the live generation's change count, mixed with its
 * number, taken at each refresh once someone has asked for it.
 *
 * <p>Why a class of its own: following the stamp is the one part of {@link LiveLookup}'s refresh that sums counters
 * (hundreds to thousands of them), and only for readers that use the stamp; the rest of the refresh follows the
 * manifest. {@link LiveLookup} keeps the lock: {@link #refresh} and {@link #follow} are called holding it, as the
 * generation switches are.
 */
final class ContentStamp {
    private final String namespace;
    private final RateLimitedLog warnings;
    /** The live generation's change count as of the last refresh, once followed. */
    private volatile long stamp;
    /**
     * Whether the stamp was ever asked for: until then refreshes do not sum the counters (hundreds to thousands of
     * them, every refresh), which most readers never need.
     */
    private volatile boolean followed;

    /** For {@code namespace}'s lookup, warning through its refresh's {@code warnings}. */
    ContentStamp(String namespace, RateLimitedLog warnings) {
        this.namespace = namespace;
        this.warnings = warnings;
    }

    /** Whether the stamp is taken at every refresh (set after the stamp it makes valid). */
    boolean followed() {
        return followed;
    }

    /** The stamp as of the last refresh, or of {@link #follow}. */
    long value() {
        return stamp;
    }

    /** At a refresh, after any switch to {@code live}: takes the stamp again, if it is followed. */
    void refresh(PublishedGeneration live) {
        if (followed) {
            take(live);
        }
    }

    /**
     * Takes the stamp now and at every refresh from now on; the stamp is set before the flag that says so. A
     * generation that cannot be read now is read again at the next call, as the refresh would (a caller of a cache
     * key gets a stamp, not an error). {@code manifest} names {@code live}, for the warning.
     */
    void follow(PublishedGeneration live, Manifest manifest) {
        if (followed) {
            return;
        }
        try {
            take(live);
            followed = true;
        } catch (RuntimeException | InternalError e) {
            warnings.warn(
                    "Namespace '{}': cannot read the change counters of generation {}: {}",
                    namespace,
                    manifest.generation(),
                    e.toString());
        }
    }

    /**
     * Takes the live generation's change count, after the content it counts: a stamp read with a result never names
     * content newer than the result's (a cache keyed by it must not store old results under a new key).
     */
    private void take(PublishedGeneration live) {
        if (live != null) {
            // The generation's number mixed in: version(), generation() and this are read one by one, so a key read
            // across a switch may pair one generation's stamp with the other's number; mixed, such a pair matches no
            // key of either generation. Within a generation the stamp stays one-to-one with the count (an odd
            // multiplier is a bijection of the longs).
            stamp = (live.changeCount() + spread(live.number())) * 0x9E3779B97F4A7C15L;
        }
    }

    /** A 64-bit mix of {@code x} (SplitMix64's finaliser): generations' offsets far apart. */
    private static long spread(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }
}
