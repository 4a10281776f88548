package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.Manifest;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a writer opening a namespace makes of its manifest: the published generation to continue from, or, when there
 * is none it can use, the number new generations must be numbered above and why the namespace is rebuilt from its
 * topic. A manifest that cannot be read as one (empty after a power loss, garbage, a link) or is of store format
 * version 1 never stops the writer: Kafka has everything. Kept apart from {@link NamespaceDirectory} because deciding
 * this is done once, at open, and the directory only keeps the outcome.
 *
 * @param published       the manifest readers see now; null when there is none the writer can use
 * @param generationFloor new generations are numbered above it; 0 when a manifest was read
 * @param rebuildReason   why the namespace must be rebuilt although a manifest exists; null otherwise
 */
record ManifestAtOpen(Manifest published, long generationFloor, String rebuildReason) {
    // Logged under NamespaceDirectory, as before this was split out: operators' log settings name that class.
    private static final Logger log = LoggerFactory.getLogger(NamespaceDirectory.class);

    /**
     * Reads {@code manifestFile} of {@code namespace}, whose generation files are in {@code dir}. Without a usable
     * manifest, new generations are numbered above every generation file in {@code dir} and above {@code freshFloor}
     * (above the version-1 generation for an old-format one).
     *
     * @throws IOException when the manifest or the directory cannot be read for another reason
     */
    static ManifestAtOpen read(Path manifestFile, Path dir, String namespace, long freshFloor) throws IOException {
        try {
            return new ManifestAtOpen(ManifestFiles.read(manifestFile), 0, null);
        } catch (NoSuchFileException e) {
            // a new namespace, or one whose directory was deleted to rebuild it
            return new ManifestAtOpen(null, Math.max(freshFloor, OldGenerations.highestIn(dir)), null);
        } catch (Manifest.OldFormatException e) {
            // Written by a release whose readers went through Chronicle: build a version-2 generation from the topic.
            // Its number follows the old one, so readers of either release never mistake one for the other.
            log.warn(
                    "Namespace '{}' is store format version 1; rebuilding it from the topic as version {}",
                    namespace,
                    Manifest.FORMAT_VERSION);
            return new ManifestAtOpen(
                    null,
                    Math.max(e.generation(), OldGenerations.highestIn(dir)),
                    "its manifest is store format version 1");
        } catch (ManifestFiles.UnreadableManifestException e) {
            // Empty after a power loss, garbage, a link: Kafka has everything, so rebuild this namespace from its
            // topic.
            // Numbered above every generation on disk, so that no number is ever used for two different files.
            long generationFloor = Math.max(freshFloor, OldGenerations.highestIn(dir));
            log.warn(
                    "Namespace '{}': manifest {} is unreadable ({}); rebuilding the namespace from its topic as "
                            + "generation {} or later",
                    namespace,
                    manifestFile,
                    e.getMessage(),
                    generationFloor + 1);
            return new ManifestAtOpen(
                    null, generationFloor, "its manifest " + manifestFile + " is unreadable: " + e.getMessage());
        }
    }

    /**
     * The newest generation that may be in use: files numbered above it are what a killed writer left. Without a
     * readable manifest, files up to the floor are kept until a publish deletes them, as usual: a reader may still be
     * serving one of them.
     */
    long newestInUse() {
        return published != null ? published.generation() : generationFloor > 0 ? generationFloor : -1;
    }
}
