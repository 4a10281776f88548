package io.sharedlookup.writer;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Path;
import java.util.TreeMap;

/** Child-JVM main: reads a namespace with reader-lib and prints it as one JSON line, so tests compare from outside. */
public final class DumpNamespace {
    public static void main(String[] args) throws Exception {
        try (SharedLookupStore store = SharedLookupStore.open(Path.of(args[0]))) {
            Lookup lookup = store.lookup(args[1]);
            TreeMap<String, String> all = new TreeMap<>();
            lookup.forEach(all::put);
            System.out.println("DUMP " + new ObjectMapper().writeValueAsString(all));
        }
    }
}
