package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {
    @TempDir
    Path dir;

    /** A layout as the writer publishes it for a small map (numbers from a real Chronicle Map 2026.1 file). */
    static MapLayout sampleLayout() {
        return new MapLayout(
                "2026.1",
                1,
                4096,
                192,
                4288,
                42368,
                46656,
                1,
                42368,
                0,
                2,
                4,
                2048,
                18,
                14,
                8192,
                8192 + 64 + 1088,
                4,
                8250);
    }

    static Manifest sample() {
        return new Manifest(
                Manifest.FORMAT_VERSION,
                "users",
                7,
                "g0000000007.cmap",
                1500,
                "users-topic",
                Map.of(0, 10L, 3, 42L),
                123456789L,
                true,
                Manifest.WriterState.OPEN,
                1000L,
                2000L,
                Map.of("reverse.index", "true"),
                sampleLayout(),
                sampleLayout(),
                0xF00DCAFE12345678L);
    }

    @Test
    void parse_ofItsOwnText_givesTheSameManifest() {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        assertThat(Manifest.parse(sample().toText(), file)).isEqualTo(sample());
        Manifest withoutReverse = Manifest.parse(sample().toText().replaceAll("(?m)^reverse\\.layout\\..*$", ""), file);
        assertThat(withoutReverse.reverseLayout()).isNull();
        assertThat(withoutReverse.layout()).isEqualTo(sampleLayout());
        assertThat(sample().toText()).contains("content.digest=f00dcafe12345678");
        Manifest withoutDigest = Manifest.parse(sample().toText().replaceAll("(?m)^content\\.digest=.*$", ""), file);
        assertThat(withoutDigest.contentDigest())
                .as("written before the digest existed")
                .isNull();
    }

    @Test
    void parse_ofAMalformedDigest_reportsACorruptManifest() {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        String text = sample().toText().replace("content.digest=f00dcafe12345678", "content.digest=xyz");
        assertThatThrownBy(() -> Manifest.parse(text, file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("content digest 'xyz'");
    }

    @Test
    void refusesAnUnknownFormatVersionNamingTheFileAndTheVersion() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, sample().toText().replace("format.version=2", "format.version=99"));
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(Manifest.NewerFormatException.class)
                .hasMessageContaining("version 99")
                .hasMessageContaining(file.toString());
        // Not a version at all: damage, not a newer release (the writer rebuilds such a namespace).
        Files.writeString(file, sample().toText().replace("format.version=2", "format.version=two"));
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(StoreFormatException.class)
                .isNotInstanceOf(Manifest.NewerFormatException.class)
                .hasMessageContaining("version two");
    }

    @Test
    void read_ofAVersion1Manifest_saysSoInOneLineAndKeepsItsGeneration() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, "format.version=1\nnamespace=users\ngeneration=12\n");
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOfSatisfying(
                        Manifest.OldFormatException.class,
                        e -> assertThat(e.generation()).isEqualTo(12))
                .hasMessageContaining("format version 1")
                .hasMessageContaining("start the writer of this shared-lookup release")
                .hasMessageNotContaining("\n");
    }

    @Test
    void refusesAManifestWithMissingFields() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, "format.version=2\nnamespace=users\n");
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("missing")
                .hasMessageContaining(file.toString());
    }

    @Test
    void refusesALayoutThatDoesNotAddUp() {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        String text = sample().toText().replace("layout.base.size=46656", "layout.base.size=999");
        assertThatThrownBy(() -> Manifest.parse(text, file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("base size");
        String encoding = sample().toText().replaceFirst("(?m)^layout\\.encoding=.*$", "layout.encoding=other");
        assertThatThrownBy(() -> Manifest.parse(encoding, file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("entry encoding");
    }

    @Test
    void refusesADataFileThatIsNotAGenerationFileName() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, sample().toText().replace("g0000000007.cmap", "../../etc/passwd"));
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("not a generation file name");
    }
}
