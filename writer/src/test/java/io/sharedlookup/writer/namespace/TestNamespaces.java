package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.NamespaceDirectory;
import java.util.Map;

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
}
