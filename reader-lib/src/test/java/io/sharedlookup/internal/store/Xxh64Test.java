package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Known XXH64 (seed 0) values; the writer's tests also compare with Chronicle's own implementation on random input. */
class Xxh64Test {
    private static long hash(String s) {
        byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
        return Xxh64.hash(b, b.length);
    }

    @Test
    void hash_matchesTheReferenceValues() {
        assertThat(hash("")).isEqualTo(0xEF46DB3751D8E999L);
        assertThat(hash("abc")).isEqualTo(0x44BC2CF5AD770999L);
        assertThat(hash("Nobody inspects the spammish repetition")).isEqualTo(0xFBCEA83C8A378BF1L);
    }
}
