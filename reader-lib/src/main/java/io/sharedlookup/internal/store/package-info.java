/**
 * The one implementation of the shared-lookup store format: layout, manifests, generations, sizing and bounded-wait
 * map access. Used by reader-lib's public API and by the writer.
 *
 * <p><b>Not an API.</b> Nothing in this package is covered by compatibility promises; applications use
 * {@code io.sharedlookup.reader} only.
 */
package io.sharedlookup.internal.store;
