package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.StoreFormatException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * The Chronicle Map behind a {@link GenerationFile}: the settings every generation is built with, and how its file is
 * created or opened. Kept apart from {@link GenerationFile}, which owns what is done with an open map, because getting
 * a map is its own concern: a file that could not be created is never left behind, an existing file is never replaced
 * by a fresh map with default settings, and Chronicle's failures reach the writer as {@link ChronicleFailures} says.
 */
final class GenerationMaps {
    private GenerationMaps() {}

    /** The builder every generation (and its reverse index) starts from, before it is sized. */
    static ChronicleMapBuilder<CharSequence, CharSequence> builder() {
        // Chronicle's own exit hook would close maps while the writer's shutdown (or a reader's last lookups) still
        // use them; every owner here closes its generations itself.
        // No entry checksums: they only serve Chronicle's own recovery, which the writer never runs (a damaged
        // generation is rebuilt from Kafka), and readers skip them. Measured 3-5% of a put, within the noise of a
        // shared machine. Files written with checksums still open: Chronicle reads the setting from the header.
        return ChronicleMapBuilder.of(CharSequence.class, CharSequence.class)
                .skipCloseOnExitHook(true)
                .checksumEntries(false);
    }

    /** Creates a new, empty generation file; refuses to touch an existing one. */
    static GenerationFile create(Path file, GenerationSizing sizing, StorePermissions permissions) throws IOException {
        var configured = EntryRoom.configure(builder(), sizing); // first: a NoRoomForEntryException leaves no file
        // Created empty so that permissions are right before anything is mapped, and an existing file is never reused
        Files.createFile(file, permissions.fileAttributes());
        try {
            permissions.applyToFile(file);
            ChronicleMap<CharSequence, CharSequence> map = configured.createPersistedTo(file.toFile());
            try {
                return new GenerationFile(
                        file, map, sizing.entries(), SegmentCounters.create(file, map.segments(), permissions));
            } catch (IOException | RuntimeException e) {
                map.close();
                throw e;
            }
        } catch (IOException | RuntimeException | Error e) {
            Files.deleteIfExists(file);
            Files.deleteIfExists(SequenceFile.of(file));
            throw ChronicleFailures.ofCreate(file, e);
        }
    }

    /**
     * Opens an existing generation file of the given (published) capacity. Never creates one: a missing or empty file
     * is an error, since Chronicle would otherwise create a fresh map with default settings in its place.
     *
     * @throws StoreFormatException when the file is missing, empty, truncated or corrupt
     */
    static GenerationFile open(Path file, long capacity) {
        GenerationFileCheck.requireWhole(file);
        try {
            ChronicleMap<CharSequence, CharSequence> map = builder().createPersistedTo(file.toFile());
            try {
                return new GenerationFile(file, map, capacity, SegmentCounters.open(file, map.segments()));
            } catch (IOException | RuntimeException e) {
                map.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            throw ChronicleFailures.ofOpen(file, e);
        } catch (Error e) {
            throw ChronicleFailures.ofOpen(file, e);
        }
    }
}
