/**
 * shared-lookup's reader: read reference data from a shared-lookup store in place (see {@link
 * io.sharedlookup.reader.SharedLookupStore}).
 *
 * <p>Only {@code io.sharedlookup.reader} is exported. {@code io.sharedlookup.internal.store}, the read side of the
 * store format, is not an API: an application on the module path that imports it does not compile. On the class path
 * (where the writer, which needs the internal package, and the Druid extension use this jar) the descriptor is
 * ignored: there applications keep to the public package by convention (docs/reader.md, "Layering").
 */
module io.sharedlookup.reader {
    requires org.slf4j;

    exports io.sharedlookup.reader;
}
