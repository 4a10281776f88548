package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.NamespaceWriter;
import java.util.Map;

/** The sink these tests drive by hand: its namespace's topic has the namespace's name, its metrics are its own. */
final class TestSinks {
    private TestSinks() {
    }

    static NamespaceSink over(NamespaceWriter writer) {
        return over(writer, new WriterMetrics());
    }

    /** Like {@link #over(NamespaceWriter)}, counting into {@code metrics}. */
    static NamespaceSink over(NamespaceWriter writer, WriterMetrics metrics) {
        return new NamespaceSink(new TopicBinding(writer.namespace(), writer.namespace()), writer, metrics, Map.of());
    }
}
