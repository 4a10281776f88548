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

    /** Non-ASCII keys take another path (Chronicle's query context rather than the direct reader): also garbage-free. */
    @Test
    void getIntoAllocatesNothingWithNonAsciiKeys() throws Exception {
        assertNoAllocation("usér-", "nöbody-");
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
