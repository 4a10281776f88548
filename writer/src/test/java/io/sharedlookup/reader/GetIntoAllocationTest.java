package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TestStores;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Principle 5: zero garbage per lookup on the getInto path, hits and misses alike. */
class GetIntoAllocationTest {
    private static final int KEYS = 10_000;
    private static final int CALLS = 200_000;

    @TempDir
    Path store;

    @Test
    void getIntoAllocatesNothingAfterWarmUp() throws Exception {
        assertNoAllocation("user-", "nobody-");
    }

    /** Non-ASCII keys are encoded into a per-thread buffer first: also garbage-free. */
    @Test
    void getIntoAllocatesNothingWithNonAsciiKeys() throws Exception {
        assertNoAllocation("usér-", "nöbody-");
    }

    /**
     * Short ASCII {@code String} keys into a {@link ValueBuffer} (the first, shortest attempt), longer ones (the
     * general path), values ASCII and not.
     */
    @Test
    void getIntoAValueBufferAllocatesNothing() throws Exception {
        assertNoAllocationIntoValueBuffer("user-", "nobody-");
        assertNoAllocationIntoValueBuffer("a-user-with-a-long-id-", "nobody-with-a-long-id-");
    }

    private void assertNoAllocationIntoValueBuffer(String hitPrefix, String missPrefix) throws Exception {
        Map<String, String> content = content(hitPrefix);
        String[] keys = new String[KEYS * 2];
        for (int i = 0; i < KEYS; i++) {
            keys[2 * i] = hitPrefix + i;
            keys[2 * i + 1] = missPrefix + i;
        }
        try (TestStores.Published ignored = TestStores.publish(store, "users-" + hitPrefix.length(), content);
             SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup users = s.lookup("users-" + hitPrefix.length());
            ValueBuffer value = new ValueBuffer();
            long found = 0;
            for (int round = 0; round < 5; round++) {
                found += lookups(users, keys, value);
            }
            long allocated = allocatedBy(() -> lookups(users, keys, value));
            assertThat(found).isEqualTo(5L * CALLS / 2);
            assertThat(users.getInto(hitPrefix + 7, value)).isTrue();
            assertThat(value).hasToString("Name number 7 ✓");
            assertThat(users.getInto(hitPrefix + 8, value)).isTrue();
            assertThat(value).hasToString("Name number 8");
            assertThat(allocated).as("bytes allocated by %d getInto calls", CALLS).isZero();
        }
    }

    /** The batch lookup, with short and long keys, hits and misses, ASCII values and not: also garbage-free. */
    @Test
    void getAllIntoAllocatesNothing() throws Exception {
        Map<String, String> content = content("user-");
        CharSequence[] keys = new CharSequence[KEYS * 2];
        for (int i = 0; i < KEYS; i++) {
            keys[2 * i] = (i % 3 == 0 ? "user-" : "nobody-") + i;
            keys[2 * i + 1] = (i % 3 == 0 ? "a-key-too-long-for-the-short-path-" : "user-") + i;
        }
        try (TestStores.Published ignored = TestStores.publish(store, "users-batch", content);
             SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup users = s.lookup("users-batch");
            ValueBuffer[] values = new ValueBuffer[40]; // more than one internal batch, and a partial one
            for (int i = 0; i < values.length; i++) {
                values[i] = new ValueBuffer();
            }
            CharSequence[] batch = new CharSequence[values.length];
            Runnable calls = () -> {
                for (int from = 0; from + batch.length <= keys.length; from += batch.length) {
                    System.arraycopy(keys, from, batch, 0, batch.length);
                    users.getAllInto(batch, values, batch.length);
                }
            };
            for (int round = 0; round < 10; round++) {
                calls.run();
            }
            long allocated = allocatedBy(calls);
            assertThat(users.getAllInto(new CharSequence[] {"user-7", "nobody-7", "user-8"}, values, 3)).isEqualTo(2);
            assertThat(values[0]).hasToString("Name number 7 ✓");
            assertThat(values[1].found()).isFalse();
            assertThat(values[2]).hasToString("Name number 8");
            assertThat(allocated).as("bytes allocated by %d keys in batches", keys.length).isZero();
        }
    }

