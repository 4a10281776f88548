package io.sharedlookup.reliability;

import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A reader JVM that stops inside a scan, as one does in a long GC pause or with a slow consumer: calls
 * {@code forEach} and sleeps {@code pauseMillis} in its first callback, then finishes the scan. Prints {@code PAUSED},
 * then {@code SCANNED <entries>}. Arguments: storeDir namespace pauseMillis.
 */
public final class PausingScanMain {
    public static void main(String[] args) throws Exception {
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            Lookup lookup = store.lookup(args[1]);
            long pauseMillis = Long.parseLong(args[2]);
            AtomicLong entries = new AtomicLong();
            lookup.forEach((k, v) -> {
                if (entries.getAndIncrement() == 0) {
                    System.out.println("PAUSED");
                    try {
                        Thread.sleep(pauseMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            System.out.println("SCANNED " + entries.get());
        }
    }
}
