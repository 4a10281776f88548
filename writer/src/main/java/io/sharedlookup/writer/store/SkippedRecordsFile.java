package io.sharedlookup.writer.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * {@value #NAME} in a namespace's directory: the last records the writer skipped for that namespace, one per line
 * ({@code partition<TAB>offset<TAB>time<TAB>reason}), so that {@code inspect}, which runs in another process and
 * possibly after the writer stopped, can show them. Replaced whole (written beside, then renamed) after each poll batch
 * that skipped a record; readers of the store never look at it.
 */
public final class SkippedRecordsFile {
    public static final String NAME = "skipped-records.tsv";
    private static final String HEADER = "# partition\toffset\ttime\treason (the last records the writer skipped)";

    private SkippedRecordsFile() {}

    /** Replaces the file in {@code dir} with {@code lines} ({@code partition\toffset\ttime\treason} each). */
    static void write(Path dir, StorePermissions permissions, List<String> lines) throws IOException {
        Path tmp = dir.resolve(NAME + ".tmp");
        Files.deleteIfExists(tmp);
        permissions.createFile(tmp); // a fresh regular file with the store's file mode: nothing followed
        Files.writeString(tmp, HEADER + "\n" + String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, dir.resolve(NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The lines of the file in {@code dir}, header left out; empty when there is none (nothing skipped). */
    public static List<String> read(Path dir) throws IOException {
        Path file = dir.resolve(NAME);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank() && !l.startsWith("#"))
                    .toList();
        } catch (NoSuchFileException replacedMeanwhile) {
            return List.of();
        }
    }
}
