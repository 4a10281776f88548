package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.SequenceFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentCountersTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void everyChange_leavesItsSegmentsCounterEvenAndHigher() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (GenerationFile g =
                GenerationFile.create(file, GenerationSizing.forExpected(100, 4, 4), StorePermissions.DEFAULT)) {
            long[] before = counters(g);
            g.put("a", "1", TIMEOUT);
            g.put("a", "22", TIMEOUT);
            g.remove("a", TIMEOUT);
            long[] after = counters(g);
            long moved = 0;
            for (int s = 0; s < before.length; s++) {
                assertThat(after[s]).isEven().isGreaterThanOrEqualTo(before[s]);
                moved += after[s] - before[s];
            }
            assertThat(moved).as("two per change").isEqualTo(6);
        }
    }

    @Test
    void open_ofAFileWithAnOddCounter_movesItOnToEven() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        GenerationFile.create(file, GenerationSizing.forExpected(100, 4, 4), StorePermissions.DEFAULT)
                .close();
        // As after a power loss: the unsynced counter file kept a change's first half.
        try (FileChannel ch = FileChannel.open(SequenceFile.of(file), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, 7), 0);
        }
        try (GenerationFile g = GenerationFile.open(file, 100)) {
            assertThat(g.sequence(0)).isEqualTo(8);
        }
    }

    private static long[] counters(GenerationFile g) {
        long[] out = new long[g.layout().segments()];
        for (int s = 0; s < out.length; s++) {
            out[s] = g.sequence(s);
        }
        return out;
    }
}
