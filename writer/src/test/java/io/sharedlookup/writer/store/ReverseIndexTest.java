package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReverseIndexTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void decodesKeysContainingSeparatorsAndDigits() {
        assertThat(io.sharedlookup.internal.store.ReverseKeys.decode("3:a:b2:1210:0123456789"))
                .containsExactly("a:b", "12", "0123456789");
        assertThat(io.sharedlookup.internal.store.ReverseKeys.decode("")).isEmpty();
    }

    @Test
    void followsPutsAndRemovesAndFallsBackToScanningForVeryCommonValues() throws Exception {
        try (NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(dir), "users", StorePermissions.DEFAULT)) {
            GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(1000, 6, 6), true);
            g.put("1", "Ada", TIMEOUT);
            g.put("2", "Ada", TIMEOUT);
            g.put("3", "Grace", TIMEOUT);
            assertThat(g.keysOf("Ada", TIMEOUT))
                    .hasValueSatisfying(k -> assertThat(k).containsExactlyInAnyOrder("1", "2"));
            g.put("2", "Grace", TIMEOUT);
            g.remove("1", TIMEOUT);
            assertThat(g.keysOf("Ada", TIMEOUT)).contains(List.of());
            assertThat(g.keysOf("Grace", TIMEOUT))
                    .hasValueSatisfying(k -> assertThat(k).containsExactlyInAnyOrder("3", "2"));

            List<String> many = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                many.add("key-" + i);
                g.put("key-" + i, "Unknown", TIMEOUT);
            }
            assertThat(g.keysOf("Unknown", TIMEOUT))
                    .as("too many keys: scan instead")
                    .isEqualTo(Optional.empty());
            writer.publish(g, "users", Map.of(), true, Map.of());
            assertThat(writer.published().orElseThrow().attributes()).containsEntry("reverse.index", "true");
            assertThat(StoreLayout.reverseIndexFile(g.file())).exists();
            g.close();
        }
    }
}
