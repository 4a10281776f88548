package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * The reader's lookup of every key shape users have — ASCII of any length (word boundaries 7/8/9, 15/16/17, …, and
 * past 128 bytes, where a key's size takes two bytes), non-ASCII BMP text (2- and 3-byte forms), surrogate pairs,
 * keys differing only in their last char — against a {@link HashMap}, for a store the writer's classes wrote. Each
 * key is asked for as a fresh {@code String} and as a {@code StringBuilder}, through every lookup form: {@code get},
 * both {@code getInto}s and {@code getAllInto}, present and absent alike.
 */
class KeyShapesPropertyTest {
    private Path store;
    private int namespaces;

    @BeforeProperty
    void createStore() throws Exception {
        store = Files.createTempDirectory("key-shapes");
    }

    @AfterProperty
    void deleteStore() throws Exception {
        TempTrees.delete(store);
    }

    @Provide
    Arbitrary<String> keys() {
        net.jqwik.api.arbitraries.StringArbitrary ascii = Arbitraries.strings().withCharRange('!', '~');
        return Arbitraries.oneOf(
                ascii.ofMinLength(1).ofMaxLength(200),
                Arbitraries.of(1, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 36, 63, 64, 65, 127, 128, 129, 200)
                        .flatMap(n -> ascii.ofLength(n)),
                Arbitraries.integers().between(1_000_000, 9_999_999).map(String::valueOf),
                Arbitraries.strings()
                        .withCharRange('a', 'f')
                        .withCharRange('0', '9')
                        .ofLength(32)
                        .map(h -> h.substring(0, 8) + "-" + h.substring(8, 12) + "-" + h.substring(12, 16) + "-"
                                + h.substring(16, 20) + "-" + h.substring(20)),
                // non-ASCII BMP: Latin-1 and Cyrillic (2-byte forms), CJK (3-byte forms), mixed with ASCII
                Arbitraries.strings()
                        .withCharRange('a', 'z')
                        .withCharRange('\u00C0', '\u00FF')
                        .withCharRange('\u0410', '\u044F')
                        .withCharRange('\u4E00', '\u4FFF')
                        .ofMinLength(1)
                        .ofMaxLength(60),
                // surrogate pairs (encoded by Chronicle as two 3-byte forms), between ASCII
                Arbitraries.integers()
                        .between(0x10000, 0x10FFFF)
                        .list()
                        .ofMinSize(1)
                        .ofMaxSize(12)
                        .map(KeyShapesPropertyTest::withSupplementary));
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(40),
                Arbitraries.strings()
                        .withCharRange(' ', '~')
                        .withChars('é', '✓', '名')
                        .ofMinLength(100)
                        .ofMaxLength(300), // sizes of two bytes
                Arbitraries.strings().withCharRange('a', 'z').ofLength(2000),
                Arbitraries.of("", "名前", "\uD83D\uDE00"));
    }

    @Property(tries = 30)
    void everyKeyShapeAnswersAsAHashMap(@ForAll("keysAndValues") Map<String, String> content) throws Exception {
        Map<String, String> model = new HashMap<>(content);
        // siblings that differ from a key in its last char only, some stored, all asked for
        List<String> probes = new ArrayList<>(model.keySet());
        int i = 0;
        for (String key : List.copyOf(model.keySet())) {
            String sibling = lastCharChanged(key);
            if (sibling != null) {
                if (i++ % 2 == 0) {
                    model.putIfAbsent(sibling, "sibling of " + key);
                }
                probes.add(sibling);
            }
            probes.add(key + "x");
            probes.add(key.substring(0, key.length() - 1));
        }
        String namespace = "shapes" + namespaces++;
        try (NamespaceDirectory writer =
                        NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT);
                GenerationFile generation = writer.createGeneration(denselySized(model), false)) {
            model.forEach((k, v) -> generation.put(k, v, TestStores.TIMEOUT));
            writer.publish(generation, "topic", Map.of(0, (long) model.size()), true, Map.of());
            assertLookupsAgree(namespace, model, probes);
        }
    }

    /**
     * Sized for the content's own averages and about as many entries as it has, with room to bloat: segments hold
     * collision chains and overflow into extra tiers, which the probe leaves to the general path.
     */
    private static GenerationSizing denselySized(Map<String, String> model) {
        long keyChars = 0;
        long valueChars = 0;
        long largest = 0;
        for (Map.Entry<String, String> e : model.entrySet()) {
            keyChars += e.getKey().length();
            valueChars += e.getValue().length();
            largest = Math.max(largest, 3L * (e.getKey().length() + e.getValue().length()));
        }
        return new GenerationSizing(
                Math.max(16, model.size()),
                2.0 * keyChars / model.size(),
                2.0 * valueChars / model.size(),
                8.0,
                largest);
    }

    private void assertLookupsAgree(String namespace, Map<String, String> model, List<String> probes) {
        try (SharedLookupStore s = SharedLookupStore.open(store)) {
            Lookup lookup = s.lookup(namespace);
            ValueBuffer value = new ValueBuffer();
            StringBuilder out = new StringBuilder();
            for (String probe : new LinkedHashSet<>(probes)) {
                String expected = model.get(probe);
                String fresh = new String(probe.toCharArray()); // own chars, no cached hash, as a query passes it
                StringBuilder builder = new StringBuilder(probe);
                assertThat(lookup.get(fresh)).as("get(%s)", probe).isEqualTo(expected);
                assertThat(lookup.get(builder))
                        .as("get(StringBuilder %s)", probe)
                        .isEqualTo(expected);
                assertThat(lookup.getInto(fresh, value))
                        .as("getInto(%s, ValueBuffer)", probe)
                        .isEqualTo(expected != null);
                assertThat(value.toString()).isEqualTo(expected == null ? "" : expected);
                assertThat(lookup.getInto(builder, out))
                        .as("getInto(StringBuilder %s, StringBuilder)", probe)
                        .isEqualTo(expected != null);
                assertThat(out.toString()).isEqualTo(expected == null ? "" : expected);
            }
            assertBatchAgrees(lookup, model, probes);
        }
    }

    /** All probes in one {@code getAllInto}, fresh Strings and StringBuilders by turns (several internal batches). */
    private static void assertBatchAgrees(Lookup lookup, Map<String, String> model, List<String> probes) {
        CharSequence[] keys = new CharSequence[probes.size()];
        ValueBuffer[] values = new ValueBuffer[probes.size()];
        int expectedPresent = 0;
        for (int i = 0; i < keys.length; i++) {
            String probe = probes.get(i);
            keys[i] = i % 3 == 2 ? new StringBuilder(probe) : new String(probe.toCharArray());
            values[i] = new ValueBuffer();
            expectedPresent += model.containsKey(probe) ? 1 : 0;
        }
        assertThat(lookup.getAllInto(keys, values, keys.length)).isEqualTo(expectedPresent);
        for (int i = 0; i < keys.length; i++) {
            String expected = model.get(probes.get(i));
            assertThat(values[i].found())
                    .as("found(%s) in a batch", probes.get(i))
                    .isEqualTo(expected != null);
            assertThat(values[i].toString())
                    .as("value of %s in a batch", probes.get(i))
                    .isEqualTo(expected == null ? "" : expected);
        }
    }

    @Provide
    Arbitrary<Map<String, String>> keysAndValues() {
        return Arbitraries.maps(keys(), values()).ofMinSize(1).ofMaxSize(120);
    }

    private static String withSupplementary(List<Integer> codePoints) {
        StringBuilder key = new StringBuilder("k");
        for (int codePoint : codePoints) {
            key.appendCodePoint(codePoint).append('-');
        }
        return key.toString();
    }

    /** {@code key} with its last char moved on by one, or null when that would not be a whole char. */
    private static String lastCharChanged(String key) {
        char last = key.charAt(key.length() - 1);
        if (Character.isSurrogate(last) || Character.isSurrogate((char) (last + 1)) || last == '\uFFFF') {
            return null;
        }
        return key.substring(0, key.length() - 1) + (char) (last + 1);
    }
}
