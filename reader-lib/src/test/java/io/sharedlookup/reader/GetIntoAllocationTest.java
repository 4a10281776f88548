package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Principle 5: zero garbage per lookup on the getInto path, hits and misses alike, for every key shape of the golden
 * stores ({@link GoldenFiles}): short numeric ids with short values and an empty one ({@code ids}), ~20-char ASCII
 * ids with ~200-byte and 2-3 KB values ({@code names}: the general key path and the bulk value copy), UUIDs, and
 * non-ASCII keys and values ({@code unicode}: keys encoded into a per-thread buffer first). Keys are Strings and
 * StringBuilders, half of the calls misses.
 */
class GetIntoAllocationTest {
    private static final int CALLS = 200_000;

    @TempDir
    static Path tmp;

    private static SharedLookupStore store;

    @BeforeAll
    static void open() throws Exception {
        store = SharedLookupStore.open(GoldenFiles.copyStoreTo(tmp.resolve("store")));
    }

    @AfterAll
    static void close() {
        store.close();
    }

    static List<String> keyShapes() {
        return List.of("ids", "names", "uuids", "unicode");
    }

    /** Namespaces whose values are all Latin-1, whose Strings the JVM stores one byte per char. */
    static List<String> latin1Values() {
        return List.of("ids", "names", "uuids");
    }

    @ParameterizedTest
    @MethodSource("keyShapes")
    void getIntoAStringBuilderAllocatesNothing(String namespace) {
        Lookup lookup = store.lookup(namespace);
        CharSequence[] keys = hitsAndMisses(namespace);
        StringBuilder out = new StringBuilder();
        Runnable calls = () -> {
            for (int i = 0; i < CALLS; i++) {
                lookup.getInto(keys[i % keys.length], out);
            }
        };
        warmUp(calls);
        assertThat(allocatedBy(calls, 0))
                .as("bytes allocated by %d getInto(StringBuilder) calls in %s", CALLS, namespace)
                .isZero();
        assertThat(found(keys, k -> lookup.getInto(k, out))).isEqualTo(hits(keys.length));
    }

    @ParameterizedTest
    @MethodSource("keyShapes")
    void getIntoAValueBufferAllocatesNothing(String namespace) {
        Lookup lookup = store.lookup(namespace);
        CharSequence[] keys = hitsAndMisses(namespace);
        ValueBuffer out = new ValueBuffer();
        Runnable calls = () -> {
            for (int i = 0; i < CALLS; i++) {
                lookup.getInto(keys[i % keys.length], out);
            }
        };
        warmUp(calls);
        assertThat(allocatedBy(calls, 0))
                .as("bytes allocated by %d getInto(ValueBuffer) calls in %s", CALLS, namespace)
                .isZero();
        assertThat(found(keys, k -> lookup.getInto(k, out))).isEqualTo(hits(keys.length));
    }

    /** The batch lookup, in batches of 40 (more than one internal batch, and a partial one). */
    @ParameterizedTest
    @MethodSource("keyShapes")
    void getAllIntoAllocatesNothing(String namespace) {
        Lookup lookup = store.lookup(namespace);
        CharSequence[] keys = hitsAndMisses(namespace);
        ValueBuffer[] values = new ValueBuffer[40];
        for (int i = 0; i < values.length; i++) {
            values[i] = new ValueBuffer();
        }
        CharSequence[] batch = new CharSequence[values.length];
        Runnable calls = () -> {
            for (int call = 0; call < CALLS; call += batch.length) {
                for (int i = 0; i < batch.length; i++) {
                    batch[i] = keys[(call + i) % keys.length];
                }
                lookup.getAllInto(batch, values, batch.length);
            }
        };
        warmUp(calls);
        assertThat(allocatedBy(calls, 0))
                .as("bytes allocated by getAllInto of %d keys in %s", CALLS, namespace)
                .isZero();
    }

    /**
     * {@code get} allocates the returned {@code String} and nothing else: compared with a loop that makes the same
     * Strings from their bytes (String and array sizes depend on the JVM's layout).
     */
    @ParameterizedTest
    @MethodSource("latin1Values")
    void getAllocatesOnlyTheReturnedString(String namespace) {
        Lookup lookup = store.lookup(namespace);
        CharSequence[] keys = hitsAndMisses(namespace);
        Map<String, String> expected = GoldenFiles.expected(namespace);
        byte[][] valueBytes = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            String value = expected.get(keys[i].toString());
            valueBytes[i] = value == null ? null : value.getBytes(StandardCharsets.ISO_8859_1);
        }
        String[] sink = new String[64];
        Runnable gets = () -> {
            for (int i = 0; i < CALLS; i++) {
                sink[i & 63] = lookup.get(keys[i % keys.length]);
            }
        };
        Runnable strings = () -> { // the same Strings, each made from its bytes: one String per hit
            for (int i = 0; i < CALLS; i++) {
                byte[] b = valueBytes[i % keys.length];
                sink[i & 63] = b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
            }
        };
        warmUp(gets);
        warmUp(strings);
        long expectedBytes = allocatedBy(strings, Long.MAX_VALUE);
        assertThat(expectedBytes).as("bytes of the Strings").isPositive();
        assertThat(allocatedBy(gets, expectedBytes))
                .as("bytes allocated by %d get calls in %s, half of them hits", CALLS, namespace)
                .isEqualTo(expectedBytes);
    }

    /**
     * The namespace's keys and its absent keys alternately (hits at even positions), every fourth key a
     * StringBuilder.
     */
    private static CharSequence[] hitsAndMisses(String namespace) {
        List<String> hits = List.copyOf(GoldenFiles.expected(namespace).keySet());
        List<String> misses = GoldenFiles.absent(namespace);
        CharSequence[] keys = new CharSequence[hits.size() * 2];
        for (int i = 0; i < hits.size(); i++) {
            keys[2 * i] = i % 2 == 1 ? new StringBuilder(hits.get(i)) : hits.get(i);
            keys[2 * i + 1] = misses.get(i % misses.size());
        }
        return keys;
    }

    private static long hits(int keys) {
        return keys / 2;
    }

    private static long found(CharSequence[] keys, java.util.function.Predicate<CharSequence> lookup) {
        long found = 0;
        for (CharSequence key : keys) {
            if (lookup.test(key)) {
                found++;
            }
        }
        return found;
    }

    /** The JIT and the per-thread buffers settle. */
    private static void warmUp(Runnable calls) {
        for (int round = 0; round < 5; round++) {
            calls.run();
        }
    }

    /**
     * The bytes {@code calls} allocates in steady state, retried until a round allocates {@code expected} bytes (at
     * most 3 rounds): a one-off allocation while the JIT settles (seen on JDK 25: 296 bytes once on the non-ASCII
     * path) is not garbage per call, which would show in every round.
     */
    private static long allocatedBy(Runnable calls, long expected) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long allocated = -1;
        for (int measured = 0; allocated != expected && measured < 3; measured++) {
            long before = threads.getThreadAllocatedBytes(tid);
            calls.run();
            allocated = threads.getThreadAllocatedBytes(tid) - before;
        }
        return allocated;
    }
}
