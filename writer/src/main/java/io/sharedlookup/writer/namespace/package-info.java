/**
 * One namespace's generations, driven by the ingest thread: where a start resumes or rebuilds from
 * ({@link io.sharedlookup.writer.namespace.ResumeDecision}, pure), applying records
 * ({@link io.sharedlookup.writer.namespace.NamespaceIngest}), sizing a rebuild's first generation
 * ({@link io.sharedlookup.writer.namespace.InitialSizing}), growing or replacing a generation by a copy and when to
 * retry that ({@link io.sharedlookup.writer.namespace.Growth},
 * {@link io.sharedlookup.writer.namespace.BackgroundCopy}), publishing, checkpointing and closing
 * ({@link io.sharedlookup.writer.namespace.GenerationLife}), and the status HTTP shows
 * ({@link io.sharedlookup.writer.namespace.NamespaceStatus}).
 *
 * <p>A namespace tells the ingest thread what it cannot do through exceptions: a record to skip
 * ({@link io.sharedlookup.writer.namespace.RecordSkippedException}), a topic to pause
 * ({@link io.sharedlookup.writer.namespace.StalledException}) or to read again from its beginning
 * ({@link io.sharedlookup.writer.namespace.RebuildNeededException}). It knows nothing of Kafka but offsets
 * ({@link io.sharedlookup.writer.namespace.Positions}); the file format is {@code io.sharedlookup.writer.store}'s.
 */
package io.sharedlookup.writer.namespace;
