package io.sharedlookup.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.testing.TempTrees;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * Random put / remove / publish sequences, applied through the write side, against a model map: after every step a
 * reader of the store sees exactly the model, including across generations (publish copies the live generation into
 * a new one, as the writer does when growing or healing).
 */
class StoreFormatPropertyTest {
    private static final long TIMEOUT = TestStores.TIMEOUT;
    private static final List<String> KEYS = List.of("a", "b", "ключ", "名前", "", "x".repeat(300), "k/1", "k..2");

    sealed interface Step permits Put, Remove, Publish {}

    record Put(String key, String value) implements Step {}

    record Remove(String key) implements Step {}

    record Publish() implements Step {}

    private Path store;

    @BeforeProperty
    void createStore() throws Exception {
        store = Files.createTempDirectory("store-property");
    }

    @AfterProperty
    void deleteStore() throws Exception {
        TempTrees.delete(store);
    }

    private static List<String> keysOf(Map<String, String> model, String value) {
        return model.entrySet().stream()
                .filter(e -> e.getValue().equals(value))
                .map(Map.Entry::getKey)
                .toList();
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<String> keys = Arbitraries.of(KEYS);
        // Few distinct short values, so that several keys share one (exercising the reverse index's key lists),
        // and some long ones.
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.of("", "x", "名前", "a:b", "12:3"),
                Arbitraries.strings()
                        .withCharRange(' ', '~')
                        .withChars('é', '✓', '名')
                        .ofMinLength(0)
                        .ofMaxLength(200));
        Arbitrary<Step> put = Combinators.combine(keys, values).as(Put::new);
        Arbitrary<Step> remove = keys.map(Remove::new);
        Arbitrary<Step> publish = Arbitraries.just(new Publish());
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, put),
                        net.jqwik.api.Tuple.of(2, remove),
                        net.jqwik.api.Tuple.of(1, publish))
                .list()
                .ofMinSize(1)
                .ofMaxSize(40);
    }

    @Property(tries = 40)
    void readersSeeTheModelAfterEveryStep(@ForAll("steps") List<Step> steps, @ForAll boolean reverseIndex)
            throws Exception {
        String namespace = "ns" + System.nanoTime();
        Map<String, String> model = new HashMap<>();
        try (NamespaceDirectory writer =
                NamespaceDirectory.open(new StoreLayout(store), namespace, StorePermissions.DEFAULT)) {
            GenerationFile live = writer.createGeneration(GenerationSizing.forExpected(0, 4, 8), reverseIndex);
            writer.publish(live, "t", Map.of(), true, Map.of());
            try (SharedLookupStore reader = SharedLookupStore.open(store)) {
                Lookup lookup = reader.lookup(namespace);
                for (Step step : steps) {
                    if (step instanceof Put put) {
                        boolean changed = live.put(put.key(), put.value(), TIMEOUT);
                        assertThat(changed).isEqualTo(!put.value().equals(model.put(put.key(), put.value())));
                    } else if (step instanceof Remove remove) {
                        assertThat(live.remove(remove.key(), TIMEOUT)).isEqualTo(model.remove(remove.key()) != null);
                    } else {
                        GenerationFile next =
                                writer.createGeneration(GenerationSizing.forExpected(live.size(), 4, 8), reverseIndex);
                        live.forEach((k, v) -> next.put(k, v, TIMEOUT), TIMEOUT);
                        long generation = writer.publish(next, "t", Map.of(), true, Map.of())
                                .generation();
                        live.close();
                        live = next;
                        await().atMost(Duration.ofSeconds(2)).until(() -> lookup.generation() == generation);
                    }
                    assertThat(lookup.size()).isEqualTo(model.size());
                    for (String key : KEYS) {
                        assertThat(lookup.get(key)).as("key %s", key).isEqualTo(model.get(key));
                    }
                    assertThat(lookup.hasReverseIndex()).isEqualTo(reverseIndex);
                    for (String value : model.values()) {
                        assertThat(lookup.keysOf(value))
                                .as("keys of %s", value)
                                .containsExactlyInAnyOrderElementsOf(keysOf(model, value));
                    }
                    assertThat(lookup.keysOf("no such value")).isEmpty();
                }
                Map<String, String> all = new HashMap<>();
                lookup.forEach(all::put);
                assertThat(all).isEqualTo(model);
            } finally {
                live.close();
            }
        }
    }
}
