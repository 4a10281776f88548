package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.testing.OwnFileSizeLimit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generation that runs out of extra tiers: the put that finds no room changes nothing, so the copy that moves the
 * namespace to a bigger generation (which walks the generation with {@link GenerationFile#forEach}) takes every entry
 * along, and readers count what is there.
 */
class GenerationFullTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void aLongerValueWithNoTierLeft_failsHavingChangedNothing() throws Exception {
        try (GenerationFile g = smallGeneration()) {
            Map<String, String> model = fillUntilFull(g);
            // Now every tier is taken: values that grow must move, and some move finds no room.
            String refused = null;
            for (int length = 8; refused == null && length < 4096; length *= 2) {
                for (String key : new ArrayList<>(model.keySet())) {
                    String value = "x".repeat(length);
                    if (!putUnlessFull(g, key, value)) {
                        refused = key;
                        break;
                    }
                    model.put(key, value);
                }
            }
            assertThat(refused).as("a longer value found no room").isNotNull();

            StringBuilder value = new StringBuilder();
            assertThat(g.getInto(refused, value, TIMEOUT)).isTrue();
            assertThat(value.toString()).as("the refused key keeps its value").isEqualTo(model.get(refused));
            Map<String, String> copied = new HashMap<>();
            g.forEach((k, v) -> copied.put(k.toString(), v.toString()), TIMEOUT);
            Set<String> missed = new TreeSet<>(model.keySet());
            missed.removeAll(copied.keySet());
            assertThat(missed)
                    .as("keys a copy to a bigger generation would miss")
                    .isEmpty();
            assertThat(copied.entrySet())
                    .as("entries such a copy takes")
                    .hasSameSizeAs(model.entrySet())
                    .allMatch(e -> e.getValue().equals(model.get(e.getKey())));
            assertThat(g.size()).isEqualTo(model.size());
            MappedMap reader = MappedMap.open(g.file(), SequenceFile.of(g.file()), g.layout());
            assertThat(reader.size(TIMEOUT)).as("a reader's count").isEqualTo(model.size());

            // Removing every entry leaves counts that are still exact (they went negative once).
            for (String key : model.keySet()) {
                assertThat(g.remove(key, TIMEOUT)).isTrue();
            }
            assertThat(reader.size(TIMEOUT)).isZero();
            g.forEach(
                    (k, v) -> {
                        throw new AssertionError("left behind: " + k);
                    },
                    TIMEOUT);
        }
    }

    private GenerationFile smallGeneration() throws Exception {
        return GenerationFile.create(
                dir.resolve("g0000000001.cmap"), new GenerationSizing(1024, 8, 8, 1.0), StorePermissions.DEFAULT);
    }

    /** Puts new keys until one finds no room; returns what was stored. */
    private static Map<String, String> fillUntilFull(GenerationFile g) {
        Map<String, String> stored = new LinkedHashMap<>();
        for (int i = 0; putUnlessFull(g, "key-" + i, "v"); i++) {
            stored.put("key-" + i, "v");
        }
        return stored;
    }

    private static boolean putUnlessFull(GenerationFile g, String key, String value) {
        try {
            g.put(key, value, TIMEOUT);
            return true;
        } catch (IllegalStateException e) {
            assertThat(e).hasMessageContaining("extra segment tier");
            return false;
        }
    }

    @Test
    void theRefusal_saysWhatIsFull() throws Exception {
        try (GenerationFile g = smallGeneration()) {
            Map<String, String> stored = fillUntilFull(g);
            String longest = "x".repeat(2048);
            assertThatThrownBy(() -> {
                        for (String key : stored.keySet()) {
                            g.put(key, longest, TIMEOUT);
                        }
                    })
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("g0000000001.cmap")
                    .hasMessageContaining("extra segment tier");
        }
    }

    /**
     * The file system refuses the extra tier a moving value needs (a full disk; here the test JVM's own file-size limit,
     * lowered with util-linux {@code prlimit}, which fails the extension with EFBIG where a full disk fails with
     * ENOSPC). Chronicle has freed the old value's chunks by then, so the generation must not be written or copied
     * again: it is reported unusable (the writer rebuilds it), not as a disk to wait for.
     */
    @Test
    void aLongerValueTheFileSystemHasNoRoomFor_makesTheGenerationUnusable() throws Exception {
        try (GenerationFile g = smallGeneration()) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 600; i++) { // well within the main tiers: no extra tier yet
                g.put("key-" + i, "v", TIMEOUT);
                keys.add("key-" + i);
            }
            Throwable refused = null;
            try (OwnFileSizeLimit limit = OwnFileSizeLimit.lowerTo(Files.size(g.file()))) {
                for (int length = 8; refused == null && length < 4096; length *= 2) {
                    for (String key : keys) {
                        try {
                            g.put(key, "x".repeat(length), TIMEOUT);
                        } catch (RuntimeException e) {
                            refused = e;
                            break;
                        }
                    }
                }
            }
            assertThat(refused)
                    .isInstanceOf(GenerationUnusableException.class)
                    .hasMessageContaining("after Chronicle Map had freed the old one");
            assertThat(GenerationFile.ioCause(refused))
                    .as("the file system's refusal")
                    .isNotNull();
        }
    }
}
