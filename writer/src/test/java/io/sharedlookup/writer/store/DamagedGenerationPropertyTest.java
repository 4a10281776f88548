package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sharedlookup.internal.store.LockTimeoutException;
import io.sharedlookup.internal.store.LookupBatch;
import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import io.sharedlookup.internal.store.Utf8Text;
import io.sharedlookup.testing.TempTrees;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue #12: "Reading a half-changed entry must never crash, loop forever or read outside the mapping: every offset
 * is checked." A torn read is damage the reader sees for an instant, so the reader is given damage that stays: a
 * generation the writer filled (extra tiers, entries of many chunks, non-ASCII text) is copied, the copy is damaged at
 * random where a reader's offsets come from (segment headers and their tier links, hash-lookup slots, entries' sizes
 * and bytes, extra tiers' counters, the sequence counters, anywhere), and every read form runs on it. Each must end,
 * within a bound, with an answer, with "corrupt" ({@link StoreFormatException}) or with "stayed mid-change"
 * ({@link LockTimeoutException} or the timed-out result): any other exception (an index out of bounds, a negative
 * array size, an out-of-memory error) or a read that does not end fails the property.
 */
class DamagedGenerationPropertyTest {
    /** Short: a counter damaged to odd makes every read of its segment wait this long, then report it. */
    private static final long TIMEOUT = TimeUnit.MICROSECONDS.toNanos(200);
    /** Keys read per try, besides the absent ones: enough to reach every tier of the 4 segments many times over. */
    private static final int PROBES = 500;

    private static Path dir;
    private static Path original;
    private static MapLayout layout;
    private static final List<String> KEYS = new ArrayList<>();
    private static final AtomicInteger COPIES = new AtomicInteger();

    @BeforeContainer
    static void writeGeneration() throws Exception {
        dir = Files.createTempDirectory("damaged-generation");
        original = dir.resolve("g0000000001.cmap");
        // Small on purpose (as in ReadOnlyReaderPropertyTest): 2,500 entries overflow 1,024 into extra tiers.
        try (GenerationFile g =
                GenerationFile.create(original, new GenerationSizing(1024, 4, 4, 8.0), StorePermissions.DEFAULT)) {
            layout = g.layout();
            long timeout = TimeUnit.SECONDS.toNanos(1);
            for (int i = 0; i < 2500; i++) {
                KEYS.add("id" + i);
                g.put("id" + i, "value " + i, timeout);
            }
            for (int i = 0; i < 100; i++) {
                String key = i % 2 == 0 ? "ключ-" + i : "a rather longer key, past the short path's sixteen chars " + i;
                KEYS.add(key);
                String value = i % 10 == 1 ? "x".repeat(30 * i) : "名前 " + i; // up to 2,730 bytes: many chunks
                g.put(key, value, timeout);
            }
            assertThat(Files.size(original)).as("extra tier bulks appended").isGreaterThan(layout.baseSize());
        }
    }

    @AfterContainer
    static void deleteDir() throws Exception {
        TempTrees.delete(dir);
    }

    /** Where a damage lands: the parts of the file a reader takes offsets or sizes from, or anywhere. */
    enum Region {
        SEGMENT_HEADER,
        HASH_LOOKUP,
        ENTRY,
        TIER_COUNTERS,
        SEQUENCE,
        ANYWHERE
    }

    /** What is written there: one byte, or a whole 8-byte word (a tier link, a slot, a counter). */
    record Damage(Region region, long position, int what, long word) {}

    @Provide
    Arbitrary<List<Damage>> damages() {
        Arbitrary<Long> words = Arbitraries.oneOf(
                Arbitraries.longs(), // anything
                Arbitraries.longs().between(0, 64), // a tier number, existing or not; a small size or chunk
                Arbitraries.of(-1L, Long.MIN_VALUE, Long.MAX_VALUE, 0xFFFFFFFFL, 0x80808080_80808080L, 1L));
        Arbitrary<Damage> damage = Combinators.combine(
                        Arbitraries.of(Region.class),
                        Arbitraries.longs().greaterOrEqual(0),
                        Arbitraries.integers().between(0, 3),
                        words)
                .as(Damage::new);
        return damage.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 200)
    void aDamagedGeneration_isReadWithinItsBoundsAndEveryReadEnds(
            @ForAll("damages") List<Damage> damages, @ForAll long seed) throws Exception {
        Path copy = dir.resolve("copy-" + COPIES.incrementAndGet() + ".cmap");
        Files.copy(original, copy);
        Files.copy(SequenceFile.of(original), SequenceFile.of(copy));
        try {
            for (Damage d : damages) {
                damage(copy, d);
            }
            List<String> outcomes = new ArrayList<>();
            assertTimeoutPreemptively(
                    Duration.ofSeconds(30),
                    () -> readEverything(copy, new Random(seed), outcomes),
                    "a read of the damaged file did not end");
            Statistics.collect(outcomes.contains("corrupt") ? "some read said corrupt" : "every read answered");
        } finally {
            Files.deleteIfExists(copy);
            Files.deleteIfExists(SequenceFile.of(copy));
        }
    }

