import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A reader as an application embeds it, run from source with reader-lib and slf4j-api alone on the class path and no
 * JVM flag: prints a few lookups, waits for key 1 to change, and checks that it cannot write to the store.
 * Arguments: store directory, namespace, the value key 1 changes to.
 */
public class ReaderProbe {
    public static void main(String[] args) throws Exception {
        Path store = Path.of(args[0]);
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup lookup = s.lookup(args[1]);
            System.out.println("GET 1=" + lookup.get("1"));
            System.out.println("GET 2=" + lookup.get("2"));
            System.out.println("GET 3=" + lookup.get("3"));
            System.out.println("SIZE=" + lookup.size());
            System.out.println("READY");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!args[2].equals(lookup.get("1")) && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            System.out.println("FOLLOWED 1=" + lookup.get("1"));
            Path manifest = store.resolve(args[1]).resolve("manifest.properties");
            try (var out = Files.newOutputStream(manifest, StandardOpenOption.APPEND)) {
                System.out.println("WRITE_DENIED=false");
            } catch (java.io.IOException e) {
                System.out.println("WRITE_DENIED=true");
            }
        }
    }
}
