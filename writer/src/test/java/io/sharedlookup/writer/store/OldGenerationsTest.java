package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which generation files a publish deletes: those older than the generation it replaces, never that one. */
class OldGenerationsTest {
    @TempDir
    Path store;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    /**
     * Generation numbers can skip one (a file left behind by a generation that failed half-way counts as used). A
     * publish used to delete every generation below its own number minus one, so after a skip it deleted the one it
     * had just replaced, which a reader that read the manifest a moment before was about to open.
     */
    @Test
    void aPublishKeepsTheGenerationItReplacesAfterASkippedNumberAndTheNextOneDeletesIt() throws Exception {
        NamespaceDirectory writer = NamespaceDirectory.open(new StoreLayout(store), "users", StorePermissions.DEFAULT);
        opened.add(writer);
        GenerationFile first = publishedWithOneEntry(writer);
        // What a generation whose reverse index could not be created used to leave: its sequence file, one number up.
        long firstNumber = number(first);
        Path leftover = SequenceFile.of(first.file().resolveSibling(StoreLayout.generationFileName(firstNumber + 1)));
        Files.createFile(leftover);

        GenerationFile second = publishedWithOneEntry(writer);
        assertThat(number(second)).as("the number after the leftover's").isEqualTo(firstNumber + 2);
        assertThat(first.file()).as("the generation just replaced").exists();
        assertThat(SequenceFile.of(first.file())).exists();

        publishedWithOneEntry(writer);
        assertThat(first.file()).as("older than the one replaced now").doesNotExist();
        assertThat(SequenceFile.of(first.file())).doesNotExist();
        assertThat(leftover).doesNotExist();
        assertThat(second.file()).exists();
    }

    private GenerationFile publishedWithOneEntry(NamespaceDirectory writer) throws Exception {
        GenerationFile g = writer.createGeneration(GenerationSizing.forExpected(10, 4, 8), false);
        opened.add(0, g); // closed before the writer
        g.put("1", "Ada", 1_000_000_000L);
        writer.publish(g, "users", Map.of(0, 1L), true, Map.of());
        return g;
    }

    private static long number(GenerationFile g) {
        return StoreLayout.generationOf(g.file().getFileName().toString()).orElseThrow();
    }
}
