/**
 * Operator commands of the writer's jar ({@code inspect}, {@code get}, {@code dump}, {@code verify}, {@code diff}):
 * read-only on a store, through reader-lib as any reader would, so they need read permission only and no JVM flag,
 * and may run beside a live writer.
 */
package io.sharedlookup.writer.tools;
