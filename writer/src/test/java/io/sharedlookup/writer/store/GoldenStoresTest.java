package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.testing.GoldenStores;
import io.sharedlookup.testing.TestStores;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regenerates the golden stores ({@link GoldenStores}) and compares them with the ones checked in under
 * {@code reader-lib/src/test/resources/golden/}, which reader-lib's own tests read.
 *
 * <p>Compared is what readers depend on, at the level where it is stable from run to run:
 * <ul>
 *   <li>each manifest's properties, except the four that name or stamp a generation rather than describe the
 *       format ({@code generation}, {@code data.file}, {@code content.version}, {@code published.at}): so {@code format.version}, every
 *       {@code layout.*} and {@code reverse.layout.*} key, the digest, offsets and attributes, and the set of keys;</li>
 *   <li>the files of each namespace (generation numbers masked) and their sizes;</li>
 *   <li>the decoded contents, read through reader-lib from both stores, and the expected-contents files;</li>
 *   <li>the {@code writer.status} file, byte for byte (its clock fields are pinned by the generator).</li>
 * </ul>
 * The generation files are not compared byte for byte: Chronicle's own header (which readers never read) and where it
 * happens to place entries are not part of the format; the layout keys and the decoded contents are.
 *
 * <p>A difference while {@code format.version} is unchanged means the format moved without a version bump, and the
 * test says so in one line. To accept a change, regenerate with {@code -Dsharedlookup.updateGolden=true}.
 */
class GoldenStoresTest {
    private static final String REGENERATE = "./mvnw -B -o -pl writer -am verify -Dtest=GoldenStoresTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dit.test=none -Dfailsafe.failIfNoSpecifiedTests=false "
            + "-Dsharedlookup.updateGolden=true";
    /** Manifest properties that name or stamp a generation (two from the clock): readers only compare them. */
    private static final List<String> CLOCK_KEYS =
            List.of("generation", "data.file", "content.version", "published.at");

    @TempDir
    Path fresh;

    /** The checked-in golden directory: reader-lib's test resources, found from wherever Maven runs the test. */
    static Path goldenDir() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("reader-lib/pom.xml"))) {
                return dir.resolve("reader-lib/src/test/resources/golden");
            }
        }
        throw new IllegalStateException(
                "reader-lib/pom.xml not found above " + Path.of("").toAbsolutePath());
    }

    @Test
    void theCheckedInGoldenStoresAreWhatTheWriterWritesToday() throws IOException {
        GoldenStores.write(fresh.resolve("store"), fresh.resolve("expected"));
        Path golden = goldenDir();
        if (Boolean.getBoolean("sharedlookup.updateGolden")) {
            replace(golden, fresh);
            return;
        }
        assertThat(golden.resolve("store"))
                .as("no golden stores at " + golden + ": generate them with " + REGENERATE)
                .isDirectory();

        List<String> formatChanges = new ArrayList<>();
        List<String> contentChanges = new ArrayList<>();
        String checkedInVersion = null;
        for (String ns : GoldenStores.namespaces()) {
            Path was = golden.resolve("store").resolve(ns);
            Path now = fresh.resolve("store").resolve(ns);
            Map<String, String> wasManifest = manifest(was);
            Map<String, String> nowManifest = manifest(now);
            checkedInVersion = wasManifest.get("format.version");
            differences(ns + "/manifest.properties", stable(wasManifest), stable(nowManifest), formatChanges);
            differences(ns + " files", files(was), files(now), formatChanges);
            if (!Arrays.equals(status(was), status(now))) {
                formatChanges.add(ns + "/" + WriterStatusDescriptor.FILE_NAME + " bytes differ");
            }
            if (!TestStores.contents(golden.resolve("store"), ns)
                    .equals(TestStores.contents(fresh.resolve("store"), ns))) {
                contentChanges.add(ns + ": decoded contents differ");
            }
            for (String suffix : List.of(".expected.properties", ".absent.properties")) {
                if (!Files.exists(golden.resolve("expected").resolve(ns + suffix))
                        || !Files.readString(golden.resolve("expected").resolve(ns + suffix))
                                .equals(Files.readString(
                                        fresh.resolve("expected").resolve(ns + suffix)))) {
                    contentChanges.add(ns + suffix + " differs");
                }
            }
        }
        String writes = Integer.toString(Manifest.FORMAT_VERSION);
        if (!writes.equals(checkedInVersion)) {
            fail("The golden stores are store format version " + checkedInVersion + " and the writer writes " + writes
                    + ": regenerate them with " + REGENERATE);
        }
        if (!formatChanges.isEmpty()) {
            fail("The store format changed (" + formatChanges.get(0)
                    + (formatChanges.size() > 1 ? ", and " + (formatChanges.size() - 1) + " more" : "")
                    + ") but format.version is still " + writes
                    + ": bump Manifest.FORMAT_VERSION and CHANGELOG.md's \"Store format versions\" table (unless readers "
                    + "of version " + writes + " read the new files unchanged), and regenerate the golden stores with "
                    + REGENERATE);
        }
        if (!contentChanges.isEmpty()) {
            fail("The golden stores' contents differ from what GoldenStores defines ("
                    + String.join("; ", contentChanges) + "): regenerate them with " + REGENERATE);
        }
    }

    private static Map<String, String> manifest(Path namespaceDir) throws IOException {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(namespaceDir.resolve("manifest.properties"), StandardCharsets.UTF_8)) {
            p.load(in);
        }
        Map<String, String> all = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> all.put(k, p.getProperty(k)));
        return all;
    }

    private static Map<String, String> stable(Map<String, String> manifest) {
        Map<String, String> stable = new TreeMap<>(manifest);
        CLOCK_KEYS.forEach(k -> stable.put(k, stable.containsKey(k) ? "(varies)" : null));
        stable.values().removeIf(Objects::isNull);
        return stable;
    }

    /** The namespace's files, generation numbers masked, with their sizes. */
    private static Map<String, String> files(Path namespaceDir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(namespaceDir)) {
            for (Path f : list.toList()) {
                files.put(f.getFileName().toString().replaceAll("^g\\d{10}", "gN"), Long.toString(Files.size(f)));
            }
        }
        return files;
    }

    private static byte[] status(Path namespaceDir) throws IOException {
        Path file = WriterStatusDescriptor.of(namespaceDir);
        return Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
    }

    private static void differences(String where, Map<String, String> was, Map<String, String> now, List<String> out) {
        TreeMap<String, String> keys = new TreeMap<>();
        was.keySet().forEach(k -> keys.put(k, k));
        now.keySet().forEach(k -> keys.put(k, k));
        for (String k : keys.keySet()) {
            if (!Objects.equals(was.get(k), now.get(k))) {
                out.add(where + ": " + k + " was " + was.get(k) + ", now " + now.get(k));
            }
        }
    }

    /** Replaces the checked-in golden directory with the freshly written one. */
    private static void replace(Path golden, Path fresh) throws IOException {
        if (Files.exists(golden)) {
            try (Stream<Path> old = Files.walk(golden)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        try (Stream<Path> all = Files.walk(fresh)) {
            for (Path p : all.sorted().toList()) {
                Path target = golden.resolve(fresh.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
