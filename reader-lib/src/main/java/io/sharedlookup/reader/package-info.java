/**
 * Read reference data from a shared-lookup store in place: the data stays in memory-mapped files shared by every JVM
 * on the host, none of it on the Java heap.
 *
 * <pre>{@code
 * try (SharedLookupStore store = SharedLookupStore.open(Path.of("/var/lib/shared-lookup"))) {
 *     Lookup users = store.lookup("users");
 *     String name = users.get("42");                 // null when absent
 *     StringBuilder out = new StringBuilder();
 *     if (users.getInto("42", out)) { ... }         // allocation-free
 * }
 * }</pre>
 *
 * <p>The JVM needs Chronicle Map's module flags; see docs/reader.md.
 */
package io.sharedlookup.reader;
