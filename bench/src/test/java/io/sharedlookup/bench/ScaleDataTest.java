package io.sharedlookup.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The scale part's records are as long as issue #42 asks (~20-char keys, ~40-byte values), distinct and stable. */
class ScaleDataTest {
    @Test
    void keysAreTwentyCharactersAndDistinctValuesAverageFortyBytes() {
        Set<String> keys = new HashSet<>();
        long valueBytes = 0;
        int n = 100_000;
        for (long i = 0; i < n; i++) {
            String key = ScaleData.key(i);
            assertThat(key).hasSize(20).startsWith("user-");
            keys.add(key);
            byte[] value = ScaleData.valueBytes(i);
            assertThat(value.length).isBetween(36, 44);
            valueBytes += value.length;
        }
        assertThat(keys).hasSize(n);
        assertThat(valueBytes / (double) n).isBetween(39.0, 41.0);
        assertThat(ScaleData.key(99_999_999L)).isEqualTo("user-000000099999999");
        assertThat(ScaleData.value(7)).isEqualTo(ScaleData.value(7)).startsWith("name-7 ");
    }

    @Test
    void diskEstimateAtOneHundredMillionIsAboutSeventyThreeGigabytes() {
        assertThat(ScaleHarness.diskNeeded(100_000_000L)).isBetween(70_000_000_000L, 75_000_000_000L);
    }
}
