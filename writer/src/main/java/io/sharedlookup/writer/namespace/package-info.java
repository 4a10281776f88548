/**
 * One namespace's generations, driven by the ingest thread: where a start resumes or rebuilds from
 * ({@link io.sharedlookup.writer.namespace.ResumeDecision}, pure), applying records
 * ({@link io.sharedlookup.writer.namespace.NamespaceIngest}), sizing a rebuild's first generation
 * ({@link io.sharedlookup.writer.namespace.InitialSizing}), growing or replacing a generation by a copy and when to
 * retry that ({@link io.sharedlookup.writer.namespace.Growth},
 * {@link io.sharedlookup.writer.namespace.BackgroundCopy}), creating, publishing, checkpointing, discarding and closing
 * ({@link io.sharedlookup.writer.namespace.GenerationLife}), and the status HTTP shows
 * ({@link io.sharedlookup.writer.namespace.NamespaceStatus}).
 *
 * <p>A namespace tells the ingest thread what it cannot do through the {@link io.sharedlookup.writer.namespace.Applied}
 * its {@code apply} and {@code afterBatch} return: a record to skip, a topic to pause and read again, or to read again
 * from its beginning; real failures are still thrown. It knows nothing of Kafka but offsets
 * ({@link io.sharedlookup.writer.namespace.Positions}); the file format is {@code io.sharedlookup.writer.store}'s.
 */
package io.sharedlookup.writer.namespace;
