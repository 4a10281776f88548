package io.sharedlookup.reader;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * One namespace of a store: a live, read-only string-to-string map backed by the namespace's published generation.
 *
 * <p>Thread-safe. Follows new generations by itself: shortly after the writer publishes one (within the store's
 * refresh interval), calls use it; no call waits for the switch. Reads take no lock and write nothing; a read that
 * races with the writer is retried. A lookup that meets a segment the writer is in the middle of changing waits while
 * the writer's heartbeat says it is alive (up to the store's {@code liveWriterWait}, 10 s by default), and only the
 * store's short {@code lockTimeout} once it is not; past the bound the call throws {@link LookupTimeoutException} (the
 * writer died or stopped in the middle of a change; its successor rebuilds the namespace). {@link #status()} says
 * whether the writer is alive and how fresh the content is.
 * A damaged store file surfaces as {@link SharedLookupException}. A lookup that throws leaves its output empty (and,
 * for a {@link ValueBuffer}, not {@linkplain ValueBuffer#found() found}).
 *
 * <p>Once its store is closed or its namespace {@linkplain SharedLookupStore#release released}, every method but
 * {@link #namespace()} throws {@link IllegalStateException}; calls already in flight finish normally.
 */
public interface Lookup {
    /** The namespace name. */
    String namespace();

    /**
     * Returns the value for {@code key}, or {@code null} when absent (or when {@code key} is null). Allocates the
     * returned String; use {@link #getInto} on hot paths.
     */
    String get(CharSequence key);

    /**
     * Clears {@code out} and, when {@code key} is present, appends its value. Allocates nothing once warmed up.
     *
     * @return whether {@code key} is present
     */
    boolean getInto(CharSequence key, StringBuilder out);

    /**
     * Copies the value for {@code key} into {@code out} (emptied when {@code key} is absent or null). The cheapest
     * lookup: the value's bytes are moved 8 at a time and read as text in place; allocates nothing once {@code out}
     * has held a value at least as long.
     *
     * @return whether {@code key} is present
     */
    boolean getInto(CharSequence key, ValueBuffer out);

    /**
     * Looks up {@code keys[0 .. count)} at once: {@code values[i]} receives what {@link #getInto(CharSequence,
     * ValueBuffer)} would put in it for {@code keys[i]}, and {@link ValueBuffer#found() values[i].found()} says whether
     * {@code keys[i]} is present. Faster per key than as many {@code getInto} calls once the store outgrows the
     * processor's caches, because the keys' memory reads overlap: in batches of 8, about as fast per key as a
     * {@code ConcurrentHashMap.get} (docs/benchmarks.md). Allocates nothing once warmed up.
     *
     * @param keys   the keys; a null key is absent
     * @param values one distinct buffer per key
     * @param count  how many keys to look up, from the start of both arrays
     * @return how many of the keys are present
     * @throws IndexOutOfBoundsException when {@code count} is negative or longer than either array
     * @throws LookupTimeoutException    as {@code getInto}, when one key's lookup waits past the bound; all
     *                                   {@code count} buffers are then emptied
     * @throws SharedLookupException     when the store file is damaged; the buffers likewise
     */
    int getAllInto(CharSequence[] keys, ValueBuffer[] values, int count);

    /** Number of entries in the current generation. */
    long size();

    /**
     * The content version recorded in the manifest: it changes with every new generation and, for updates applied in
     * place, at the writer's next checkpoint (within about a quarter of a second; later when it cannot checkpoint),
     * and is stable otherwise. Not a cache key on its own: until that checkpoint the content already differs; a cache
     * key holds it, {@link #generation()} and {@link #contentStamp()}.
     */
    long version();

    /**
     * A number that moves with every change the writer applies in place, within one refresh interval of it, before
     * {@link #version()} follows at the writer's next checkpoint. Together with {@code version()} and
     * {@link #generation()} it names the content readers see now, also when the writer cannot checkpoint (a full
     * volume) or was killed before it did: a cache key should hold all three. Not ordered: compare it for equality only.
     */
    long contentStamp();

    /** The current generation number. */
    long generation();

    /** Whether the writer reported that the namespace had caught up with its topic. */
    boolean isCaughtUp();

    /**
     * The namespace's content digest as of its writer's last checkpoint (16 hex digits): an order-independent 64-bit
     * summary of every (key, value) pair. Two stores whose writers applied the same topic offsets have the same digest,
     * so hosts can be compared without comparing entries. Empty for a store written before the digest existed.
     */
    Optional<String> contentDigest();

    /**
     * Calls {@code action} with every entry of the current generation (copies of key and value). Meant for
     * introspection and reverse lookups, not hot paths: it allocates per entry. Each segment is copied consistently, then passed to {@code action}, so a slow action never
     * holds the writer up.
     */
    void forEach(BiConsumer<? super String, ? super String> action);

    /**
     * Like {@link #forEach}, but stops as soon as {@code action} returns false (for bounded listings).
     *
     * @return whether every entry was visited
     */
    boolean forEachWhile(BiPredicate<? super String, ? super String> action);

    /**
     * The keys whose value equals {@code value} (a reverse lookup), in no particular order. Served by the writer's
     * reverse index when the namespace has one ({@link #hasReverseIndex()}), else — and for values shared by very many
     * keys — by a scan of the namespace.
     */
    List<String> keysOf(CharSequence value);

    /**
     * Passes every key whose value is one of {@code values} to {@code action}, until it returns false: a bounded
     * {@link #keysOf} for many values at once. Values the reverse index answers cost one index read each; all the
     * others (every value when there is no index, values shared by very many keys when there is) are found together in
     * at most one scan of the namespace, which stops as soon as {@code action} returns false. Nothing is collected on
     * the heap but one segment's copy at a time.
     *
     * @return whether every such key was passed ({@code action} never returned false)
     */
    boolean forEachKeyOf(Collection<? extends CharSequence> values, Predicate<? super String> action);

    /** Whether the current generation carries a reverse index (writer option {@code --reverse-index}). */
    boolean hasReverseIndex();

    /**
     * How fresh this namespace is: whether its writer is alive (judged from the heartbeat it keeps in the store, by
     * this process's own clock, as of the last refresh), when it was last seen alive, since when the content has been
     * current with the topic, and the writer's lag in records. Cheap: reads a few words, allocates one small value.
     */
    LookupStatus status();
}
