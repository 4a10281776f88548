package io.sharedlookup.druid;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.druid.data.input.InputRow;
import org.apache.druid.data.input.impl.DimensionSchema;
import org.apache.druid.data.input.impl.DimensionsSpec;
import org.apache.druid.data.input.impl.StringDimensionSchema;
import org.apache.druid.java.util.common.DateTimes;
import org.apache.druid.java.util.common.io.Closer;
import org.apache.druid.query.Query;
import org.apache.druid.query.QueryPlus;
import org.apache.druid.query.QueryRunner;
import org.apache.druid.query.QueryRunnerFactory;
import org.apache.druid.query.QueryRunnerFactoryConglomerate;
import org.apache.druid.query.QueryRunnerTestHelper;
import org.apache.druid.query.aggregation.CountAggregatorFactory;
import org.apache.druid.query.aggregation.LongSumAggregatorFactory;
import org.apache.druid.query.groupby.GroupByQuery;
import org.apache.druid.query.groupby.GroupByQueryRunnerTestHelper;
import org.apache.druid.segment.IndexBuilder;
import org.apache.druid.segment.QueryableIndex;
import org.apache.druid.segment.QueryableIndexSegment;
import org.apache.druid.segment.Segment;
import org.apache.druid.segment.incremental.IncrementalIndexSchema;
import org.apache.druid.segment.writeout.OffHeapMemorySegmentWriteOutMediumFactory;
import org.apache.druid.server.QueryStackTests;
import org.apache.druid.timeline.SegmentId;

/**
 * Druid's real query engine (from its test jars) over one memory-mapped segment of events: string dimensions, metrics
 * {@code rows} (count) and {@code amount} (long sum), no rollup, from 2024-01-01. The extension's query tests and the
 * benchmarks build their segment and run their queries through it; the benchmarks reach it through this module's
 * test jar.
 */
public final class SegmentQueries implements Closeable {
    private final Closer closer = Closer.create();
    private final QueryRunnerFactoryConglomerate conglomerate;
    private final Segment segment;

    private SegmentQueries(File dir, String dataSource, List<String> dimensions, Iterable<InputRow> rows) {
        conglomerate = QueryStackTests.createQueryRunnerFactoryConglomerate(closer);
        QueryableIndex index = buildIndex(dir, dimensions, rows);
        closer.register(index);
        segment = new QueryableIndexSegment(index, SegmentId.dummy(dataSource));
    }

    /** Builds the segment of {@code rows} in {@code dir} as data source {@code dataSource}. */
    public static SegmentQueries over(File dir, String dataSource, List<String> dimensions, Iterable<InputRow> rows) {
        return new SegmentQueries(dir, dataSource, dimensions, rows);
    }

    /** The memory-mapped index alone (e.g. for Druid's SQL test framework). */
    public static QueryableIndex buildIndex(File dir, List<String> dimensions, Iterable<InputRow> rows) {
        List<DimensionSchema> schemas = new ArrayList<>();
        dimensions.forEach(d -> schemas.add(new StringDimensionSchema(d)));
        return IndexBuilder.create()
                .tmpDir(dir)
                .segmentWriteOutMediumFactory(OffHeapMemorySegmentWriteOutMediumFactory.instance())
                .schema(IncrementalIndexSchema.builder()
                        .withMinTimestamp(DateTimes.of("2024-01-01").getMillis())
                        .withDimensionsSpec(new DimensionsSpec(schemas))
                        .withMetrics(
                                new CountAggregatorFactory("rows"), new LongSumAggregatorFactory("amount", "amount"))
                        .withRollup(false)
                        .build())
                .rows(rows)
                .buildMMappedIndex();
    }

    /** Runs {@code query} on the segment as a historical runs it, and returns its result rows. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public List<Object> run(Query<?> query) {
        QueryRunnerFactory factory = conglomerate.findFactory(query);
        QueryRunner runner = QueryRunnerTestHelper.makeQueryRunner(factory, segment, "segment");
        List<Object> results = new ArrayList<>();
        if (query instanceof GroupByQuery) {
            GroupByQueryRunnerTestHelper.runQuery(factory, runner, query).forEach(results::add);
        } else {
            results.addAll(runner.run(QueryPlus.wrap(query)).toList());
        }
        return results;
    }

    @Override
    public void close() throws IOException {
        closer.close();
    }
}
