package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.MapLayout;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.Utf8Text;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of format version 1: readers say so in one line; the writer rebuilds it as version 2. A version-2
 * generation of an earlier writer, whose keys Chronicle hashed with XXH64, is kept as it is.
 */
class FormatUpgradeTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path store;

    private Path writeVersion1Namespace() throws Exception {
        Path dir = Files.createDirectories(store.resolve("users"));
        Files.write(dir.resolve("g0000000007.cmap"), new byte[] {1, 2, 3});
        Files.writeString(dir.resolve(StoreLayout.MANIFEST), "format.version=1\nnamespace=users\ngeneration=7\n"
                + "data.file=g0000000007.cmap\ncapacity=1024\ntopic=users\nsource.offsets=0\\:5\n");
        return dir;
    }

    @Test
    void reader_ofAVersion1Store_saysSoInOneLine() throws Exception {
        writeVersion1Namespace();
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            assertThatThrownBy(() -> s.lookup("users")).isInstanceOf(SharedLookupException.class)
                    .hasMessageContaining("store format version 1")
                    .hasMessageContaining("start the writer of this shared-lookup release")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void writer_ofAVersion1Namespace_buildsAVersion2GenerationNumberedAfterTheOldOne() throws Exception {
        writeVersion1Namespace();
        try (NamespaceWriter writer = NamespaceWriter.open(new StoreLayout(store), "users", StorePermissions.DEFAULT)) {
            assertThat(writer.canResume()).isFalse();
            assertThat(writer.published()).isEmpty();
            GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(10, 4, 4));
            g.put("1", "Ada", TIMEOUT);
            assertThat(writer.publish(g, "users", Map.of(0, 1L), true, Map.of()).generation()).isEqualTo(8);
            g.close();
        }
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            assertThat(s.lookup("users").get("1")).isEqualTo("Ada");
            assertThat(s.lookup("users").generation()).isEqualTo(8);
        }
    }

    @Test
    void generationOfAnEarlierWriter_keepsItsXxh64KeyHash_andNewGenerationsUseTheStringHash() throws Exception {
        // An earlier writer's generation: Chronicle's own key access, which hashes key bytes with XXH64.
        Path file = store.resolve("g0000000001.cmap");
        try (ChronicleMap<CharSequence, CharSequence> map = ChronicleMapBuilder.of(CharSequence.class,
                        CharSequence.class).skipCloseOnExitHook(true).checksumEntries(false)
                .entries(1000).averageKeySize(8).averageValueSize(16).createPersistedTo(file.toFile())) {
            for (int i = 0; i < 500; i++) {
                map.put("id" + i, "old " + i);
            }
            Files.write(SequenceFile.of(file), new byte[map.segments() * SequenceFile.STRIDE]);
        }
        try (GenerationFile g = GenerationFile.open(file, 1000)) {
            assertThat(g.layout().keyHash()).as("read back from the file's header").isEqualTo(MapLayout.KeyHash.XXH64);
            assertThat(g.layout().toProperties("layout.")).containsEntry("layout.encoding",
                    "stop-bit-sizes,char-utf8,xxh64,alignment-1");
            for (int i = 500; i < 700; i++) {
                g.put("id" + i, "new " + i, TIMEOUT);
            }
            g.remove("id7", TIMEOUT);
            assertThat(readBack(file, g.layout(), 700)).isEqualTo(699);
        }

        Path next = store.resolve("g0000000002.cmap");
        try (GenerationFile g = GenerationFile.create(next, GenerationSizing.forExpected(1000, 8, 16),
                StorePermissions.DEFAULT)) {
            assertThat(g.layout().keyHash()).isEqualTo(MapLayout.KeyHash.STRING);
            for (int i = 0; i < 700; i++) {
                g.put("id" + i, (i < 500 ? "old " : "new ") + i, TIMEOUT);
            }
            g.remove("id7", TIMEOUT);
            assertThat(readBack(next, g.layout(), 700)).isEqualTo(699);
        }
        try (GenerationFile g = GenerationFile.open(next, 1000)) {
            assertThat(g.layout().keyHash()).as("reopened").isEqualTo(MapLayout.KeyHash.STRING);
        }
    }

    /** Reads keys id0..id(n-1) through both reader paths; returns how many were present, each with its value. */
    private static int readBack(Path file, MapLayout layout, int n) {
        int present = 0;
        MappedMap reader = MappedMap.open(file, SequenceFile.of(file), layout);
        Utf8Text value = new Utf8Text();
        StringBuilder viaBuilder = new StringBuilder();
        for (int i = 0; i < n; i++) {
            String expected = (i < 500 ? "old " : "new ") + i;
            int found = reader.getInto("id" + i, value, TIMEOUT);
            // a CharSequence that is not a String is hashed from its chars
            assertThat(reader.getInto(new StringBuilder("id" + i), viaBuilder, TIMEOUT)).isEqualTo(found);
            if (found == MappedMap.PRESENT) {
                assertThat(value.toString()).isEqualTo(expected);
                assertThat(viaBuilder.toString()).isEqualTo(expected);
                present++;
            }
        }
        assertThat(reader.size(TIMEOUT)).isEqualTo(present);
        return present;
    }
}
