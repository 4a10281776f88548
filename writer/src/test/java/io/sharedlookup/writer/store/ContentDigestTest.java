package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The content digest (issue "Many hosts", item 1): kept by every put and remove rather than by rescanning, equal for
 * equal content whatever the order of updates, published with the offsets it reflects and carried across a clean stop.
 */
class ContentDigestTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    private static long digestOf(Map<String, String> content) {
        long sum = 0;
        for (Map.Entry<String, String> e : content.entrySet()) {
            sum += ContentDigest.of(e.getKey(), e.getValue());
        }
        return sum;
    }

    @Test
    void contentDigest_afterRandomPutsReplacesAndRemoves_isTheDigestOfWhatIsLeft() throws Exception {
        Random random = new Random(42);
        Map<String, String> model = new HashMap<>();
        try (GenerationFile g = GenerationFile.create(
                dir.resolve("g0000000001.cmap"),
                GenerationSizing.forExpected(2_000, 6, 10),
                StorePermissions.DEFAULT,
                true)) {
            for (int i = 0; i < 20_000; i++) {
                String key = "k" + random.nextInt(1_500);
                if (random.nextInt(10) == 0) {
                    g.remove(key, TIMEOUT);
                    model.remove(key);
                } else {
                    String value = random.nextInt(4) == 0 ? "same" : "v" + random.nextInt(100) + "-ü✓";
                    g.put(key, value, TIMEOUT);
                    model.put(key, value);
                }
                if (i % 5_000 == 0) {
                    assertThat(g.contentDigest()).isEqualTo(digestOf(model));
                    assertThat(g.size()).as("the kept entry count").isEqualTo(model.size());
                }
            }
            assertThat(g.contentDigest()).isEqualTo(digestOf(model));
            assertThat(g.size()).as("the kept entry count").isEqualTo(model.size());
        }
    }

    @Test
    void contentDigest_ofTheSameEntriesInAnotherOrderOrCopied_isTheSame() throws Exception {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            keys.add("key-" + i);
        }
        try (GenerationFile a = GenerationFile.create(
                        dir.resolve("g0000000001.cmap"),
                        GenerationSizing.forExpected(1_000, 8, 8),
                        StorePermissions.DEFAULT);
                GenerationFile b = GenerationFile.create(
                        dir.resolve("g0000000002.cmap"),
                        GenerationSizing.forExpected(4_000, 8, 8),
                        StorePermissions.DEFAULT);
                GenerationFile copy = GenerationFile.create(
                        dir.resolve("g0000000003.cmap"),
                        GenerationSizing.forExpected(8_000, 8, 8),
                        StorePermissions.DEFAULT)) {
            for (String k : keys) {
                a.put(k, "first", TIMEOUT);
                a.put(k, "value of " + k, TIMEOUT);
            }
            Collections.shuffle(keys, new Random(7));
            for (String k : keys) {
                b.put(k, "value of " + k, TIMEOUT);
            }
            a.forEach((k, v) -> copy.put(k, v, TIMEOUT), TIMEOUT);
            assertThat(a.contentDigest())
                    .isNotZero()
                    .isEqualTo(b.contentDigest())
                    .isEqualTo(copy.contentDigest());
            b.put("key-1", "changed", TIMEOUT);
            assertThat(b.contentDigest()).isNotEqualTo(a.contentDigest());
        }
    }

    @Test
    void theManifestCarriesTheDigestOfItsOffsets_andAResumeStartsFromIt() throws Exception {
        StoreLayout layout = new StoreLayout(dir);
        Map<String, String> content = new HashMap<>(Map.of("1", "Ada", "2", "Grace"));
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(100, 4, 8));
            content.forEach((k, v) -> g.put(k, v, TIMEOUT));
            assertThat(writer.publish(g, "users", Map.of(0, 2L), true, Map.of()).contentDigest())
                    .isEqualTo(digestOf(content));
            g.put("3", "Linus", TIMEOUT);
            content.put("3", "Linus");
            assertThat(writer.checkpoint(Map.of(0, 3L), true, true).contentDigest())
                    .isEqualTo(digestOf(content));
            writer.closeCleanly(g, Map.of(0, 3L), true, false);
        }
        assertThat(Files.readString(layout.manifest("users")))
                .contains("content.digest=" + ContentDigest.hex(digestOf(content)));
        try (SharedLookupStore store = SharedLookupStore.open(dir)) {
            assertThat(store.lookup("users").contentDigest()).contains(ContentDigest.hex(digestOf(content)));
        }

        // A manifest written before the digest existed: the resumed writer computes it from the entries.
        Manifest recorded = Manifest.read(layout.manifest("users"));
        Files.writeString(layout.manifest("users"), recorded.toText().replaceAll("(?m)^content\\.digest=.*$", ""));
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            GenerationFile g = writer.resume();
            assertThat(g.contentDigest()).isEqualTo(digestOf(content));
            g.remove("1", TIMEOUT);
            content.remove("1");
            writer.closeCleanly(g, Map.of(0, 4L), true, true);
        }
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "users", StorePermissions.DEFAULT)) {
            GenerationFile g = writer.resume();
            assertThat(g.contentDigest()).as("restored from the manifest").isEqualTo(digestOf(content));
            writer.closeCleanly(g, Map.of(0, 4L), true, false);
        }
    }
}
