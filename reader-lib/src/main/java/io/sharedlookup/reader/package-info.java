/**
 * Read reference data from a shared-lookup store in place: the data stays in memory-mapped files shared by every JVM
 * on the host, none of it on the Java heap.
 *
 * <pre>{@code
 * try (SharedLookupStore store = SharedLookupStore.open(Path.of("/var/lib/shared-lookup"))) {
 *     Lookup users = store.lookup("users");
 *     String name = users.get("42");                 // null when absent
 *     ValueBuffer value = new ValueBuffer();         // one per thread; a CharSequence
 *     if (users.getInto("42", value)) {              // allocation-free
 *         System.out.println(value);
 *     }
 *     String[] ids = {"42", "43"};
 *     ValueBuffer[] values = {new ValueBuffer(), new ValueBuffer()};
 *     int found = users.getAllInto(ids, values, ids.length); // many keys at once: the fastest per key
 * }
 * }</pre>
 *
 * <p>The library depends on slf4j-api alone and needs no JVM flag and only read permission on the store: it maps the
 * writer's files read-only and takes no lock. See docs/reader.md.
 */
package io.sharedlookup.reader;
