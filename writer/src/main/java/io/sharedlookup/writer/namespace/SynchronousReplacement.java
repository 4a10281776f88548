package io.sharedlookup.writer.namespace;

import io.sharedlookup.writer.store.EntrySizes;
import io.sharedlookup.writer.store.EntryTooLargeException;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A namespace's target copied, on the ingest thread, into a new generation that then replaces it: nothing is
 * consumed meanwhile, so no update is lost or reordered. A copy never drops an entry (one the new generation refuses
 * makes it build one sized for it), and a copy that cannot be published is deleted.
 */
final class SynchronousReplacement {
    private static final Logger log = LoggerFactory.getLogger(SynchronousReplacement.class);

    private final GenerationLife life;
    private final EntrySizes sizes;
    private final String nsLabel;

    SynchronousReplacement(GenerationLife life, EntrySizes sizes, String namespace) {
        this.life = life;
        this.sizes = sizes;
        this.nsLabel = namespace;
    }

    /**
     * Copies the current target into a new generation of {@code newSizing} and switches to it; a published target
     * is replaced by publishing the copy. Never leaves a half-built generation visible.
     */
    void replace(GenerationSizing newSizing, Positions positions, boolean positionsExact) throws IOException {
        GenerationFile old = life.target();
        GenerationSizing sizing = newSizing;
        GenerationFile next = life.create(sizing);
        long[] refused = new long[1];
        while (true) {
            GenerationFile to = next;
            try {
                old.forEach(
                        (k, v) -> {
                            try {
                                to.put(k, v, BackgroundCopy.COPY_LOCK_NANOS);
                            } catch (EntryTooLargeException e) {
                                refused[0] = EntrySizes.bytesOf(k, v);
                                throw e;
                            }
                        },
                        BackgroundCopy.COPY_LOCK_NANOS);
                break;
            } catch (EntryTooLargeException e) {
                life.discard(next);
                if (refused[0] <= sizing.largestEntryBytes()) {
                    throw e; // sized for it and still refused: no bigger size would do
                }
                // Never dropped: the entry is stored, so a generation made to take it is built instead.
                sizes.mustTake(refused[0]);
                sizing = sizing.withLargestEntry(refused[0]);
                log.warn(
                        "Namespace '{}': an entry of {} bytes does not fit the new generation; building one that "
                                + "takes it",
                        nsLabel,
                        refused[0]);
                next = life.create(sizing);
            } catch (RuntimeException e) {
                life.discard(next);
                throw e;
            }
        }
        try {
            life.switchTo(next, sizing, positions, positionsExact);
        } catch (IOException | RuntimeException e) {
            discardUnpublished(next); // a failed publish left it to no one: it would stay on disk for good
            throw e;
        }
    }

    /** Deletes a copy that was not published (its publish failed), so that no failed growth leaves a file behind. */
    void discardUnpublished(GenerationFile next) {
        try {
            life.discard(next);
        } catch (IOException | RuntimeException e) {
            log.warn("Namespace '{}': cannot delete unpublished generation {}: {}", nsLabel, next.file(), e.toString());
        }
    }
}
