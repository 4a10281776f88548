package io.sharedlookup.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The matrix's data is what its names say (lengths, scripts, value sizes, distinct ids), and the keys a benchmark
 * passes carry no cached hash and share nothing with the stored keys.
 */
class KeyShapesTest {
    private static final int N = 200_000;

    @Test
    void everyShapeHasDistinctIdsOfItsDocumentedForm() {
        for (KeyShapes shape : KeyShapes.values()) {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < N; i++) {
                String key = shape.key(i);
                assertThat(seen.add(key))
                        .as("%s id %d (%s) is new", shape, i, key)
                        .isTrue();
                switch (shape) {
                    case NUMERIC7 -> assertThat(key).hasSize(7).containsOnlyDigits();
                    case ASCII20, BUILDER -> assertThat(key).matches("acct-\\d{8}-[a-z]{4}");
                    case UUID36 ->
                        assertThat(java.util.UUID.fromString(key).toString()).isEqualTo(key);
                    case NON_ASCII -> {
                        assertThat(key.length()).isBetween(10, 20);
                        boolean even = i % 2 == 0;
                        assertThat(key.chars()
                                        .allMatch(c -> even
                                                ? Character.UnicodeScript.of(c) == Character.UnicodeScript.CYRILLIC
                                                : Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN))
                                .as(key)
                                .isTrue();
                    }
                    default -> throw new AssertionError(shape);
                }
            }
        }
        assertThat(KeyShapes.ASCII20.key(9_999_999))
                .isEqualTo("acct-09999999-" + KeyShapes.ASCII20.key(9_999_999).substring(14));
    }

    @Test
    void valuesHaveExactlyTheirSizeInBytes() {
        for (int bytes : new int[] {10, 40, 200, 2000}) {
            for (int i : new int[] {0, 7, 9_999_999}) {
                assertThat(KeyShapes.value(i, bytes).getBytes(StandardCharsets.UTF_8))
                        .hasSize(bytes);
                assertThat(KeyShapes.value(i, bytes)).startsWith("#" + i);
            }
        }
    }

    @Test
    void poolKeysAreFreshAndUnhashedAtEveryCall() throws Exception {
        VarHandle hash = MethodHandles.privateLookupIn(String.class, MethodHandles.lookup())
                .findVarHandle(String.class, "hash", int.class);
        KeyPool pool = new KeyPool(KeyShapes.UUID36, 1);
        String first = (String) pool.next(new SplittableRandom(1));
        assertThat(first).isEqualTo(KeyShapes.UUID36.key(0)).isNotSameAs(KeyShapes.UUID36.key(0));
        int h = first.hashCode(); // as a map's get would: the String caches it
        assertThat((int) hash.get(first)).isEqualTo(h);
        String again = (String) pool.next(new SplittableRandom(1));
        assertThat(again).isSameAs(first);
        assertThat((int) hash.get(again))
                .as("cached hash cleared before the next lookup")
                .isZero();
        assertThat(again.hashCode()).isEqualTo(h);

        CharSequence builder = new KeyPool(KeyShapes.BUILDER, 1).next(new SplittableRandom(1));
        assertThat(builder).isInstanceOf(StringBuilder.class).hasToString(KeyShapes.ASCII20.key(0));
    }
}
