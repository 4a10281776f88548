package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.util.Map;
import java.util.function.IntFunction;

/** The ingest these tests drive by hand: its namespace's topic has the namespace's name, its metrics are its own. */
final class TestNamespaces {
    private TestNamespaces() {}

    static NamespaceIngest over(NamespaceDirectory directory) {
        return over(directory, new WriterMetrics());
    }

    /** Like {@link #over(NamespaceDirectory)}, counting into {@code metrics}. */
    static NamespaceIngest over(NamespaceDirectory directory, WriterMetrics metrics) {
        return new NamespaceIngest(
                new TopicBinding(directory.namespace(), directory.namespace()), directory, metrics, Map.of());
    }

    /** Started at offset 0 of partition 0 with keys {@code k0..k9} applied, their values {@code value.apply(i)}. */
    static NamespaceIngest startedWithTenKeys(
            NamespaceDirectory directory, Positions positions, IntFunction<String> value) {
        NamespaceIngest ingest = over(directory);
        Map<Integer, Long> start = Map.of(0, 0L);
        ingest.start(start, start, -1, null);
        for (int i = 0; i < 10; i++) {
            ingest.apply("k" + i, value.apply(i), positions);
        }
        return ingest;
    }
}
