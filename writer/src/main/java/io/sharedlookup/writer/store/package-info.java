/**
 * The write side of the store format: the only code that runs Chronicle Map. Creates, fills, grows and publishes
 * generations, keeps each map file's sequence counters ({@link io.sharedlookup.writer.store.SegmentCounters}) so that
 * readers can read without locks, and publishes each file's layout in the manifest for reader-lib's Chronicle-free
 * reader ({@code io.sharedlookup.internal.store}).
 */
package io.sharedlookup.writer.store;
