package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReverseKeysTest {
    @Test
    void keysRoundTrip() {
        StringBuilder out = new StringBuilder();
        ReverseKeys.encode(out, List.of("a", "", "k:3", "10:x"));
        assertThat(ReverseKeys.decode(out)).containsExactly("a", "", "k:3", "10:x");
    }

    @Test
    void aLengthPastTheEntry_isRefused() {
        assertThatThrownBy(() -> ReverseKeys.decode("5:abc")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReverseKeys.decode("x:abc")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A damaged entry over ~214M chars whose length field would overflow an int: refused as not a key list, never
     * read at a negative index. The entry is a view that answers chars without holding them.
     */
    @Test
    void aLengthThatOverflowsAnInt_isRefusedAsNotAKeyList() {
        CharSequence huge = new Virtual("2147483650:", 300_000_000);
        assertThatThrownBy(() -> ReverseKeys.decode(huge))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("not a key list: 2147483650:")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    }

    /** {@code prefix} followed by 'a's, {@code length} chars in all. */
    private record Virtual(String prefix, int length) implements CharSequence {
        @Override
        public char charAt(int index) {
            if (index < 0 || index >= length) {
                throw new IndexOutOfBoundsException(index);
            }
            return index < prefix.length() ? prefix.charAt(index) : 'a';
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            if (start < 0 || end > length || start > end || end - start > 1_000_000) {
                throw new IndexOutOfBoundsException(start + ".." + end);
            }
            StringBuilder b = new StringBuilder(end - start);
            for (int i = start; i < end; i++) {
                b.append(charAt(i));
            }
            return b;
        }

        @Override
        public String toString() {
            return prefix + "…";
        }
    }
}
