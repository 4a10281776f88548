package io.sharedlookup.writer;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;

/**
 * Child-JVM main playing a reader that dies holding a segment read lock: takes the read lock of {@code key}'s segment
 * in the published generation, says so, and waits to be killed with SIGKILL (the lock stays held in the file).
 */
public final class HoldReadLock {
    public static void main(String[] args) throws Exception {
        StoreLayout layout = new StoreLayout(Path.of(args[0]));
        Manifest m = Manifest.read(layout.manifest(args[1]));
        ChronicleMap<CharSequence, CharSequence> map = ChronicleMapBuilder.of(CharSequence.class, CharSequence.class)
                .createPersistedTo(layout.namespaceDir(args[1]).resolve(m.dataFile()).toFile());
        ExternalMapQueryContext<CharSequence, CharSequence, ?> c = map.queryContext(args[2]);
        c.readLock().lock();
        System.out.println("LOCKED " + m.dataFile());
        Thread.currentThread().join(); // until killed
    }
}
