/**
 * The read side of the shared-lookup store format: layout, manifests, and the lock-free, read-only reader of the
 * writer's Chronicle Map files (format version 2, no Chronicle on the class path). Used by reader-lib's public API
 * and by the writer; the write side lives in the writer ({@code io.sharedlookup.writer.store}).
 *
 * <p><b>Not an API.</b> Nothing in this package is covered by compatibility promises; applications use
 * {@code io.sharedlookup.reader} only.
 */
package io.sharedlookup.internal.store;
