package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyPartitionTableTest {
    @Test
    void aKeySeenOnAnotherPartitionIsReportedWithWhereItWasBefore() {
        KeyPartitionTable table = new KeyPartitionTable(1024);
        long key = KeyPartitions.hash("user-1");
        assertThat(table.seen(key, 0, 10)).isNull();
        assertThat(table.seen(key, 0, 11)).as("same partition").isNull();
        assertThat(table.seen(key, 1, 3)).isEqualTo(new KeyPartitionTable.Moved(0, 11));
        assertThat(table.seen(key, 1, 4)).as("now known on partition 1").isNull();
        assertThat(table.seen(KeyPartitions.hash("user-2"), 2, 0))
                .as("another key")
                .isNull();
    }

    @Test
    void millionsOfKeysEachOnOnePartitionFitAFixedTableAndGiveNoFalseReport() {
        KeyPartitionTable table = new KeyPartitionTable(4096);
        int reports = 0;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 2_000_000; i++) {
                String key = "k" + i;
                if (table.seen(KeyPartitions.hash(key), Math.floorMod(key.hashCode(), 12), i) != null) {
                    reports++;
                }
            }
        }
        assertThat(reports).isZero();
        assertThat(table.tracked()).isBetween(1, 2048);
        assertThat(table.sampledShare()).isLessThan(1.0 / 256);
    }

    /** A partitioner change moves many keys: sampled as they are, some of them are seen to move. */
    @Test
    void aChangedPartitionerIsDetectedAmongMillionsOfKeys() {
        KeyPartitionTable table = new KeyPartitionTable(4096);
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 1_000_000; i++) {
            table.seen(KeyPartitions.hash("k" + i), i % 6, i);
        }
        double share = table.sampledShare();
        int reports = 0;
        for (int n = 0; n < 50_000; n++) {
            int i = random.nextInt(1_000_000);
            if (table.seen(KeyPartitions.hash("k" + i), i % 6 + 6, n) != null) {
                reports++;
            }
        }
        // About 50,000 x share (~100 here); well above zero.
        assertThat(reports).isGreaterThan((int) (50_000 * share / 4));
    }

    @Test
    void refusesACapacityThatIsNotAPowerOfTwo() {
        assertThatThrownBy(() -> new KeyPartitionTable(1000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("power of two");
    }
}
