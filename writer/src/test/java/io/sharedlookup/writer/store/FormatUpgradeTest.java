package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A store of format version 1: readers say so in one line; the writer rebuilds it as version 2. */
class FormatUpgradeTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);

    @TempDir
    Path store;

    private Path writeVersion1Namespace() throws Exception {
        Path dir = Files.createDirectories(store.resolve("users"));
        Files.write(dir.resolve("g0000000007.cmap"), new byte[] {1, 2, 3});
        Files.writeString(
                dir.resolve(StoreLayout.MANIFEST),
                "format.version=1\nnamespace=users\ngeneration=7\n"
                        + "data.file=g0000000007.cmap\ncapacity=1024\ntopic=users\nsource.offsets=0\\:5\n");
        return dir;
    }

    @Test
    void reader_ofAVersion1Store_saysSoInOneLine() throws Exception {
        writeVersion1Namespace();
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            assertThatThrownBy(() -> s.lookup("users"))
                    .isInstanceOf(SharedLookupException.class)
                    .hasMessageContaining("store format version 1")
                    .hasMessageContaining("start the writer of this shared-lookup release")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void writer_ofAVersion1Namespace_buildsAVersion2GenerationNumberedAfterTheOldOne() throws Exception {
        writeVersion1Namespace();
        try (NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(store), "users", StorePermissions.DEFAULT)) {
            assertThat(writer.canResume()).isFalse();
            assertThat(writer.published()).isEmpty();
            GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(10, 4, 4));
            g.put("1", "Ada", TIMEOUT);
            assertThat(writer.publish(g, "users", Map.of(0, 1L), true, Map.of()).generation())
                    .isEqualTo(8);
            g.close();
        }
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            assertThat(s.lookup("users").get("1")).isEqualTo("Ada");
            assertThat(s.lookup("users").generation()).isEqualTo(8);
        }
    }
}
