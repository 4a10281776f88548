package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestTest {
    @TempDir
    Path dir;

    private static Manifest sample() {
        return new Manifest(Manifest.FORMAT_VERSION, "users", 7, "g0000000007.cmap", 1500, "users-topic",
                Map.of(0, 10L, 3, 42L), 123456789L, true, Manifest.WriterState.OPEN, 1000L, 2000L,
                Map.of("reverse.index", "true"));
    }

    @Test
    void roundTripsThroughTheFile() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        sample().writeAtomically(file, StorePermissions.DEFAULT, true);
        assertThat(Manifest.read(file)).isEqualTo(sample());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-r-----");
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactly(file);
        }
    }

    @Test
    void refusesAnUnknownFormatVersionNamingTheFileAndTheVersion() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, sample().toText().replace("format.version=1", "format.version=99"));
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("version 99")
                .hasMessageContaining(file.toString());
    }

    @Test
    void refusesAManifestWithMissingFields() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, "format.version=1\nnamespace=users\n");
        assertThatThrownBy(() -> Manifest.read(file))
                .isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("missing")
                .hasMessageContaining(file.toString());
    }

    @Test
    void refusesADataFileThatIsNotAGenerationFileName() throws Exception {
        Path file = dir.resolve(StoreLayout.MANIFEST);
        Files.writeString(file, sample().toText().replace("g0000000007.cmap", "../../etc/passwd"));
        assertThatThrownBy(() -> Manifest.read(file)).isInstanceOf(StoreFormatException.class)
                .hasMessageContaining("not a generation file name");
    }
}
