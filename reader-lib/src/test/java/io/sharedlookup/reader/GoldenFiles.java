package io.sharedlookup.reader;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The golden stores checked in under {@code src/test/resources/golden/} (docs/store-format.md, "Golden stores"): the
 * store ({@code store/}) and, per namespace, its expected contents ({@code expected/<namespace>.expected.properties})
 * and keys that must be absent ({@code expected/<namespace>.absent.properties}).
 */
final class GoldenFiles {
    /** The golden namespaces. */
    static final List<String> NAMESPACES = List.of("ids", "names", "regions", "tiers", "unicode", "uuids");

    private GoldenFiles() {}

    /** Copies the golden store to {@code target} (readers must not touch the checked-in files), returns it. */
    static Path copyStoreTo(Path target) throws IOException {
        Path from = golden().resolve("store");
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.sorted().toList()) {
                Path to = target.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return target;
    }

    /** Every key of {@code namespace} and its value. */
    static Map<String, String> expected(String namespace) {
        return properties(namespace + ".expected.properties");
    }

    /** Keys {@code namespace} must not hold (removed or never written). */
    static List<String> absent(String namespace) {
        return new ArrayList<>(properties(namespace + ".absent.properties").keySet());
    }

    private static Map<String, String> properties(String name) {
        Properties p = new Properties();
        Path file = golden().resolve("expected").resolve(name);
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        Map<String, String> all = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> all.put(k, p.getProperty(k)));
        if (all.isEmpty()) {
            throw new IllegalStateException(file + " is empty: regenerate the golden stores (docs/store-format.md)");
        }
        return all;
    }

    private static Path golden() {
        try {
            return Path.of(GoldenFiles.class.getResource("/golden").toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("golden stores not on the test class path (src/test/resources/golden)", e);
        }
    }
}
