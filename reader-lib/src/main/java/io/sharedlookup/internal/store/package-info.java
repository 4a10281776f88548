/**
 * The read side of the shared-lookup store format: layout, manifests, and the lock-free, read-only reader of the
 * writer's Chronicle Map files (format version 2, no Chronicle on the class path). Used by reader-lib's public API
 * and by the writer; the write side lives in the writer ({@code io.sharedlookup.writer.store}).
 *
 * <p>Who does what in the reader of a map file ({@link MappedMap}): {@link MapFileMappings} maps the file and knows
 * where each tier lies; {@link MapLayout} holds the layout's arithmetic and its byte diagram; {@link EntryBytes}
 * decodes an entry's bytes; {@link KeyClassifier} tells a key's shape apart; {@link MappedMap} makes the first attempt
 * at a key; {@link GeneralLookup} decides what that attempt leaves undecided; {@link BatchLookup} runs the first
 * attempt over many keys at once; {@link SegmentScans} counts and copies whole segments; {@link RaceWaits} says how
 * {@link GeneralLookup} and {@link SegmentScans} wait after a race with the writer; {@link MappedMapFile},
 * {@link MappedMap}'s superclass, holds what is done to the file as a whole (its scans, the writer it follows, its
 * release).
 *
 * <p><b>Not an API.</b> Nothing in this package is covered by compatibility promises; applications use
 * {@code io.sharedlookup.reader} only.
 */
package io.sharedlookup.internal.store;
