package io.sharedlookup.reader;

import java.nio.file.Path;

/**
 * Child JVM main: says whether JNA and jnr-ffi are loadable, looks key {@code 1} up, then waits for the parent to
 * publish a generation in which it reads {@code Ada Lovelace}. Args: storeDir namespace.
 */
public final class NoNativeBindingsReaderMain {
    public static void main(String[] args) throws Exception {
        System.out.println("JNA_PRESENT=" + loadable("com.sun.jna.Native"));
        System.out.println("JNR_PRESENT=" + loadable("jnr.ffi.LibraryLoader"));
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            Lookup lookup = store.lookup(args[1]);
            System.out.println("LOOKUP 1=" + lookup.get("1"));
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!"Ada Lovelace".equals(lookup.get("1"))) {
                if (System.nanoTime() > deadline) {
                    System.out.println("NO NEW GENERATION SEEN");
                    System.exit(1);
                }
                Thread.sleep(10); // polling the library's own switch, which is what is under test
            }
            System.out.println("SWITCHED 1=" + lookup.get("1"));
        }
        System.out.println("DONE");
    }

    private static boolean loadable(String className) {
        try {
            Class.forName(className, false, NoNativeBindingsReaderMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
