package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** A pair's digest term is exactly the one the format defines, however it is computed. */
class ContentDigestTermTest {
    /** The definition: XXH64 of the key's UTF-8 bytes, 0xFF, the value's UTF-8 bytes. */
    private static long byDefinition(String key, String value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] pair = new byte[k.length + 1 + v.length];
        System.arraycopy(k, 0, pair, 0, k.length);
        pair[k.length] = (byte) 0xFF;
        System.arraycopy(v, 0, pair, k.length + 1, v.length);
        return Xxh64.hash(pair, pair.length);
    }

    @Property
    void of_anyPair_isTheDefinedTerm(@ForAll String key, @ForAll String value) {
        assertThat(ContentDigest.of(key, value)).isEqualTo(byDefinition(key, value));
    }

    @Test
    void of_unpairedSurrogatesAndLongText_areTheDefinedTerm() {
        String[] texts = {
            "", "a", "\uD83D", "x\uDE42y", "\uD83D\uDE42", "Zoë ✓ 🙂", "é".repeat(5_000), "✓".repeat(30_000)
        };
        for (String k : texts) {
            for (String v : texts) {
                assertThat(ContentDigest.of(k, v)).as("%s / %s", k, v).isEqualTo(byDefinition(k, v));
            }
        }
    }

    @Test
    void of_onceWarm_allocatesNothing() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        StringBuilder key = new StringBuilder("user-1234567");
        StringBuilder value = new StringBuilder("User name 1234567");
        long sink = 0;
        for (int i = 0; i < 20_000; i++) {
            sink += ContentDigest.of(key, value);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 10_000; i++) {
            sink += ContentDigest.of(key, value);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated)
                .as("bytes allocated by 10,000 terms (sink %d)", sink)
                .isLessThan(1_000);
    }
}
