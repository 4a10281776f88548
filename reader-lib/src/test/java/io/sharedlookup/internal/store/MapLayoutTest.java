package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A layout read from a manifest is checked before a reader derives any offset from it. */
class MapLayoutTest {
    private static Map<String, String> sample() {
        return new TreeMap<>(ManifestTest.sampleLayout().toProperties("layout."));
    }

    @Test
    void readFrom_ofItsOwnProperties_givesTheSameLayout() {
        assertThat(MapLayout.readFrom("layout.", sample())).isEqualTo(ManifestTest.sampleLayout());
    }

    /**
     * Numbers whose products or sums wrap round in 64-bit (or, for the bit counts, 32-bit) arithmetic into values
     * that would pass the checks, after which a reader would index outside its tiers: each must be refused.
     */
    @ParameterizedTest
    @CsvSource({
        "hash.lookup.capacity, 4611686018427387904, counters offset", // 2^62 slots of 4 bytes: 2^64 wraps to 0
        "chunk.size, 4611686018427387904, entry space", // 2^62 bytes times 8,250 chunks wraps
        "max.extra.tiers, 1099511627776, max extra tiers", // 2^40 extra tiers: bulk numbers past an int
        "max.extra.tiers, -1, max extra tiers",
        "hash.lookup.key.bits, 2147483647, slot bits", // with the next: a sum that wraps to a small int
        "tiers.in.bulk, 4611686018427387904, tier bulk size",
        "segments.offset, 9223372036854775000, base size"
    })
    void readFrom_refusesNumbersThatWouldWrapRound(String name, String value, String complaint) {
        Map<String, String> properties = sample();
        properties.put("layout." + name, value);
        if (name.equals("hash.lookup.key.bits")) {
            properties.put("layout.hash.lookup.value.bits", value);
        }
        assertThatThrownBy(() -> MapLayout.readFrom("layout.", properties))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("inconsistent map layout: " + complaint);
    }
}
