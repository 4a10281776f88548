package io.sharedlookup.testing;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.internal.store.WriterStatusDescriptor;
import io.sharedlookup.writer.liveness.WriterHeartbeat;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes the golden stores: small namespaces, written with the writer's own store code ({@link NamespaceDirectory},
 * {@link GenerationFile}, {@link WriterHeartbeat}), that reader-lib checks itself against in its own module
 * ({@code reader-lib/src/test/resources/golden/}, read by {@code GoldenStoresReadTest}); {@code GoldenStoresTest}
 * regenerates them and fails when the format changed without a version bump.
 *
 * <p>Deterministic in everything readers decode: contents, sizings, offsets, {@code updated.at} and the heartbeat
 * file. What stays variable is what the writer takes from the clock and readers only compare for change: generation
 * numbers (how the writer numbers a namespace's first generation is not part of the format), {@code published.at}
 * and {@code content.version}, and bytes of Chronicle's own header that readers never read.
 *
 * <p>Each namespace comes with {@code <namespace>.expected.properties} (every key and its value) and {@code
 * <namespace>.absent.properties} (keys that must not be found, with why), written in a fixed order.
 */
public final class GoldenStores {
    /** The manifest's {@code updated.at} and the content's "current as of" in every golden namespace (2026-01-01). */
    public static final long CURRENT_AS_OF_MILLIS = 1_767_225_600_000L;
    /** The heartbeat's last beat: long before any test runs, so a reader judges the writer not alive. */
    public static final long HEARTBEAT_MILLIS = CURRENT_AS_OF_MILLIS + 1_000;
    /** The heartbeat count and pid pinned into {@code writer.status} (a real writer's vary). */
    public static final long HEARTBEAT_COUNT = 42;

    public static final long PID = 4242;
    /** The namespace carrying the writer's heartbeat file. */
    public static final String HEARTBEAT_NAMESPACE = "ids";

    private static final long TIMEOUT = TestStores.TIMEOUT;

    /** One golden namespace: what to put, what to remove afterwards, how big a file, with a reverse index or not. */
    private record Namespace(
            String name,
            Map<String, String> puts,
            List<String> removes,
            List<String> neverWritten,
            GenerationSizing sizing,
            boolean reverseIndex) {
        Map<String, String> expected() {
            Map<String, String> all = new LinkedHashMap<>(puts);
            removes.forEach(all::remove);
            return all;
        }
    }

    private GoldenStores() {}

    /** The golden namespaces' names. */
    public static List<String> namespaces() {
        return definitions().stream().map(Namespace::name).toList();
    }

    private static List<Namespace> definitions() {
        List<Namespace> all = new ArrayList<>();

        // Short numeric ids, values of ~10 bytes, an empty value, and a removed key (no tombstone in the file:
        // removal frees the entry, so the key must simply be absent).
        Map<String, String> ids = new LinkedHashMap<>();
        for (int i = 1; i <= 60; i++) {
            ids.put(Integer.toString(i), "value-" + String.format("%04d", i));
        }
        ids.put("0", "");
        ids.put("100", "removed later");
        all.add(new Namespace(
                "ids",
                ids,
                List.of("100"),
                List.of("61", "-1", "", "1 "),
                new GenerationSizing(128, 2, 10, 1.0),
                false));

        // ~20-char ASCII ids with ~200-byte values, and a few values of >= 2 KB (the bulk-copy path).
        Map<String, String> names = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            String value = ("name " + i + " ").repeat(40).substring(0, 190 + i % 20);
            names.put(String.format("customer-account-%04d", i), value);
        }
        for (int i = 0; i < 3; i++) {
            names.put(String.format("customer-profile-%04d", i), bigValue(i, 2_048 + 517 * i));
        }
        all.add(new Namespace(
                "names",
                names,
                List.of(),
                List.of("customer-account-0040", "customer-account-000", "CUSTOMER-ACCOUNT-0001"),
                new GenerationSizing(64, 21, 200, 1.0).withLargestEntry(21 + 3_100),
                false));

        // UUIDs, derived from fixed names so that they are the same on every run.
        Map<String, String> uuids = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            uuids.put(uuid("user-" + i), "user " + i);
        }
        all.add(new Namespace(
                "uuids",
                uuids,
                List.of(),
                List.of(uuid("user-40"), uuid("user-0").toUpperCase()),
                new GenerationSizing(64, 36, 8, 1.0),
                false));

        // Non-ASCII keys and values: 2- and 3-byte chars and a surrogate pair (two 3-byte sequences in the file).
        Map<String, String> unicode = new LinkedHashMap<>();
        unicode.put("café", "crème brûlée");
        unicode.put("東京", "日本の首都");
        unicode.put("Ωmega", "αβγ");
        unicode.put("emoji-\uD83D\uDE00", "smile \uD83D\uDE00 and \uD83C\uDF89");
        unicode.put("plain", "naïve façade");
        unicode.put("ключ", "значение");
        unicode.put("mixed é 東 \uD83D\uDE00", "");
        all.add(new Namespace(
                "unicode",
                unicode,
                List.of(),
                List.of("cafe", "東", "emoji-"),
                new GenerationSizing(32, 8, 16, 1.0),
                false));

        // A reverse index: values shared by a few keys, one by so many that its key list becomes the scan marker,
        // and a key moved from one value to another.
        Map<String, String> regions = new LinkedHashMap<>();
        for (int i = 0; i < 12; i++) {
            regions.put("store-" + i, i % 3 == 0 ? "north" : i % 3 == 1 ? "south" : "east");
        }
        for (int i = 0; i < 40; i++) {
            regions.put(String.format("warehouse-location-%03d", i), "central");
        }
        regions.put("store-0", "west"); // moved from north: the index must no longer list it there
        all.add(new Namespace(
                "regions",
                regions,
                List.of("store-11"),
                List.of("store-12", "warehouse-location-040"),
                new GenerationSizing(64, 20, 8, 1.0),
                true));

        // Extra tiers: far more entries than a tiny layout holds, so Chronicle appends tier bulks.
        Map<String, String> tiers = new LinkedHashMap<>();
        for (int i = 0; i < 1_500; i++) {
            tiers.put("k" + i, "v" + i);
        }
        all.add(new Namespace(
                "tiers", tiers, List.of(), List.of("k1500", "k-1"), new GenerationSizing(64, 4, 4, 40.0), false));
        return all;
    }

    private static String uuid(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    private static String bigValue(int seed, int length) {
        StringBuilder value = new StringBuilder(length);
        for (int i = 0; value.length() < length; i++) {
            value.append((char) ('a' + (i * 7 + seed) % 26));
        }
        return value.toString();
    }

    /**
     * Writes every golden namespace into {@code store} (a fresh, empty directory), with only the files readers use
     * ({@code manifest.properties}, generation, sequence and reverse index files, {@code writer.status}), and its
     * expected-contents files into {@code expectations}.
     */
    public static void write(Path store, Path expectations) throws IOException {
        Files.createDirectories(expectations);
        for (Namespace ns : definitions()) {
            try (NamespaceDirectory writer =
                    NamespaceDirectory.open(new StoreLayout(store), ns.name(), StorePermissions.DEFAULT)) {
                GenerationFile generation = writer.createGeneration(ns.sizing(), ns.reverseIndex());
                try {
                    ns.puts().forEach((k, v) -> requireDone(generation.put(k, v, TIMEOUT), "put", k));
                    ns.removes().forEach(k -> requireDone(generation.remove(k, TIMEOUT), "remove", k));
                    writer.publish(
                            generation,
                            "golden-" + ns.name(),
                            Map.of(0, (long) ns.puts().size()),
                            true,
                            Map.of(),
                            CURRENT_AS_OF_MILLIS);
                } finally {
                    generation.close();
                }
            }
            Files.writeString(
                    expectations.resolve(ns.name() + ".expected.properties"),
                    properties(ns.expected()),
                    StandardCharsets.UTF_8);
            Map<String, String> absent = new LinkedHashMap<>();
            ns.removes().forEach(k -> absent.put(k, "removed"));
            ns.neverWritten().forEach(k -> absent.put(k, "never written"));
            Files.writeString(
                    expectations.resolve(ns.name() + ".absent.properties"), properties(absent), StandardCharsets.UTF_8);
            try (var files = Files.list(store.resolve(ns.name()))) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    if (!name.equals("manifest.properties") && !name.matches("g\\d{10}(\\.rev)?\\.(cmap|seq)")) {
                        Files.delete(f); // writer.lock and the like: readers never look at them
                    }
                }
            }
        }
        writeHeartbeat(store);
    }

    private static void requireDone(boolean done, String what, String key) {
        if (!done) {
            throw new IllegalStateException("golden store: " + what + " of \"" + key + "\" did not happen");
        }
    }

    /**
     * The writer's heartbeat file as a writer killed long ago leaves it: written by {@link WriterHeartbeat}, with the
     * fields it takes from the clock and the process pinned, and its state still "running" (a killed writer never
     * says it stopped), so readers judge it not alive by the stale heartbeat alone.
     */
    private static void writeHeartbeat(Path store) throws IOException {
        WriterHeartbeat.start(new StoreLayout(store), List.of(HEARTBEAT_NAMESPACE), StorePermissions.DEFAULT, Map::of)
                .close();
        Path file = WriterStatusDescriptor.of(store.resolve(HEARTBEAT_NAMESPACE));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer status = channel.map(FileChannel.MapMode.READ_WRITE, 0, WriterStatusDescriptor.SIZE)
                    .order(ByteOrder.LITTLE_ENDIAN);
            WriterStatusDescriptor.putLong(status, WriterStatusDescriptor.HEARTBEAT_AT, HEARTBEAT_COUNT);
            WriterStatusDescriptor.putLong(status, WriterStatusDescriptor.HEARTBEAT_MILLIS_AT, HEARTBEAT_MILLIS);
            WriterStatusDescriptor.putLong(status, WriterStatusDescriptor.PID_AT, PID);
            WriterStatusDescriptor.putInt(status, WriterStatusDescriptor.STATE_AT, WriterStatusDescriptor.RUNNING);
        }
    }

    /**
     * {@code entries} as a properties file that {@link java.util.Properties#load(java.io.Reader)} reads back, in
     * the map's order and without the date comment {@code Properties.store} writes, so that it is the same on every
     * run; UTF-8, non-ASCII text as is, so that it reads as the values readers decode.
     */
    static String properties(Map<String, String> entries) {
        StringBuilder out = new StringBuilder("# golden store expectations, written by GoldenStores: do not edit\n");
        entries.forEach((k, v) ->
                out.append(escape(k, true)).append('=').append(escape(v, false)).append('\n'));
        return out.toString();
    }

    private static String escape(String text, boolean key) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\f' -> out.append("\\f");
                case '=', ':', '#', '!' -> out.append('\\').append(c);
                case ' ' -> out.append(key || i == 0 ? "\\ " : " ");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
