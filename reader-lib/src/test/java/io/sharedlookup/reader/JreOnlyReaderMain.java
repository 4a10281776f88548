package io.sharedlookup.reader;

import java.nio.file.Path;

/** Child JVM main: proves it runs without jdk.compiler, then opens a store and prints lookups. Args: storeDir ns keys... */
public final class JreOnlyReaderMain {
    public static void main(String[] args) {
        System.out.println("JDK_COMPILER_PRESENT=" + ModuleLayer.boot().findModule("jdk.compiler").isPresent());
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            Lookup lookup = store.lookup(args[1]);
            for (int i = 2; i < args.length; i++) {
                System.out.println("LOOKUP " + args[i] + "=" + lookup.get(args[i]));
            }
        }
        System.out.println("DONE");
    }
}