    /** Every read form on the damaged copy; notes in {@code outcomes} whether one said "corrupt". */
    private static void readEverything(Path file, Random random, List<String> outcomes) {
        MappedMap map;
        try {
            map = MappedMap.open(file, SequenceFile.of(file), layout);
        } catch (StoreFormatException e) {
            outcomes.add("corrupt"); // the header's length word damaged: refused at open, in one line
            return;
        }
        try {
            List<String> probes = new ArrayList<>();
            for (int i = 0; i < PROBES; i++) {
                probes.add(KEYS.get(random.nextInt(KEYS.size())));
            }
            probes.add("absent");
            probes.add("not there either, and longer than sixteen");
            probes.add("ни здесь");
            Utf8Text bytes = new Utf8Text();
            StringBuilder chars = new StringBuilder();
            for (String key : probes) {
                read(outcomes, () -> map.getInto(key, bytes, TIMEOUT));
                read(outcomes, () -> map.getInto(new StringBuilder(key), chars, TIMEOUT)); // not a String: general path
            }
            LookupBatch batch = new LookupBatch();
            for (int i = 0; i < LookupBatch.SIZE; i++) {
                batch.out[i] = new Utf8Text();
            }
            CharSequence[] keys = probes.toArray(new CharSequence[0]);
            for (int from = 0; from < keys.length; ) {
                int n = Math.min(1 + random.nextInt(LookupBatch.SIZE), keys.length - from);
                int start = from;
                read(outcomes, () -> map.getAllInto(keys, start, n, batch, TIMEOUT));
                from += n;
            }
            read(outcomes, () -> (int) map.size(TIMEOUT));
            read(outcomes, () -> map.forEachWhile((k, v) -> k.length() >= 0 && v.length() >= 0, TIMEOUT) ? 1 : 0);
        } finally {
            map.close();
        }
    }

    private interface Read {
        int run();
    }

    /** Runs one read: an answer, "corrupt" and "stayed mid-change" are the outcomes allowed; anything else escapes. */
    private static void read(List<String> outcomes, Read read) {
        try {
            read.run();
        } catch (StoreFormatException e) {
            assertThat(e).hasMessageContaining("corrupt");
            if (outcomes.isEmpty()) {
                outcomes.add("corrupt");
            }
        } catch (LockTimeoutException e) {
            // a sequence counter damaged to odd: as a writer that died mid-change leaves it
        }
    }

    private static void damage(Path file, Damage d) throws Exception {
        long mapSize = Files.size(file);
        Path target = d.region() == Region.SEQUENCE ? SequenceFile.of(file) : file;
        try (FileChannel ch = FileChannel.open(target, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long at = at(mapSize, ch, d);
            ByteBuffer bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            if (d.what() == 0) { // one byte: often a stop-bit size's continuation bit, or part of a key or value
                bytes.put((byte) d.word()).flip();
            } else {
                bytes.putLong(d.word()).flip();
            }
            at = Math.max(0, Math.min(at, ch.size() - bytes.remaining()));
            ch.write(bytes, at);
        }
    }

    /** The damage's offset in its file ({@code ch}): a place in its region picked by {@code position}. */
    private static long at(long mapSize, FileChannel ch, Damage d) throws Exception {
        long p = d.position();
        long tiers = (mapSize - layout.baseSize()) / layout.tierBulkSize() * layout.tiersInBulk() + layout.segments();
        long tierStart = tierStart(1 + Math.floorMod(p, tiers));
        switch (d.region()) {
            case SEGMENT_HEADER: { // entries, next tier, deleted: the fields a reader reads
                long field = new long[] {8, 16, 24}[(int) Math.floorMod(p >>> 20, 3L)];
                return layout.segmentHeadersOffset()
                        + Math.floorMod(p, (long) layout.segments()) * layout.segmentHeaderSize()
                        + field;
            }
            case HASH_LOOKUP:
                return tierStart + Math.floorMod(p >>> 20, layout.hashLookupCapacity()) * layout.slotSize();
            case ENTRY: { // a few bytes into an entry a slot names: its sizes, or its key or value
                long slot = firstUsedSlot(ch, tierStart, p >>> 20);
                long chunk = (slot >>> layout.keyBits()) & ((1L << layout.valueBits()) - 1);
                return tierStart
                        + layout.entrySpaceOffset()
                        + chunk * layout.chunkSize()
                        + Math.floorMod(p >>> 40, 24L);
            }
            case TIER_COUNTERS:
                return tierStart + layout.countersOffset() + new long[] {0, 32, 36}[(int) Math.floorMod(p >>> 20, 3L)];
            case SEQUENCE: // a counter left odd (a writer that died mid-change) or moved
                return Math.floorMod(p, (long) layout.segments()) * SequenceFile.STRIDE;
            default:
                return Math.floorMod(p, ch.size());
        }
    }

    /** Where tier {@code tier} (1-based, as Chronicle counts) starts in the file. */
    private static long tierStart(long tier) {
        if (tier <= layout.segments()) {
            return layout.segmentsOffset() + (tier - 1) * layout.tierSize();
        }
        long extra = tier - 1 - layout.segments();
        return layout.baseSize()
                + extra / layout.tiersInBulk() * layout.tierBulkSize()
                + layout.tierBulkInnerOffset()
                + extra % layout.tiersInBulk() * layout.tierSize();
    }

    /** The first non-empty hash-lookup slot of the tier at {@code tierStart}, from slot {@code from} on; 0 if none. */
    private static long firstUsedSlot(FileChannel ch, long tierStart, long from) throws Exception {
        ByteBuffer slot = ByteBuffer.allocate(layout.slotSize()).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < layout.hashLookupCapacity(); i++) {
            long index = Math.floorMod(from + i, layout.hashLookupCapacity());
            slot.clear();
            ch.read(slot, tierStart + index * layout.slotSize());
            long value = layout.slotSize() == 4 ? slot.getInt(0) & 0xFFFFFFFFL : slot.getLong(0);
            if (value != 0) {
                return value;
            }
        }
        return 0;
    }
}
