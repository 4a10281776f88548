package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.StringLength;
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

    /** The reader hashes ASCII String keys from their chars: it must agree with the hash of their bytes. */
    @Property
    void hashIfAscii_equalsTheHashOfTheBytes(
            @ForAll @CharRange(from = 0, to = 0x7F) @StringLength(max = 200) String s) {
        assertThat(Xxh64.hashIfAscii(s)).isEqualTo(hash(s));
    }

    /** One char of 0x80 or above, anywhere (in a whole word or in the tail): the key is not hashed from its chars. */
    @Property
    void hashIfAscii_tellsAKeyThatIsNotAscii(
            @ForAll @CharRange(from = 0, to = 0x7F) @StringLength(max = 200) String s,
            @ForAll @CharRange(from = 0x80, to = 0xFFFF) char other,
            @ForAll int at) {
        int i = Math.floorMod(at, s.length() + 1);
        assertThat(Xxh64.hashIfAscii(s.substring(0, i) + other + s.substring(i)))
                .isEqualTo(Xxh64.NOT_ASCII);
    }

    @Property
    void hashShort_ofTheKeysWords_equalsTheHashOfTheBytes(
            @ForAll @CharRange(from = 0, to = 0x7F) @StringLength(max = 16) String s) {
        long w0 = 0;
        long w1 = 0;
        for (int i = 0; i < s.length(); i++) {
            if (i < 8) {
                w0 |= (long) s.charAt(i) << (8 * i);
            } else {
                w1 |= (long) s.charAt(i) << (8 * (i - 8));
            }
        }
        assertThat(Xxh64.hashShort(w0, w1, s.length())).isEqualTo(hash(s));
    }
}
