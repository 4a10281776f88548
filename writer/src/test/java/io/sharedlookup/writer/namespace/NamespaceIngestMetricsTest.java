package io.sharedlookup.writer.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.writer.TopicBinding;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A namespace's series as Prometheus scrapes them. */
class NamespaceIngestMetricsTest {
    @TempDir
    Path store;

    private final WriterMetrics metrics = new WriterMetrics();
    private NamespaceIngest ingest;

    private NamespaceIngest open(String namespace) throws Exception {
        NamespaceDirectory directory =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
        ingest = new NamespaceIngest(new TopicBinding(namespace, namespace), directory, metrics, Map.of());
        return ingest;
    }

    @AfterEach
    void release() {
        if (ingest != null) {
            ingest.abandon();
        }
    }

    private String scrape() {
        return new String(metrics.scrape(), StandardCharsets.UTF_8);
    }

    /** An increase() alert sees the first burst only if the series was there at 0 before it. */
    @Test
    void everyCounterOfTheNamespaceIsExposedAtZeroFromTheStart() throws Exception {
        open("users");
        String text = scrape();
        List<String> counters = text.lines()
                .filter(l -> l.startsWith("# TYPE sharedlookup_writer_"))
                .filter(l -> l.endsWith(" counter"))
                .map(l -> l.split(" ")[2])
                .toList();
        assertThat(counters)
                .contains(
                        "sharedlookup_writer_corrupt_records_total",
                        "sharedlookup_writer_stalls_total",
                        "sharedlookup_writer_records_total");
        for (String counter : counters) {
            assertThat(text.lines()).as(counter).contains(counter + "{namespace=\"users\"} 0.0");
        }
    }

    /** A partition that is no longer part of the topic (recreated with fewer) must not report its last lag forever. */
    @Test
    void aPartitionNoLongerInTheTopicLosesItsLagSeries() throws Exception {
        NamespaceIngest users = open("users");
        users.status(Map.of(0, 5L, 1, 7L, 2, 9L), null, Positions.UNKNOWN);
        assertThat(scrape())
                .contains("sharedlookup_writer_lag_records{namespace=\"users\",partition=\"1\"} 7.0")
                .contains("sharedlookup_writer_lag_records{namespace=\"users\",partition=\"2\"} 9.0");

        users.status(Map.of(0, 3L), null, Positions.UNKNOWN);
        assertThat(scrape())
                .contains("sharedlookup_writer_lag_records{namespace=\"users\",partition=\"0\"} 3.0")
                .doesNotContain("partition=\"1\"")
                .doesNotContain("partition=\"2\"");
    }
}
