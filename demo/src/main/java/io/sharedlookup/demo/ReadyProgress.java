package io.sharedlookup.demo;

import io.sharedlookup.writer.WriterApp;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import java.io.PrintStream;

/**
 * Prints how far the writer is with its first generation of the demo's namespace until it is ready, so that a person
 * who just ran the demo sees it at work rather than a silent terminal.
 */
final class ReadyProgress {
    /** How often the writer's status is looked at. */
    private static final long LOOK_MILLIS = 250;
    /** A line per this many percent at most, and always the first and the last. */
    private static final int STEP_PERCENT = 20;

    private ReadyProgress() {}

    /**
     * Prints "waiting for the writer to be ready: N % (E of R records)" as the entries of {@code namespace} grow
     * towards the {@code records} produced, then one line once it is ready.
     *
     * @throws InterruptedException when the demo stops meanwhile
     */
    static void printUntilReady(WriterApp writer, String namespace, long records, PrintStream out)
            throws InterruptedException {
        int printed = -1;
        long started = System.nanoTime();
        while (true) {
            NamespaceStatus status = writer.statuses().get(namespace);
            if (status != null && status.ready()) {
                out.println("Writer ready after " + (System.nanoTime() - started) / 1_000_000 + " ms: namespace '"
                        + namespace + "' holds " + status.entries() + " entries; readers see them now. Lookups "
                        + "through reader-lib follow every 5 s:");
                return;
            }
            long entries = status == null ? 0 : status.entries();
            // Not 100 % before it is ready: the last records (and the publication) are still to come.
            int percent = (int) Math.min(99, entries * 100 / Math.max(1, records));
            if (printed < 0 || percent >= printed + STEP_PERCENT) {
                out.println("Waiting for the writer to be ready: " + percent + " % (" + entries + " of " + records
                        + " records)"
                        + (status == null || status.notReadyReason() == null ? "" : ": " + status.notReadyReason()));
                printed = percent;
            }
            Thread.sleep(LOOK_MILLIS);
        }
    }
}
