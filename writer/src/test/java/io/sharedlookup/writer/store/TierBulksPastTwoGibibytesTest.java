package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.Utf8Text;
import io.sharedlookup.testing.ChildJvm;
import io.sharedlookup.testing.TempTrees;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Issue #42: no size ceiling below the disk. Chronicle allocates extra tiers in bulks of {@code segments / 8} tiers,
 * which pass 2 GiB in large namespaces (64M entries of 16-byte keys and 200-byte values); the writer used to refuse
 * such a generation and readers could not map it. Here a file with few entries is laid out to the same effect: 32
 * segments of 600 MiB tiers (a hash lookup of a few slots, 600 chunks of 1 MiB), so 4 tiers to a bulk, 2.35 GiB each,
 * starting 18.8 GiB into the file. Keys are put until a third bulk is allocated, so every bulk holds some, and a reader
 * in a separate JVM reads every key. The file is sparse: only the pages written take disk.
 */
class TierBulksPastTwoGibibytesTest {
    private static final int SEGMENTS = 32;
    private static final int CHUNK_BYTES = 1 << 20;
    private static final int CHUNKS_PER_TIER = 600;
    private static final int BULKS = 3;

    private Path dir;
    private Path logs;

    @BeforeEach
    void dirs(TestInfo test) throws Exception {
        // the virtual size is ~26 GB, the pages written a few MB: still, never where the disk is nearly full
        Path target = Path.of("target");
        Assumptions.assumeTrue(
                Files.getFileStore(target.toAbsolutePath()).getUsableSpace() > (4L << 30),
                "needs a few GiB of free disk for the sparse file's written pages");
        dir = Files.createTempDirectory(target, "big-bulks");
        logs = Files.createDirectories(target.resolve("child-logs")
                .resolve(test.getTestMethod().orElseThrow().getName()));
    }

    @AfterEach
    void deleteFiles() throws Exception {
        TempTrees.delete(dir);
    }

    @Test
    void keysInEveryTierBulkPastTwoGibibytes_areReadFromAReaderJvm() throws Exception {
        Path file = dir.resolve("g0000000001.cmap");
        Map<String, String> content = new HashMap<>();
        MapLayout layout;
        try (ChronicleMap<CharSequence, CharSequence> map = ChronicleMapBuilder.of(
                        CharSequence.class, CharSequence.class)
                .skipCloseOnExitHook(true)
                .checksumEntries(false)
                .actualSegments(SEGMENTS)
                .entriesPerSegment(8)
                .actualChunkSize(CHUNK_BYTES)
                .actualChunksPerSegmentTier(CHUNKS_PER_TIER)
                .sparseFile(true)
                .createPersistedTo(file.toFile())) {
            // before the fix the writer refused this layout here ("inconsistent map layout: tier bulk size")
            layout = ChronicleLayouts.of(map, file);
            assertThat(layout.tierBulkSize()).as("a bulk").isGreaterThan(2L << 30);
            assertThat(layout.baseSize()).as("where the bulks start").isGreaterThan(16L << 30);

            for (int i = 0; bulksAllocated(map, layout) < BULKS; i++) {
                String key = "key-" + i;
                String value = "value " + i + " " + "v".repeat(i % 50);
                map.put(key, value);
                content.put(key, value);
                assertThat(i).as("puts before %s bulks were allocated", BULKS).isLessThan(100_000);
            }
            // every counter even: no change in progress
            Files.write(SequenceFile.of(file), new byte[layout.segments() * SequenceFile.STRIDE]);
        }
        Path layoutFile = dir.resolve("layout.properties");
        Properties properties = new Properties();
        properties.putAll(layout.toProperties("layout."));
        try (OutputStream out = Files.newOutputStream(layoutFile)) {
            properties.store(out, null);
        }

        try (ChildJvm reader = ChildJvm.start(
                "big-bulks-reader",
                logs,
                ReadEveryKey.class,
                file.toString(),
                layoutFile.toString(),
                Integer.toString(content.size()))) {
            assertThat(reader.awaitExit())
                    .as("reader exit code; output: %s", reader.lines())
                    .isZero();
            assertThat(reader.lines()).contains("READ " + content.size() + " OF " + content.size());
        }
    }

    /** The extra tier bulks Chronicle has allocated in {@code map}'s file so far. */
    private static long bulksAllocated(ChronicleMap<?, ?> map, MapLayout layout) {
        return Math.max(0, AllocatedTail.allocatedLength(map) - layout.baseSize()) / layout.tierBulkSize();
    }

    /**
     * The reader JVM: maps the file read-only with reader-lib alone and looks up {@code key-0 .. key-<n-1>}; prints
     * {@code WRONG key value} for each miss and then {@code READ found OF n}.
     */
    public static final class ReadEveryKey {
        private ReadEveryKey() {}

        public static void main(String[] args) throws Exception {
            Path file = Path.of(args[0]);
            Properties properties = new Properties();
            try (var in = Files.newInputStream(Path.of(args[1]))) {
                properties.load(in);
            }
            Map<String, String> layoutProperties = new HashMap<>();
            properties.stringPropertyNames().forEach(name -> layoutProperties.put(name, properties.getProperty(name)));
            MapLayout layout = MapLayout.readFrom("layout.", layoutProperties);
            int keys = Integer.parseInt(args[2]);
            MappedMap map = MappedMap.open(file, SequenceFile.of(file), layout);
            Utf8Text value = new Utf8Text();
            int found = 0;
            for (int i = 0; i < keys; i++) {
                String expected = "value " + i + " " + "v".repeat(i % 50);
                int result = map.getInto("key-" + i, value, TimeUnit.SECONDS.toNanos(10));
                if (result == MappedMap.PRESENT && value.toString().equals(expected)) {
                    found++;
                } else {
                    System.out.println("WRONG key-" + i + " " + result + " " + value);
                }
            }
            System.out.println("READ " + found + " OF " + keys);
        }
    }
}