    /**
     * {@code get} allocates the returned {@code String} and nothing else, whatever the key's shape: short and long
     * ASCII Strings, UUIDs, non-ASCII keys, StringBuilder keys; ASCII and Latin-1 values; hits and misses. Compared
     * with a loop that makes the same Strings from their bytes (String and array sizes depend on the JVM's layout).
     */
    @Test
    void getAllocatesOnlyTheReturnedString() throws Exception {
        Map<String, String> content = new HashMap<>();
        String[] prefixes = {"u", "user:0000", "acct-00012345-region-", "", "ключ-", "名前"};
        CharSequence[] keys = new CharSequence[KEYS * 2];
        byte[][] valueBytes = new byte[keys.length][];
        for (int i = 0; i < KEYS; i++) {
            String prefix = prefixes[i % prefixes.length];
            String key = prefix.isEmpty() ? new java.util.UUID(i, 7L * i).toString() : prefix + i;
            String value = "Name number " + i + (i % 2 == 1 ? " é" : "");
            content.put(key, value);
            keys[2 * i] = i % 4 == 3 ? new StringBuilder(key) : new String(key.toCharArray());
            keys[2 * i + 1] = "nobody-" + key;
            valueBytes[2 * i] = value.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        try (TestStores.Published ignored = TestStores.publish(store, "users-get", content);
             SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup users = s.lookup("users-get");
            String[] sink = new String[64];
            Runnable gets = () -> {
                for (int i = 0; i < CALLS; i++) {
                    sink[i & 63] = users.get(keys[i % keys.length]);
                }
            };
            Runnable strings = () -> { // the same Strings, each made from its bytes: one String per hit
                for (int i = 0; i < CALLS; i++) {
                    byte[] b = valueBytes[i % keys.length];
                    sink[i & 63] = b == null ? null : new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
                }
            };
            for (int round = 0; round < 5; round++) {
                gets.run();
                strings.run();
            }
            assertThat(users.get(keys[14])).isEqualTo("Name number 7 é");
            long expected = allocatedBy(strings, Long.MAX_VALUE);
            long allocated = allocatedBy(gets, expected);
            assertThat(expected).as("bytes of the %d Strings", CALLS / 2).isPositive();
            assertThat(allocated).as("bytes allocated by %d get calls, half of them hits", CALLS)
                    .isEqualTo(expected);
        }
    }

    /** Half hits, half misses; half of the values ASCII. */
    private static long lookups(Lookup users, String[] keys, ValueBuffer value) {
        long found = 0;
        for (int i = 0; i < CALLS; i++) {
            if (users.getInto(keys[i % keys.length], value) && value.length() > 0) {
                found++;
            }
        }
        return found;
    }

    /**
     * The bytes {@code calls} allocates in steady state; a one-off allocation while the JIT settles is retried with
     * another round (garbage per call would show in every round).
     */
    private static long allocatedBy(Runnable calls) {
        return allocatedBy(calls, 0);
    }

    /** {@link #allocatedBy(Runnable)}, retried until a round allocates {@code expected} bytes (at most 3 rounds). */
    private static long allocatedBy(Runnable calls, long expected) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long allocated = -1;
        for (int measured = 0; allocated != expected && measured < 3; measured++) {
            long before = threads.getThreadAllocatedBytes(tid);
            calls.run();
            allocated = threads.getThreadAllocatedBytes(tid) - before;
        }
        return allocated;
    }

    private static Map<String, String> content(String hitPrefix) {
        Map<String, String> content = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            content.put(hitPrefix + i, "Name number " + i + (i % 2 == 1 ? " ✓" : ""));
        }
        return content;
    }

    private void assertNoAllocation(String hitPrefix, String missPrefix) throws Exception {
        Map<String, String> content = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            content.put(hitPrefix + i, "Name number " + i + " ✓");
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (TestStores.Published ignored = TestStores.publish(store, "users", content);
             SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup users = s.lookup("users");
            StringBuilder key = new StringBuilder(32);
            StringBuilder out = new StringBuilder(64);
            long found = 0;
            for (int round = 0; round < 5; round++) { // warm-up: JIT, Chronicle's thread-local contexts
                found += lookups(users, key, out, hitPrefix, missPrefix);
            }
            // Steady state: a round of 200,000 calls that allocates nothing. A one-off allocation while the JIT
            // settles (seen on JDK 25: 296 bytes once on the non-ASCII path) is retried with another round; garbage
            // per call would show in every round (at least 16 bytes x 200,000).
            long tid = Thread.currentThread().getId();
            long allocated = -1;
            int measured = 0;
            while (allocated != 0 && measured < 3) {
                long before = threads.getThreadAllocatedBytes(tid);
                found += lookups(users, key, out, hitPrefix, missPrefix);
                allocated = threads.getThreadAllocatedBytes(tid) - before;
                measured++;
                assertThat(allocated).as("bytes allocated by %d getInto calls", CALLS).isLessThan(CALLS);
            }

            assertThat(found).isEqualTo((5L + measured) * CALLS / 2);
            assertThat(users.getInto(hitPrefix + 7, out)).isTrue();
            assertThat(out.toString()).isEqualTo("Name number 7 ✓");
            assertThat(allocated).as("bytes allocated by %d getInto calls", CALLS).isZero();
        }
    }

    /** Half hits, half misses. */
    private static long lookups(Lookup users, StringBuilder key, StringBuilder out, String hitPrefix,
                                String missPrefix) {
        long found = 0;
        for (int i = 0; i < CALLS; i++) {
            key.setLength(0);
            key.append(i % 2 == 0 ? hitPrefix : missPrefix).append(i % KEYS);
            if (users.getInto(key, out)) {
                found++;
            }
        }
        return found;
    }
}
