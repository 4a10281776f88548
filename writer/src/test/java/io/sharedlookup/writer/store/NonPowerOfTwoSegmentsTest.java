package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.Utf8Text;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's maps have a power-of-two segment count, which the reader's short-key path splits a hash by with a
 * mask; Chronicle also lays out other counts (hash modulo the count). A file of 3 segments, written by Chronicle
 * itself, must read the same through both of the reader's paths.
 */
class NonPowerOfTwoSegmentsTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void reader_findsEveryKey_whenTheSegmentCountIsNotAPowerOfTwo() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (ChronicleMap<CharSequence, CharSequence> map = ChronicleMapBuilder.of(
                        CharSequence.class, CharSequence.class)
                .skipCloseOnExitHook(true)
                .checksumEntries(false)
                .entries(3000)
                .averageKeySize(8)
                .averageValueSize(16)
                .actualSegments(3)
                .createPersistedTo(file.toFile())) {
            for (int i = 0; i < 2000; i++) {
                map.put(key(i), "value " + i);
            }
            MapLayout layout = ChronicleLayouts.of(map, file);
            assertThat(layout.segments()).isEqualTo(3);
            // every counter even: no change in progress
            Files.write(SequenceFile.of(file), new byte[layout.segments() * SequenceFile.STRIDE]);
            MappedMap reader = MappedMap.open(file, SequenceFile.of(file), layout);

            Utf8Text value = new Utf8Text();
            StringBuilder viaBuilder = new StringBuilder();
            for (int i = 0; i < 2000; i++) {
                assertThat(reader.getInto(key(i), value, TIMEOUT))
                        .as("short key %s", key(i))
                        .isEqualTo(MappedMap.PRESENT);
                assertThat(value.toString()).isEqualTo("value " + i);
                // a CharSequence that is not a String takes the general path
                assertThat(reader.getInto(new StringBuilder(key(i)), viaBuilder, TIMEOUT))
                        .isEqualTo(MappedMap.PRESENT);
                assertThat(viaBuilder.toString()).isEqualTo("value " + i);
            }
            assertThat(reader.getInto(key(5000), value, TIMEOUT)).isEqualTo(MappedMap.ABSENT);
            assertThat(reader.size(TIMEOUT)).isEqualTo(2000);
        }
    }

    private static String key(int i) {
        return "id" + i;
    }
}
