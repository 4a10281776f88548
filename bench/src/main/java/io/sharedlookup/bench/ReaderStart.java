package io.sharedlookup.bench;

import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;

/**
 * A reader JVM's first lookup, for {@link BootstrapHarness}: opens the store, looks one key up, prints
 * {@code FOUND <System.currentTimeMillis() when the value was in hand> <value>} and exits. The harness subtracts the
 * wall-clock time at which it started the process (same host, same clock).
 *
 * <p>Usage: {@code ReaderStart <store dir> <namespace> <key>}.
 */
public final class ReaderStart {
    private ReaderStart() {}

    public static void main(String[] args) {
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            String value = store.lookup(args[1]).get(args[2]);
            long at = System.currentTimeMillis();
            System.out.println("FOUND " + at + " " + value);
            System.out.flush();
        }
    }
}
