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
        return new NamespaceSink(new TopicBinding(writer.namespace(), writer.namespace()), writer, new WriterMetrics(),
                Map.of());
    }
}
