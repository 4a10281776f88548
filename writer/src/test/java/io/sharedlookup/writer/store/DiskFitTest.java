package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer says, before it creates a generation file, when the generation would not fit the disk: one line with the
 * bytes needed, the bytes free, the entries and what to do.
 */
class DiskFitTest {
    @TempDir
    Path store;

    /** The estimate is of what Chronicle creates (preallocated): never below it, and not far above. */
    @Test
    void bytesNeeded_coversTheFilesAGenerationIsCreatedWith() throws Exception {
        List<GenerationSizing> sizings = List.of(
                new GenerationSizing(1024, 16, 32, 2.0),
                new GenerationSizing(300_000, 12, 40, 2.0),
                new GenerationSizing(2048, 16, 32, 2.0, 200_000)); // tiers lengthened for a large entry
        int n = 0;
        for (GenerationSizing sizing : sizings) {
            for (boolean reverse : new boolean[] {false, true}) {
                Path file = store.resolve("g" + ++n + ".cmap");
                try (GenerationFile generation =
                        GenerationFile.create(file, sizing, StorePermissions.DEFAULT, reverse)) {
                    long created = sizeOf(file) + sizeOf(StoreLayout.reverseIndexFile(file));
                    long estimate = DiskFit.bytesNeeded(sizing, reverse);
                    assertThat(estimate)
                            .as("%s, reverse index %s: created %s bytes", sizing, reverse, created)
                            .isGreaterThanOrEqualTo(created)
                            .isLessThanOrEqualTo(created + created / 4 + (256 << 10));
                }
            }
        }
    }

    private static long sizeOf(Path file) throws IOException {
        return (Files.exists(file) ? Files.size(file) : 0)
                + (Files.exists(SequenceFile.of(file)) ? Files.size(SequenceFile.of(file)) : 0);
    }

    @Test
    void shortfall_isOneLineWithTheFigures_onlyWhenTheGenerationDoesNotFit() {
        GenerationSizing sizing = new GenerationSizing(1_000_000, 16, 200, 2.0);
        long needed = DiskFit.bytesNeeded(sizing, false);
        assertThat(needed).isGreaterThan(216_000_000L);
        assertThat(DiskFit.shortfall(sizing, false, needed, store)).isNull();
        assertThat(DiskFit.shortfall(sizing, false, DiskFit.UNKNOWN, store))
                .as("free space unknown")
                .isNull();
        assertThat(DiskFit.shortfall(sizing, false, 0, store)).as("a full disk").contains("has 0 bytes free");

        String line = DiskFit.shortfall(sizing, false, needed - 1, store);
        assertThat(line)
                .doesNotContain("\n")
                .contains("1,000,000 entries", "average key 16 B, value 200 B")
                .contains(String.format(java.util.Locale.ROOT, "needs %,d bytes on disk", needed))
                .contains(String.format(java.util.Locale.ROOT, "%s has %,d bytes free", store, needed - 1))
                .contains("give the store more disk, or hold fewer entries or smaller values");
        assertThat(DiskFit.shortfall(sizing, true, needed, store))
                .as("its reverse index needs as much again")
                .contains("with its reverse index");
    }

    @Test
    void createGeneration_refusesAGenerationTooBigForTheDisk_beforeCreatingAnyFile() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "big", StorePermissions.DEFAULT);
                AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> 100_000)) {
            assertThatThrownBy(() -> writer.createGeneration(new GenerationSizing(1_000_000, 16, 200, 2.0), true))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("a generation of 1,000,000 entries")
                    .hasMessageContaining("has 100,000 bytes free");
            assertThat(generationFiles(layout, "big")).isEmpty();
        }
    }

    private static List<String> generationFiles(StoreLayout layout, String namespace) throws IOException {
        try (Stream<Path> files = Files.list(layout.namespaceDir(namespace))) {
            return files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".cmap"))
                    .toList();
        }
    }

    /** A completely full disk is not "free space unknown": nothing fits it. */
    @Test
    void createGeneration_refusesEveryGenerationOnAFullDisk() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "full", StorePermissions.DEFAULT);
                AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> 0)) {
            assertThatThrownBy(() -> writer.createGeneration(new GenerationSizing(1024, 16, 32, 2.0)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("has 0 bytes free");
            assertThat(generationFiles(layout, "full")).isEmpty();
        }
    }

    @Test
    void usableSpace_isUnknownWhenTheFileSystemCannotSay_andMeasuredOtherwise() {
        assertThat(DiskFit.fileSystemFreeSpace(store.resolve("no-such-dir"))).isEqualTo(DiskFit.UNKNOWN);
        assertThat(DiskFit.fileSystemFreeSpace(store)).isPositive();
    }

    /** The check is only an early, clearer refusal: when the size cannot be estimated, the generation is made. */
    @Test
    void createGeneration_skipsTheCheck_whenChronicleCannotBeAskedForTheTiers() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "unknown", StorePermissions.DEFAULT);
                AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> 100_000);
                AutoCloseable tiers = DiskFit.pretendTiersUnknown(new IllegalStateException("builder not readable"))) {
            try (GenerationFile generation = writer.createGeneration(new GenerationSizing(1024, 16, 32, 2.0))) {
                assertThat(generation.capacity()).isEqualTo(1024);
            }
            assertThat(generationFiles(layout, "unknown")).hasSize(1);
        }
    }

    /** A generation no reader could map is refused as such (not retried), not as "give the store more disk". */
    @Test
    void createGeneration_refusesTiersReadersCannotMap_beforeAskingTheDisk() throws Exception {
        StoreLayout layout = new StoreLayout(store);
        try (NamespaceDirectory writer = NamespaceDirectory.open(layout, "huge", StorePermissions.DEFAULT);
                AutoCloseable disk = DiskFit.pretendFreeSpace(dir -> 100_000)) {
            assertThatThrownBy(() -> writer.createGeneration(new GenerationSizing(1024, 16, 32, 2.0, 1536L << 20)))
                    .isInstanceOf(NoRoomForEntryException.class)
                    .hasMessageContaining("over what readers can map");
            assertThat(generationFiles(layout, "huge")).isEmpty();
        }
    }
}
