package io.sharedlookup.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JMH-layout rows the paired harnesses write: score, per-round ratios and the appended file. */
class PairedRowsTest {
    @Test
    void ratioIsTheMedianOfThePerRoundRatiosNotTheRatioOfMedians() {
        // The machine's speed drifts over the rounds and two pauses fall on one peer only: the peer is twice the map in
        // three rounds of five, while the medians of each side alone (4 and 4) would say 1.
        double[] peer = {2, 4, 8, 160, 1.6};
        double[] map = {1, 2, 4, 8, 16};
        ObjectNode row = PairedRows.JSON.createObjectNode();

        PairedRows.putRatio(row, "ratio", peer, map);
        PairedRows.putScore(row, map, "ms/op");

        assertThat(row.path("ratio").asDouble()).isEqualTo(2.0);
        assertThat(row.path("ratioLow").asDouble()).isLessThanOrEqualTo(2.0);
        assertThat(row.path("ratioHigh").asDouble()).isGreaterThanOrEqualTo(2.0);
        assertThat(row.path("primaryMetric").path("score").asDouble()).isEqualTo(4.0);
        assertThat(row.path("primaryMetric").path("scoreUnit").asText()).isEqualTo("ms/op");
    }

    @Test
    void appendKeepsTheRowsAlreadyInTheFile(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("druid.json");
        ArrayNode first = PairedRows.JSON.createArrayNode();
        first.addObject().put("benchmark", "a");
        ArrayNode second = PairedRows.JSON.createArrayNode();
        second.addObject().put("benchmark", "b");

        PairedRows.append(out, first);
        PairedRows.append(out, second);

        JsonNode all = PairedRows.JSON.readTree(out.toFile());
        assertThat(all).extracting(row -> row.path("benchmark").asText()).containsExactly("a", "b");
    }
}
