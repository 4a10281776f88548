package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.algo.hashing.LongHashFunction;

/** reader-lib's own XXH64 must hash every byte string exactly as Chronicle Map does, or readers miss keys. */
class Xxh64AgainstChronicleTest {
    @Property(tries = 2000)
    void hash_equalsChronicles(@ForAll @Size(max = 200) byte[] bytes) {
        assertThat(Xxh64.hash(bytes, bytes.length))
                .isEqualTo(LongHashFunction.xx_r39().hashBytes(bytes));
    }
}
