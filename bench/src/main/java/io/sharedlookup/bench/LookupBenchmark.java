package io.sharedlookup.bench;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.reader.ValueBuffer;
import io.sharedlookup.testing.TempTrees;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.druid.query.extraction.MapLookupExtractor;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import redis.clients.jedis.Jedis;

/**
 * Lookup latency on the same data, every peer in the same run, over a matrix of what users have: {@code shape}, the
 * ids' {@link KeyShapes} (7-digit numbers, ~20-char ASCII ids, UUIDs, Cyrillic or CJK ids, and ASCII ids passed as
 * {@code StringBuilder}s), {@code valueBytes}, the values' size, and {@code entries}. reader-lib's {@code getInto}
 * (into a {@code StringBuilder} and into a {@code ValueBuffer}), {@code get} and {@code getAllInto}; a
 * {@code ConcurrentHashMap<String,String>} (what Druid's Kafka lookup keeps on every heap); Druid's own
 * {@code MapLookupExtractor} over such a map; LMDB through lmdbjava; Redis {@code GET} over loopback. {@code bench/run}
 * runs every peer on 7-digit ids and 40 B values, and the matrix on reader-lib and the map alone. Keys are drawn at random from the loaded ids, so every call is a hit and caches see a
 * realistic spread; they are made as a query passes them, with their own chars and no cached hash ({@link KeyPool}
 * says how). For the {@code builder} shape the heap maps take {@code key.toString()}, what a caller holding a
 * {@code StringBuilder} has to do for them.
 *
 * <p>Each peer is its own {@link State}, so a benchmark's fork loads only the store it measures. reader-lib's store is
 * written by the writer from a real broker with several partitions, as in production, in JVMs of their own
 * ({@link LookupStores}, which keeps it for later forks): a fork that had run the writer measured reader-lib slower
 * than a reader JVM would (docs/benchmarks.md, "The measuring JVM"). Heap maps are built from separately created key
 * strings, so a lookup compares characters as it would with keys coming from elsewhere.
 *
 * <p>LMDB: UTF-8 keys and values in direct {@link ByteBuffer}s; every thread keeps one read transaction and, per
 * lookup, {@code renew()}s it, reads, decodes the value into a reused {@link StringBuilder} and {@code reset()}s it
 * (LMDB's recommended pattern for short reads: a transaction held open across lookups would pin old pages). Redis:
 * {@code redis-server} from the PATH, started by the benchmark on a free loopback port without persistence, one
 * Jedis connection per thread; {@code bench/run} leaves the Redis benchmark out when no {@code redis-server} is
 * installed.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {
            "-Xmx6g",
            "-Dchronicle.analytics.disable=true",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            // lmdbjava's fast ByteBuffer proxy sets a direct buffer's address field.
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
        })
@State(Scope.Benchmark)
public class LookupBenchmark {
    @Param({"1000000"})
    public int entries;

    /** The ids' shape: {@code numeric7}, {@code ascii20}, {@code uuid}, {@code nonascii} or {@code builder}. */
    @Param({"numeric7"})
    public String shape;

    /** The values' size in bytes (ASCII text): the matrix uses 10, 40, 200 and 2000. */
    @Param({"40"})
    public int valueBytes;

    /** The ids looked up, created once per trial so that choosing a key allocates nothing. */
    KeyPool keys;

    @Setup(Level.Trial)
    public void keys() {
        keys = new KeyPool(keyShape(), entries);
    }

    /** The {@code shape} parameter's shape; a method, not a field, so other states' setups need not wait for ours. */
    KeyShapes keyShape() {
        return KeyShapes.of(shape);
    }

    /** Per-thread state: a random key stream and reusable output buffers. */
    @State(Scope.Thread)
    public static class Caller {
        final SplittableRandom random = new SplittableRandom(7);
        final StringBuilder out = new StringBuilder(64);
        final ValueBuffer value = new ValueBuffer();
    }

    private CharSequence nextKey(Caller caller) {
        return keys.next(caller.random);
    }

    // ---- reader-lib ----

    /** A published namespace written by reader-lib's writer side, opened through the public read API. */
    @State(Scope.Benchmark)
    public static class SharedStore {
        Path dir;
        SharedLookupStore store;
        Lookup lookup;

        @Setup(Level.Trial)
        public void open(LookupBenchmark bench) throws Exception {
            dir = LookupStores.store(bench.keyShape(), bench.valueBytes, bench.entries);
            store = SharedLookupStore.open(dir);
            lookup = store.lookup(BenchData.NAMESPACE);
            if (lookup.size() != bench.entries) {
                throw new IllegalStateException("the store " + dir + " holds " + lookup.size() + " entries, expected "
                        + bench.entries + ": delete it so that the next run writes it again");
            }
        }

        /** Closes the store and keeps its files for the next fork ({@link LookupStores}). */
        @TearDown(Level.Trial)
        public void close() throws IOException {
            store.close();
        }
    }

    @Benchmark
    public boolean sharedLookupGetInto(Caller caller, SharedStore shared) {
        return shared.lookup.getInto(nextKey(caller), caller.out);
    }

    /** The value's bytes copied into a caller-owned {@link ValueBuffer}, read as text in place. */
    @Benchmark
    public boolean sharedLookupGetIntoValueBuffer(Caller caller, SharedStore shared) {
        return shared.lookup.getInto(nextKey(caller), caller.value);
    }

    /** A caller's batch of {@link #BATCH} random keys and their buffers, for {@link Lookup#getAllInto}. */
    @State(Scope.Thread)
    public static class Batch {
        final CharSequence[] keys = new CharSequence[BATCH];
        final ValueBuffer[] values = new ValueBuffer[BATCH];

        public Batch() {
            for (int i = 0; i < BATCH; i++) {
                values[i] = new ValueBuffer();
            }
        }
    }

    static final int BATCH = 8;

    /**
     * {@link #BATCH} random keys per call through the batch lookup; reported per key ({@code OperationsPerInvocation}),
     * so that it compares directly with {@link #concurrentHashMapGet} and {@link #sharedLookupGetIntoValueBuffer}.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int sharedLookupGetAllIntoBatchOf8(Caller caller, SharedStore shared, Batch batch) {
        for (int i = 0; i < BATCH; i++) {
            batch.keys[i] = nextKey(caller);
        }
        return shared.lookup.getAllInto(batch.keys, batch.values, BATCH);
    }

    @Benchmark
    public String sharedLookupGet(Caller caller, SharedStore shared) {
        return shared.lookup.get(nextKey(caller));
    }

    // ---- heap maps ----

    /** What Druid's Kafka lookup keeps in every JVM: a {@code ConcurrentHashMap} of the whole topic. */
    @State(Scope.Benchmark)
    public static class HeapMap {
        Map<String, String> map;

        @Setup(Level.Trial)
        public void load(LookupBenchmark bench) {
            map = heapCopy(bench);
        }
    }

    @Benchmark
    public String concurrentHashMapGet(Caller caller, HeapMap heap) {
        return heap.map.get(KeyPool.asString(nextKey(caller)));
    }

    /** Druid's {@code MapLookupExtractor} over the same kind of map, as Druid's Kafka lookup builds it. */
    @State(Scope.Benchmark)
    public static class DruidMap {
        MapLookupExtractor extractor;

        @Setup(Level.Trial)
        public void load(LookupBenchmark bench) {
            extractor = new MapLookupExtractor(heapCopy(bench), false);
        }
    }

    @Benchmark
    public String druidMapLookupExtractorApply(Caller caller, DruidMap druid) {
        return druid.extractor.apply(KeyPool.asString(nextKey(caller)));
    }

    /** {@link BenchData}'s entries (ids {@code 1000000+i} to {@code "User name i"}) in a heap map. */
    static Map<String, String> heapCopy(int entries) {
        Map<String, String> map = new ConcurrentHashMap<>(entries * 2);
        for (int i = 0; i < entries; i++) {
            map.put(BenchData.key(i), BenchData.value(i));
        }
        return map;
    }

    /** This run's entries ({@code shape}, {@code valueBytes}) in a heap map, from key strings of their own. */
    static Map<String, String> heapCopy(LookupBenchmark bench) {
        return heapCopy(bench.keyShape(), bench.valueBytes, bench.entries);
    }

    /** {@code entries} entries of {@code shape} with values of {@code valueBytes} in a heap map. */
    static Map<String, String> heapCopy(KeyShapes shape, int valueBytes, int entries) {
        Map<String, String> map = new ConcurrentHashMap<>(entries * 2);
        for (int i = 0; i < entries; i++) {
            map.put(shape.key(i), KeyShapes.value(i, valueBytes));
        }
        return map;
    }

    // ---- LMDB ----

    /** An LMDB environment holding the data as UTF-8 keys and values, written in one transaction. */
    @State(Scope.Benchmark)
    public static class Lmdb {
        Path dir;
        Env<ByteBuffer> env;
        Dbi<ByteBuffer> db;

        @Setup(Level.Trial)
        public void load(LookupBenchmark bench) throws IOException {
            dir = Files.createTempDirectory("lmdb-bench");
            // MDB_NOTLS: read transactions are not tied to the thread that created them (JMH may set up a thread's
            // state on another thread than the one measuring).
            env = Env.create()
                    .setMapSize(64L * 1024 * 1024 + (256L + 2L * bench.valueBytes) * bench.entries)
                    .setMaxDbs(1)
                    .setMaxReaders(64)
                    .open(dir.toFile(), EnvFlags.MDB_NOTLS, EnvFlags.MDB_NOSYNC);
            db = env.openDbi(BenchData.NAMESPACE, DbiFlags.MDB_CREATE);
            ByteBuffer key = ByteBuffer.allocateDirect(env.getMaxKeySize());
            ByteBuffer value = ByteBuffer.allocateDirect(4 * bench.valueBytes + 64);
            KeyShapes shape = bench.keyShape();
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                for (int i = 0; i < bench.entries; i++) {
                    key.clear()
                            .put(shape.key(i).getBytes(StandardCharsets.UTF_8))
                            .flip();
                    value.clear()
                            .put(KeyShapes.value(i, bench.valueBytes).getBytes(StandardCharsets.UTF_8))
                            .flip();
                    db.put(txn, key, value);
                }
                txn.commit();
            }
            env.sync(true);
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            env.close();
            TempTrees.delete(dir);
        }
    }

    /** A thread's reused read transaction, key buffer and UTF-8 coders. */
    @State(Scope.Thread)
    public static class LmdbReader {
        Lmdb lmdb;
        Txn<ByteBuffer> txn;
        ByteBuffer key;
        final CharBuffer chars = CharBuffer.allocate(4096);
        final CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();
        final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder();

        @Setup(Level.Trial)
        public void open(Lmdb lmdb) {
            this.lmdb = lmdb;
            key = ByteBuffer.allocateDirect(lmdb.env.getMaxKeySize());
            txn = lmdb.env.txnRead();
            txn.reset();
        }

        @TearDown(Level.Trial)
        public void close() {
            txn.close();
        }

        /** Like {@code getInto}: the value decoded into {@code out}, nothing allocated. */
        boolean getInto(CharSequence id, StringBuilder out) {
            chars.clear();
            chars.append(id).flip();
            key.clear();
            encoder.reset();
            check(encoder.encode(chars, key, true));
            key.flip();
            txn.renew();
            try {
                ByteBuffer value = lmdb.db.get(txn, key);
                if (value == null) {
                    return false;
                }
                chars.clear();
                decoder.reset();
                check(decoder.decode(value, chars, true));
                chars.flip();
                out.setLength(0);
                out.append(chars);
                return true;
            } finally {
                txn.reset();
            }
        }

        private static void check(CoderResult result) {
            if (result.isError() || result.isOverflow()) {
                throw new IllegalStateException("UTF-8 coding: " + result);
            }
        }
    }

    @Benchmark
    public boolean lmdbGetInto(Caller caller, LmdbReader lmdb) {
        return lmdb.getInto(nextKey(caller), caller.out);
    }

    // ---- Redis ----

    /** A {@code redis-server} of its own on a free loopback port, no persistence, loaded through a pipeline. */
    @State(Scope.Benchmark)
    public static class Redis {
        RedisBenchServer server;

        @Setup(Level.Trial)
        public void start(LookupBenchmark bench) throws Exception {
            server = RedisBenchServer.start();
            server.load(bench.keyShape(), bench.valueBytes, bench.entries);
        }

        @TearDown(Level.Trial)
        public void stop() throws Exception {
            if (server != null) {
                server.stop();
            }
        }
    }

    /** One connection per thread. */
    @State(Scope.Thread)
    public static class RedisClient {
        Jedis jedis;

        @Setup(Level.Trial)
        public void connect(Redis redis) {
            jedis = new Jedis("127.0.0.1", redis.server.port());
        }

        @TearDown(Level.Trial)
        public void close() {
            jedis.close();
        }
    }

    @Benchmark
    public String redisGet(Caller caller, RedisClient redis) {
        return redis.jedis.get(KeyPool.asString(nextKey(caller)));
    }
}
