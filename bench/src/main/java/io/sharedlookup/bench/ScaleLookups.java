package io.sharedlookup.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link ScaleLookupBenchmark} through JMH's API on one store per size, one after another, with the same
 * iterations and JVM settings for each; the {@code ConcurrentHashMap} only up to {@value #HEAP_MAP_MAX_ENTRIES}
 * entries (about 200 bytes an entry on the heap: 20M take ~4 GB of the fork's 6 GB, beside the keys).
 */
final class ScaleLookups {
    static final long HEAP_MAP_MAX_ENTRIES = 20_000_000;

    private final int warmups;
    private final int iterations;
    private final int seconds;

    /** Full form: 3 warm-ups and 5 measured iterations of 5 s; short form: 1 and 2 of 2 s (a check run). */
    ScaleLookups(boolean shortForm) {
        warmups = shortForm ? 1 : 3;
        iterations = shortForm ? 2 : 5;
        seconds = shortForm ? 2 : 5;
    }

    Map<String, Object> settings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("warmupIterations", warmups);
        s.put("iterations", iterations);
        s.put("iterationSeconds", seconds);
        s.put("forkHeap", "-Xmx6g");
        s.put("keySample", ScaleLookupBenchmark.KEY_SAMPLE);
        s.put("heapMapMaxEntries", HEAP_MAP_MAX_ENTRIES);
        s.put("pageCache", "every file of the store read once before the first iteration");
        return s;
    }

    /** One row per benchmark: {@code {benchmark, nsPerOp, error}}; the heap map left out above its bound. */
    List<Map<String, Object>> measure(Path store, long entries) throws RunnerException {
        String include = ScaleLookupBenchmark.class.getName() + "\\.(getIntoValueBuffer|getAllIntoBatchOf8"
                + (entries <= HEAP_MAP_MAX_ENTRIES ? "|concurrentHashMapGet" : "") + ")$";
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(include)
                .param("store", store.toString())
                .param("entries", Long.toString(entries))
                .warmupIterations(warmups)
                .warmupTime(TimeValue.seconds(seconds))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.seconds(seconds))
                .shouldFailOnError(true);
        Collection<RunResult> results = new Runner(options.build()).run();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("benchmark", name.substring(name.lastIndexOf('.') + 1));
            row.put("nsPerOp", r.getPrimaryResult().getScore());
            row.put("error", r.getPrimaryResult().getScoreError());
            rows.add(row);
        }
        if (entries > HEAP_MAP_MAX_ENTRIES) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("benchmark", "concurrentHashMapGet");
            row.put(
                    "skipped",
                    "a heap copy of " + entries + " entries (~" + entries * 200 / 1_000_000_000
                            + " GB) does not fit the fork's 6 GB heap");
            rows.add(row);
        }
        return rows;
    }
}
