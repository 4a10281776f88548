package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.SequenceFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the writer relies on when the file system refuses to extend a generation (see DiskFullTest in the reliability
 * suite for the real full disk): the length GenerationFile cuts a file back to after a refused extension is exactly
 * the length each successful extension leaves, so cutting back never removes a byte Chronicle uses.
 */
class GenerationFileExtensionTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void allocatedLength_equalsTheFileLength_throughEveryExtraTierBulk() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        // Sized for 1,000 small entries, filled with 1.7x as many larger ones: Chronicle adds extra tier bulks.
        try (GenerationFile g =
                GenerationFile.create(file, GenerationSizing.forExpected(1_000, 4, 8), StorePermissions.DEFAULT)) {
            assertThat(g.allocatedLength()).isEqualTo(Files.size(file));
            long initial = Files.size(file);
            int extensions = 0;
            long last = initial;
            for (int i = 0; i < 1_700; i++) {
                g.put("key-" + i, "value-" + i + "-" + "v".repeat(i % 40), TIMEOUT);
                long size = Files.size(file);
                if (size != last) {
                    extensions++;
                    last = size;
                }
                assertThat(g.allocatedLength()).as("after %d puts", i + 1).isEqualTo(size);
            }
            assertThat(extensions).as("extra tier bulks were added").isGreaterThan(0);
        }
    }

    @Test
    void sequenceFile_isWrittenOutNotSparse() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        try (GenerationFile g =
                GenerationFile.create(file, GenerationSizing.forExpected(1_000, 4, 8), StorePermissions.DEFAULT)) {
            Path seq = SequenceFile.of(file);
            Process stat = new ProcessBuilder("stat", "--format=%b %B", seq.toString()).start();
            String[] out =
                    new String(stat.getInputStream().readAllBytes()).trim().split(" ");
            assertThat(stat.waitFor()).isZero();
            long blocks = Long.parseLong(out[0]) * Long.parseLong(out[1]); // bytes the file system gave it
            assertThat(blocks).isGreaterThanOrEqualTo(Files.size(seq));
        }
    }
}
