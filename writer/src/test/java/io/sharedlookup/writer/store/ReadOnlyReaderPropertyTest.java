package io.sharedlookup.writer.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.LookupBatch;
import io.sharedlookup.internal.store.MappedMap;
import io.sharedlookup.internal.store.SequenceFile;
import io.sharedlookup.internal.store.Utf8Text;
import io.sharedlookup.testing.TempTrees;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * Random put / remove sequences through the writer side, sized so that segments overflow into extra tiers and entries
 * span many chunks: after every batch, the read-only reader (no Chronicle) must answer exactly as Chronicle itself does
 * on the same file and as a model map — for every key (one at a time and in batches), for the entry count and for a
 * full scan.
 */
class ReadOnlyReaderPropertyTest {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(1);
    private Path dir;

    @BeforeProperty
    void createDir() throws Exception {
        dir = Files.createTempDirectory("read-only-reader");
    }

    @AfterProperty
    void deleteDir() throws Exception {
        TempTrees.delete(dir);
    }

    record Op(String key, String value) { // value null = remove
    }

    /**
     * Keys: ids, ASCII keys around the reader's short-key limit (16), Latin-1 and other non-ASCII (2- and 3-byte
     * forms, surrogate pairs), the empty key, a NUL, a long one.
     */
    @Provide
    Arbitrary<String> keys() {
        return Arbitraries.oneOf(
                Arbitraries.integers().between(0, 3000).map(i -> "id" + i),
                Arbitraries.strings()
                        .withCharRange('\u0000', '\u007F')
                        .ofMinLength(1)
                        .ofMaxLength(20),
                Arbitraries.strings()
                        .withCharRange('\u0000', '\u00FF')
                        .ofMinLength(1)
                        .ofMaxLength(20),
                Arbitraries.of("", "\u0000", "ключ", "名前", "k\uD83D\uDE00é", "x".repeat(300)),
                Arbitraries.strings()
                        .withCharRange('\u0001', '\uFFFF')
                        .ofMinLength(1)
                        .ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(
                Arbitraries.of("", "v", "名前", "\uD83D\uDE00"),
                Arbitraries.strings()
                        .withCharRange(' ', '~')
                        .withChars('é', '✓', '名')
                        .ofMaxLength(40),
                Arbitraries.strings().withCharRange('a', 'z').ofMinLength(200).ofMaxLength(3000)); // many chunks
    }

    @Provide
    Arbitrary<List<String>> probes() {
        return keys().list().ofMaxSize(50);
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> put = Combinators.combine(keys(), values()).as(Op::new);
        Arbitrary<Op> remove = keys().map(k -> new Op(k, null));
        return Arbitraries.frequencyOf(Tuple.of(5, put), Tuple.of(1, remove))
                .list()
                .ofMinSize(1)
                .ofMaxSize(400);
    }

    @Property(tries = 25)
    void reader_answersAsChronicleAndTheModel(
            @ForAll("ops") List<Op> ops, @ForAll("probes") List<String> probes, @ForAll boolean bulkFill)
            throws Exception {
        Path file = dir.resolve("g" + String.format("%010d", System.nanoTime() % 1_000_000_0000L) + ".cmap");
        // Small on purpose: 1024 entries of 4-byte keys and values overflow into extra tiers long before 3000 entries.
        GenerationSizing sizing = new GenerationSizing(1024, 4, 4, 8.0);
        try (GenerationFile g = GenerationFile.create(file, sizing, StorePermissions.DEFAULT)) {
            Map<String, String> model = new HashMap<>();
            List<Op> all = new ArrayList<>(ops);
            if (bulkFill) {
                for (int i = 0; i < 2500; i++) {
                    all.add(0, new Op("bulk" + i, "value " + i));
                }
            }
            MappedMap reader = MappedMap.open(file, SequenceFile.of(file), g.layout());
            int step = 0;
            for (Op op : all) {
                if (op.value() == null) {
                    g.remove(op.key(), TIMEOUT);
                    model.remove(op.key());
                } else {
                    g.put(op.key(), op.value(), TIMEOUT);
                    model.put(op.key(), op.value());
                }
                if (++step % 97 == 0 || step == all.size()) {
                    assertAgrees(g, reader, model, probes);
                }
            }
            if (bulkFill) {
                assertThat(Files.size(file))
                        .as("extra tier bulks appended")
                        .isGreaterThan(g.layout().baseSize());
            }
            // A reader opened after the tiers were added maps them as well.
            assertAgrees(g, MappedMap.open(file, SequenceFile.of(file), g.layout()), model, probes);
        }
    }

    private static void assertAgrees(
            GenerationFile g, MappedMap reader, Map<String, String> model, List<String> probes) {
        StringBuilder fromReader = new StringBuilder();
        StringBuilder fromChronicle = new StringBuilder();
        List<String> keys = new ArrayList<>(model.keySet());
        keys.addAll(probes);
        for (String key : keys) {
            boolean present = g.getInto(key, fromChronicle, TIMEOUT);
            int found = reader.getInto(key, fromReader, TIMEOUT);
            assertThat(found).as("key %s", key).isEqualTo(present ? MappedMap.PRESENT : MappedMap.ABSENT);
            assertThat(found == MappedMap.PRESENT ? fromReader.toString() : null)
                    .as("key %s", key)
                    .isEqualTo(model.get(key))
                    .isEqualTo(present ? fromChronicle.toString() : null);
        }
        // the batch lookup answers every key as the single one does, null keys and chunks of every size included
        keys.add(null);
        LookupBatch batch = new LookupBatch();
        for (int i = 0; i < LookupBatch.SIZE; i++) {
            batch.out[i] = new Utf8Text();
        }
        CharSequence[] all = keys.toArray(new CharSequence[0]);
        for (int from = 0, n = 1; from < all.length; from += n, n = n % LookupBatch.SIZE + 1) {
            int count = Math.min(n, all.length - from);
            int present = reader.getAllInto(all, from, count, batch, TIMEOUT);
            int expected = 0;
            for (int i = 0; i < count; i++) {
                String key = (String) all[from + i];
                String value = key == null ? null : model.get(key);
                assertThat(batch.found[i]).as("batch, key %s", key).isEqualTo(value != null);
                assertThat(batch.out[i].toString()).as("batch, key %s", key).isEqualTo(value == null ? "" : value);
                expected += value != null ? 1 : 0;
            }
            assertThat(present).isEqualTo(expected);
        }
        assertThat(reader.size(TIMEOUT)).isEqualTo(model.size()).isEqualTo(g.size());
        Map<String, String> scanned = new HashMap<>();
        reader.forEachWhile((k, v) -> scanned.put(k, v) == null, TIMEOUT);
        assertThat(scanned).isEqualTo(model);
    }
}
