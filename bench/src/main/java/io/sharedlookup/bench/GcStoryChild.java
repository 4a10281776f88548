package io.sharedlookup.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.druid.SharedLookupConfig;
import io.sharedlookup.druid.SharedLookupExtractorFactory;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.druid.java.util.common.Intervals;
import org.apache.druid.java.util.common.granularity.Granularities;
import org.apache.druid.java.util.common.io.Closer;
import org.apache.druid.query.QueryRunner;
import org.apache.druid.query.QueryRunnerFactory;
import org.apache.druid.query.QueryRunnerFactoryConglomerate;
import org.apache.druid.query.QueryRunnerTestHelper;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.aggregation.LongSumAggregatorFactory;
import org.apache.druid.query.dimension.LookupDimensionSpec;
import org.apache.druid.query.groupby.GroupByQuery;
import org.apache.druid.query.groupby.GroupByQueryRunnerTestHelper;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainer;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainerProvider;
import org.apache.druid.query.lookup.MapLookupExtractorFactory;
import org.apache.druid.query.spec.MultipleIntervalSegmentSpec;
import org.apache.druid.segment.QueryableIndex;
import org.apache.druid.segment.QueryableIndexSegment;
import org.apache.druid.segment.Segment;
import org.apache.druid.segment.TestHelper;
import org.apache.druid.timeline.SegmentId;

/**
 * The child JVM of {@link GcStoryHarness}: loads the lookup one way ({@code map}: on the heap, as Druid's map lookup;
 * {@code shared}: the shared store through {@code sharedLookup}), runs the groupBy in a loop while {@link Allocator}
 * allocates at a steady rate, and reports its phases and result on stdout as lines the coordinator reads.
 */
final class GcStoryChild {
    static final String DATASOURCE = "events";
    /** Share of the background allocation kept for {@link #MEDIUM_LIFETIME_SECONDS} (the rest dies at once). */
    static final double MEDIUM_SHARE = 0.2;

    static final int MEDIUM_LIFETIME_SECONDS = 5;

    private GcStoryChild() {}

