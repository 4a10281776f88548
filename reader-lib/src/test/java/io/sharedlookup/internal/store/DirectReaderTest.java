package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The direct read path answers exactly what Chronicle's query context answers. */
class DirectReaderTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path dir;

    @Test
    void hashesAsciiCharsLikeChronicleHashesTheirUtf8Bytes() {
        SplittableRandom random = new SplittableRandom(3);
        for (int length = 0; length < 80; length++) {
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < length; i++) {
                s.append((char) random.nextInt(0x80));
            }
            byte[] utf8 = s.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            assertThat(LongHashFunction.xx_r39().hash(s, DirectReader.AsciiAccess.INSTANCE, 0, length))
                    .as("length %d", length).isEqualTo(LongHashFunction.xx_r39().hashBytes(utf8));
        }
    }

    @Test
    void agreesWithTheQueryContextOnHitsMissesUnicodeAndOverflowTiers() throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        Map<String, String> content = new HashMap<>();
        // Sized far too small on purpose, so that segments spill into extra tiers.
        try (NamespaceWriter writer = NamespaceWriter.open(new StoreLayout(dir), "ns", StorePermissions.DEFAULT)) {
            GenerationFile g = writer.createGeneration(new GenerationSizing(1024, 8, 12, 20.0));
            int initialResizes = g.fill().remainingAutoResizes();
            for (int i = 0; i < 12_000; i++) {
                String key = randomText(random, 1 + random.nextInt(i % 50 == 0 ? 300 : 20), i % 7 == 0);
                String value = randomText(random, random.nextInt(i % 60 == 0 ? 400 : 30), i % 3 == 0);
                g.put(key, value, TIMEOUT);
                content.put(key, value);
            }
            for (int i = 0; i < 3000; i++) { // removals leave holes in the probe sequences
                String key = randomText(random, 1 + random.nextInt(20), false);
                if (content.remove(key) != null) {
                    g.remove(key, TIMEOUT);
                }
            }
            assertThat(g.fill().remainingAutoResizes()).as("the map grew extra tiers").isLessThan(initialResizes);
            StringBuilder direct = new StringBuilder("stale");
            StringBuilder viaContext = new StringBuilder();
            DirectReader reader = g.directReader();
            assertThat(reader).as("this project's maps are read directly").isNotNull();
            int served = 0;
            for (Map.Entry<String, String> e : content.entrySet()) {
                if (reader.getInto(e.getKey(), direct, TIMEOUT) == DirectReader.PRESENT) {
                    assertThat(direct.toString()).isEqualTo(e.getValue());
                    served++;
                }
                assertThat(g.readInto(e.getKey(), direct, TIMEOUT)).isTrue();
                assertThat(direct.toString()).isEqualTo(e.getValue());
                assertThat(g.readInto(new StringBuilder(e.getKey()), direct, TIMEOUT)).isTrue();
                assertThat(direct.toString()).isEqualTo(e.getValue());
            }
            long asciiKeys = content.keySet().stream().filter(k -> k.chars().allMatch(c -> c < 0x80)).count();
            assertThat(served).as("hits served directly (every ASCII key)").isEqualTo((int) asciiKeys);
            for (int i = 0; i < 20_000; i++) {
                String key = randomText(random, random.nextInt(25), i % 5 == 0);
                boolean present = g.getInto(key, viaContext, TIMEOUT);
                assertThat(g.readInto(key, direct, TIMEOUT)).as(key).isEqualTo(present);
                assertThat(direct.toString()).isEqualTo(viaContext.toString());
            }
            g.close();
        }
    }

    private static String randomText(SplittableRandom random, int length, boolean unicode) {
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            if (!unicode) {
                s.append((char) (0x20 + random.nextInt(0x5F)));
            } else {
                switch (random.nextInt(4)) {
                    case 0 -> s.append((char) random.nextInt(0x80));
                    case 1 -> s.append((char) (0x80 + random.nextInt(0x780)));
                    case 2 -> s.append((char) (0x800 + random.nextInt(0xD000)));
                    default -> s.appendCodePoint(0x10000 + random.nextInt(0x1000)); // a surrogate pair
                }
            }
        }
        return s.toString();
    }
}
