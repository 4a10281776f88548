package io.sharedlookup.writer;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.StoreLayout;
import java.nio.file.Path;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;

/**
 * Child-JVM main playing a reader that dies holding a segment lock: takes the lock of {@code key}'s segment in the
 * published generation, says so, and waits to be killed with SIGKILL (the lock stays held in the file).
 * Arguments: store dir, namespace, key, and {@code read} (a lookup) or {@code update} (what a scan such as
 * {@code Lookup.forEach} or a reverse-lookup scan holds, segment by segment).
 */
public final class HoldSegmentLock {
    public static void main(String[] args) throws Exception {
        StoreLayout layout = new StoreLayout(Path.of(args[0]));
        Manifest m = Manifest.read(layout.manifest(args[1]));
        ChronicleMap<CharSequence, CharSequence> map = ChronicleMapBuilder.of(CharSequence.class, CharSequence.class)
                .createPersistedTo(
                        layout.namespaceDir(args[1]).resolve(m.dataFile()).toFile());
        ExternalMapQueryContext<CharSequence, CharSequence, ?> c = map.queryContext(args[2]);
        if ("update".equals(args[3])) {
            c.updateLock().lock();
        } else {
            c.readLock().lock();
        }
        System.out.println("LOCKED " + m.dataFile());
        Thread.currentThread().join(); // until killed
    }
}