    /** Runs one child: {@code mode} is {@code map} or {@code shared}, {@code args} as the coordinator passes them. */
    static void run(String mode, String[] args) throws Exception {
        Path store = Path.of(args[0]);
        File segmentDir = new File(args[1]);
        int entries = Integer.parseInt(args[2]);
        int ids = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        int measure = Integer.parseInt(args[5]);
        int allocRate = Integer.parseInt(args[6]);
        Closer closer = Closer.create();
        say("PHASE loading the lookup");
        long t0 = System.nanoTime();
        LookupExtractorFactory factory;
        if (mode.equals("map")) {
            Map<String, String> users = new HashMap<>(); // as Druid's map lookup holds it
            for (int i = 0; i < entries; i++) {
                users.put(BenchData.key(i), BenchData.value(i));
            }
            factory = new MapLookupExtractorFactory(users, false);
        } else {
            SharedLookupExtractorFactory shared = new SharedLookupExtractorFactory(
                    BenchData.NAMESPACE, store.toString(), false, new SharedLookupConfig(store.toString(), 10_000));
            if (!shared.start()) {
                throw new IllegalStateException("sharedLookup did not start on " + store);
            }
            closer.register(shared::close);
            factory = shared;
        }
        say(String.format("lookup of %,d entries ready in %.1f s", entries, (System.nanoTime() - t0) / 1e9));
        say("PHASE loading the segment");
        QueryableIndex index = TestHelper.getTestIndexIO().loadIndex(segmentDir);
        closer.register(index);
        Segment segment = new QueryableIndexSegment(index, SegmentId.dummy(DATASOURCE));
        QueryRunnerFactoryConglomerate conglomerate =
                org.apache.druid.server.QueryStackTests.createQueryRunnerFactoryConglomerate(closer);
        GroupByQuery query = groupByName(provider(factory));
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        long heapAfterLoad =
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        say(String.format("heap after load and full GC: %,d MB", heapAfterLoad >> 20));

        Allocator allocator = new Allocator(allocRate);
        Thread allocThread = new Thread(allocator, "allocator");
        allocThread.setDaemon(true);
        allocThread.start();

        say("PHASE the first query");
        List<Object> first = run(conglomerate, segment, query);
        if (first.size() < ids / 2) {
            throw new IllegalStateException("the groupBy returned " + first.size() + " rows for " + ids + " ids");
        }
        String checksum =
                first.size() + ":" + Integer.toHexString(first.toString().hashCode());
        first = null;

        say("PHASE warm-up");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup);
        while (System.nanoTime() < end) {
            run(conglomerate, segment, query);
        }
        say("PHASE measuring");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long alloc0 = allocator.allocated;
        long wall0 = System.nanoTime();
        say("MEASURE_START " + ManagementFactory.getRuntimeMXBean().getUptime());
        long[] latencies = new long[1024];
        int n = 0;
        end = wall0 + TimeUnit.SECONDS.toNanos(measure);
        long now;
        while ((now = System.nanoTime()) < end) {
            run(conglomerate, segment, query);
            if (n == latencies.length) {
                latencies = Arrays.copyOf(latencies, n * 2);
            }
            latencies[n++] = System.nanoTime() - now;
        }
        say("MEASURE_END " + ManagementFactory.getRuntimeMXBean().getUptime());
        double wall = (System.nanoTime() - wall0) / 1e9;
        long cpu = os.getProcessCpuTime() - cpu0;
        long allocated = allocator.allocated - alloc0;
        allocator.stop = true;
        allocThread.join();
        say("PHASE the final full GC");
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        long liveHeap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        java.lang.ref.Reference.reachabilityFence(factory); // the lookup (the map) counts as live until here

        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("queries", n);
        out.put("queriesPerSecond", Math.round(n / wall * 100) / 100.0);
        out.put("p50Millis", millis(percentile(sorted, 50)));
        out.put("p90Millis", millis(percentile(sorted, 90)));
        out.put("p99Millis", millis(percentile(sorted, 99)));
        out.put("maxMillis", millis(n == 0 ? 0 : sorted[n - 1]));
        out.put("meanMillis", millis(n == 0 ? 0 : Arrays.stream(sorted).sum() / n));
        out.put("cpuSecondsPerWallSecond", Math.round(cpu / 1e9 / wall * 100) / 100.0);
        out.put("allocatorMBPerSecond", Math.round(allocated / 1048576.0 / wall * 10) / 10.0);
        out.put("heapAfterLoadMB", heapAfterLoad >> 20);
        out.put("liveHeapAfterFinalFullGcMB", liveHeap >> 20);
        out.put("answerChecksum", checksum);
        say("RESULT " + new ObjectMapper().writeValueAsString(out));
        closer.close();
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return 0;
        }
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }

    private static GroupByQuery groupByName(LookupExtractorFactoryContainerProvider lookups) {
        return GroupByQuery.builder()
                .setDataSource(DATASOURCE)
                .setQuerySegmentSpec(new MultipleIntervalSegmentSpec(List.of(Intervals.of("2024-01-01/2024-01-02"))))
                .setGranularity(Granularities.ALL)
                .setDimensions(new LookupDimensionSpec(
                        "user_id", "name", null, false, null, BenchData.NAMESPACE, null, lookups))
                .setAggregatorSpecs(
                        new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                .build();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<Object> run(QueryRunnerFactoryConglomerate conglomerate, Segment segment, GroupByQuery query) {
        QueryRunnerFactory factory = conglomerate.findFactory(query);
        QueryRunner runner = QueryRunnerTestHelper.makeQueryRunner(factory, segment, "segment");
        List<Object> results = new ArrayList<>();
        GroupByQueryRunnerTestHelper.runQuery(factory, runner, query).forEach(results::add);
        return results;
    }

    private static LookupExtractorFactoryContainerProvider provider(LookupExtractorFactory factory) {
        LookupExtractorFactoryContainer container = new LookupExtractorFactoryContainer("v1", factory);
        return new LookupExtractorFactoryContainerProvider() {
            @Override
            public Set<String> getAllLookupNames() {
                return Set.of(BenchData.NAMESPACE);
            }

            @Override
            public Optional<LookupExtractorFactoryContainer> get(String name) {
                return BenchData.NAMESPACE.equals(name) ? Optional.of(container) : Optional.empty();
            }

            @Override
            public String getCanonicalLookupName(String name) {
                return name;
            }
        };
    }

    /**
     * Allocates at a steady {@code mbPerSecond}, like a node that also ingests or serves other queries: most of it
     * dies at once (row buffers, decoded values), {@link #MEDIUM_SHARE} lives {@link #MEDIUM_LIFETIME_SECONDS} (in a
     * ring that drops its oldest), long enough to outlive young collections and reach the old generation. A backlog
     * after a pause is caught up, at most one second of it.
     */
    private static final class Allocator implements Runnable {
        private final long bytesPerSecond;
        private final Object[] ring;
        private int next;
        volatile boolean stop;
        volatile long allocated;
        /** Read once at the end so the JIT cannot drop the short-lived allocations. */
        private long sink;

        Allocator(int mbPerSecond) {
            this.bytesPerSecond = mbPerSecond * 1048576L;
            long mediumBytes = (long) (bytesPerSecond * MEDIUM_SHARE * MEDIUM_LIFETIME_SECONDS);
            this.ring = new Object[(int) Math.max(1, mediumBytes / MediumObject.BYTES)];
        }

        @Override
        public void run() {
            SplittableRandom random = new SplittableRandom(3);
            long start = System.nanoTime();
            long done = 0;
            long mediumDebt = 0;
            while (!stop) {
                long due = (long) ((System.nanoTime() - start) / 1e9 * bytesPerSecond);
                if (due - done > bytesPerSecond) {
                    done = due - bytesPerSecond;
                }
                if (done >= due) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                    continue;
                }
                // One batch: ~64 KB of short-lived objects of mixed sizes, and its share of medium-lived ones.
                long batch = 0;
                while (batch < 65_536) {
                    int size = 16 + random.nextInt(2048);
                    byte[] b = new byte[size];
                    b[size - 1] = (byte) size;
                    sink += b[random.nextInt(size)];
                    String s = Long.toString(random.nextLong());
                    sink += s.length();
                    batch += size + 16 + 48;
                }
                mediumDebt += (long) (batch * MEDIUM_SHARE / (1 - MEDIUM_SHARE));
                while (mediumDebt >= MediumObject.BYTES) {
                    ring[next] = new MediumObject(random);
                    next = (next + 1) % ring.length;
                    mediumDebt -= MediumObject.BYTES;
                    batch += MediumObject.BYTES;
                }
                done += batch;
                allocated += batch;
            }
            if (sink == 42) {
                System.out.print("");
            }
        }
    }

    /** A medium-lived object graph of ~8 KB: a few arrays and strings, like a buffered row batch. */
    private static final class MediumObject {
        static final int BYTES = 8 * 1024;
        final byte[] data = new byte[4096];
        final String[] values = new String[32];
        final long[] numbers = new long[256];

        MediumObject(SplittableRandom random) {
            for (int i = 0; i < values.length; i++) {
                values[i] = "value-" + random.nextInt(1_000_000);
            }
            data[random.nextInt(data.length)] = 1;
        }
    }
}
