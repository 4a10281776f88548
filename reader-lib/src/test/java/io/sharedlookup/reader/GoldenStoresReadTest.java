package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * reader-lib against the golden stores: namespaces the writer wrote, checked in under {@code src/test/resources/golden/}
 * (see docs/store-format.md, "Golden stores"; the writer module's {@code GoldenStoresTest} keeps them current). No
 * writer is on this module's class path: these files are the only thing the reader gets, as on a host.
 *
 * <p>Every read form must give each namespace's expected contents and find none of its absent keys. The stores are read
 * from a copy whose files and directories are made read-only, and the copy must be byte for byte unchanged after
 * every test: readers never write (as root the permissions do not stop a write, the comparison does).
 */
class GoldenStoresReadTest {
    private static final List<String> NAMESPACES = GoldenFiles.NAMESPACES;
    /** The golden manifests' {@code updated.at} and writer.status' current.as.of: 2026-01-01T00:00:00Z. */
    private static final Instant CURRENT_AS_OF = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    static Path tmp;

    private static Path store;
    private static Map<String, String> fingerprint;
    private static SharedLookupStore shared;

    @BeforeAll
    static void openAReadOnlyCopy() throws Exception {
        store = GoldenFiles.copyStoreTo(tmp.resolve("store"));
        setModes(store, "r--r-----", "r-xr-x---");
        fingerprint = fingerprint(store);
        shared = SharedLookupStore.builder(store)
                .lockTimeout(Duration.ofSeconds(1))
                .open();
    }

    @AfterAll
    static void closeAndCheckNothingWasWritten() throws Exception {
        shared.close();
        try {
            assertThat(fingerprint(store))
                    .as("the store's files after reading (readers never write)")
                    .isEqualTo(fingerprint);
        } finally {
            setModes(store, "rw-r-----", "rwxr-x---"); // so that @TempDir can delete it
        }
    }

    static List<String> namespaces() {
        return NAMESPACES;
    }

    @Test
    void theStoreListsEveryGoldenNamespace() {
        assertThat(shared.namespaces()).containsExactlyInAnyOrderElementsOf(NAMESPACES);
    }

    @ParameterizedTest
    @MethodSource("namespaces")
    void getFindsEveryExpectedValueAndNoAbsentKey(String namespace) {
        Lookup lookup = shared.lookup(namespace);
        Map<String, String> expected = expected(namespace);
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertThat(lookup.get(e.getKey()))
                    .as("get(%s) in %s", e.getKey(), namespace)
                    .isEqualTo(e.getValue());
            assertThat(lookup.get(new StringBuilder(e.getKey())))
                    .as("get(StringBuilder %s)", e.getKey())
                    .isEqualTo(e.getValue());
        }
        for (String absent : absent(namespace)) {
            assertThat(lookup.get(absent))
                    .as("get(%s) in %s", absent, namespace)
                    .isNull();
        }
        assertThat(lookup.size()).isEqualTo(expected.size());
        assertThat(lookup.isCaughtUp()).isTrue();
        assertThat(lookup.contentDigest()).as("the manifest's content digest").isPresent();
    }

    @ParameterizedTest
    @MethodSource("namespaces")
    void getIntoAValueBufferAndAStringBuilderGiveTheSame(String namespace) {
        Lookup lookup = shared.lookup(namespace);
        ValueBuffer buffer = new ValueBuffer();
        StringBuilder builder = new StringBuilder();
        for (Map.Entry<String, String> e : expected(namespace).entrySet()) {
            assertThat(lookup.getInto(e.getKey(), buffer))
                    .as("getInto(%s, ValueBuffer)", e.getKey())
                    .isTrue();
            assertThat(buffer.found()).isTrue();
            assertThat(buffer.toString())
                    .as("getInto(%s, ValueBuffer) in %s", e.getKey(), namespace)
                    .isEqualTo(e.getValue());
            assertThat(buffer.length()).isEqualTo(e.getValue().length());
            builder.setLength(0);
            assertThat(lookup.getInto(e.getKey(), builder))
                    .as("getInto(%s, StringBuilder)", e.getKey())
                    .isTrue();
            assertThat(builder.toString())
                    .as("getInto(%s, StringBuilder) in %s", e.getKey(), namespace)
                    .isEqualTo(e.getValue());
        }
        for (String absent : absent(namespace)) {
            assertThat(lookup.getInto(absent, buffer))
                    .as("getInto(%s, ValueBuffer)", absent)
                    .isFalse();
            assertThat(buffer.found()).isFalse();
            assertThat(lookup.getInto(absent, builder))
                    .as("getInto(%s, StringBuilder)", absent)
                    .isFalse();
        }
    }

    /** All keys at once, present and absent interleaved, in batches of every length up to more than one batch. */
    @ParameterizedTest
    @MethodSource("namespaces")
    void getAllIntoGivesEachKeysValue(String namespace) {
        Lookup lookup = shared.lookup(namespace);
        Map<String, String> expected = expected(namespace);
        List<String> keys = new ArrayList<>(expected.keySet());
        List<String> absent = absent(namespace);
        for (int i = 0; i < absent.size(); i++) {
            keys.add(Math.min(keys.size(), 3 * i + 1), absent.get(i));
        }
        for (int batch : new int[] {1, 7, 8, 9, 40, keys.size()}) {
            ValueBuffer[] values = new ValueBuffer[batch];
            for (int i = 0; i < batch; i++) {
                values[i] = new ValueBuffer();
            }
            for (int from = 0; from < keys.size(); from += batch) {
                int count = Math.min(batch, keys.size() - from);
                CharSequence[] chunk = keys.subList(from, from + count).toArray(new CharSequence[0]);
                int found = lookup.getAllInto(chunk, values, count);
                int present = 0;
                for (int i = 0; i < count; i++) {
                    String want = expected.get(chunk[i].toString());
                    assertThat(values[i].found())
                            .as("getAllInto found %s in %s", chunk[i], namespace)
                            .isEqualTo(want != null);
                    if (want != null) {
                        present++;
                        assertThat(values[i].toString())
                                .as("getAllInto value of %s", chunk[i])
                                .isEqualTo(want);
                    }
                }
                assertThat(found).isEqualTo(present);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("namespaces")
    void forEachVisitsExactlyTheExpectedContents(String namespace) {
        Map<String, String> seen = new TreeMap<>();
        shared.lookup(namespace).forEach(seen::put);
        assertThat(seen).isEqualTo(new TreeMap<>(expected(namespace)));
    }

    /**
     * The reverse index: every value gives exactly the keys holding it now ("store-0" moved from north to west, and
     * the removed "store-11" held east), including "central", shared by so many keys that the index says "scan".
     */
    @Test
    void keysOfAnswersFromTheReverseIndex() {
        Lookup regions = shared.lookup("regions");
        assertThat(regions.hasReverseIndex()).isTrue();
        Map<String, Set<String>> byValue = new HashMap<>();
        expected("regions")
                .forEach((k, v) ->
                        byValue.computeIfAbsent(v, x -> new TreeSet<>()).add(k));
        assertThat(byValue).containsKeys("north", "south", "east", "west", "central");
        byValue.forEach((value, keys) -> assertThat(new TreeSet<>(regions.keysOf(value)))
                .as("keysOf(%s)", value)
                .isEqualTo(keys));
        assertThat(regions.keysOf("north")).doesNotContain("store-0");
        assertThat(regions.keysOf("east")).doesNotContain("store-11");
        assertThat(regions.keysOf("nowhere")).isEmpty();
        assertThat(shared.lookup("ids").hasReverseIndex()).isFalse();
        assertThat(shared.lookup("ids").keysOf("value-0007")).containsExactly("7"); // by a scan
    }

    /**
     * The heartbeat of a writer killed long ago (its state still "running", its last beat in 2026-01-01): the reader
     * judges it not alive, never saw it move, and takes the content's freshness from the status file and manifest.
     * The namespaces without a status file have no known writer.
     */
    @Test
    void statusReadsTheStaleHeartbeatAsAWriterNotAlive() {
        LookupStatus status = shared.lookup("ids").status();
        assertThat(status.writer()).isEqualTo(LookupStatus.WriterState.NOT_ALIVE);
        assertThat(status.writerAlive()).isFalse();
        assertThat(status.writerLastSeen()).isNull();
        assertThat(status.currentAsOf()).isEqualTo(CURRENT_AS_OF);
        assertThat(status.lagRecords())
                .as("a writer that was not live says its lag is unknown")
                .isEqualTo(-1);
        assertThat(shared.lookup("names").status().writer()).isEqualTo(LookupStatus.WriterState.UNKNOWN);
        assertThat(shared.lookup("names").status().currentAsOf())
                .as("from the manifest's updated.at")
                .isEqualTo(CURRENT_AS_OF);
    }

    private static Map<String, String> expected(String namespace) {
        return GoldenFiles.expected(namespace);
    }

    private static List<String> absent(String namespace) {
        return GoldenFiles.absent(namespace);
    }

    /** Sets every file's and directory's mode, directories last on the way down so that the walk can enter them. */
    private static void setModes(Path root, String fileMode, String dirMode) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(
                        p, PosixFilePermissions.fromString(Files.isDirectory(p) ? dirMode : fileMode));
            }
        }
    }

    /** Every file's path, size, modification time and SHA-256. */
    private static Map<String, String> fingerprint(Path root) throws IOException, NoSuchAlgorithmException {
        Map<String, String> all = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.toList()) {
                String digest = Files.isDirectory(p)
                        ? "dir"
                        : HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
                all.put(root.relativize(p).toString(), digest + " " + Files.getLastModifiedTime(p));
            }
        }
        return all;
    }
}
