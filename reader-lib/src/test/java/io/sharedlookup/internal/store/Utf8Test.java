package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Both UTF-8 encodings against an independent definition: standard UTF-8 against {@code String.getBytes(UTF_8)},
 * Chronicle's per-char form against Java's modified UTF-8 ({@link DataOutputStream#writeUTF}), which also encodes each
 * char on its own and differs only in writing NUL as two bytes.
 */
class Utf8Test {
    /** Texts mixing every kind of char: ASCII, NUL, 2- and 3-byte chars, surrogate pairs, and unpaired halves. */
    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> piece = Arbitraries.oneOf(
                Arbitraries.chars().range('\u0000', '\u007F').map(String::valueOf),
                Arbitraries.chars().range('\u0080', '\u07FF').map(String::valueOf),
                Arbitraries.chars()
                        .range('\u0800', '\uFFFF')
                        .filter(c -> !Character.isSurrogate(c))
                        .map(String::valueOf),
                Arbitraries.integers()
                        .between(Character.MIN_SUPPLEMENTARY_CODE_POINT, Character.MAX_CODE_POINT)
                        .map(Character::toString),
                Arbitraries.chars()
                        .range(Character.MIN_HIGH_SURROGATE, Character.MAX_HIGH_SURROGATE)
                        .map(String::valueOf),
                Arbitraries.chars()
                        .range(Character.MIN_LOW_SURROGATE, Character.MAX_LOW_SURROGATE)
                        .map(String::valueOf));
        return piece.list().ofMaxSize(40).map(pieces -> String.join("", pieces));
    }

    @Property
    void length_anyText_isThatOfGetBytes(@ForAll("texts") String s) {
        assertThat(Utf8.length(s)).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        assertThat(Utf8.length(new StringBuilder(s))).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
    }

    @Property
    void encode_anyTextAtAnOffset_writesGetBytesThereAndNothingElse(@ForAll("texts") String s) {
        byte[] expected = s.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[3 + Utf8.MAX_BYTES_PER_CHAR * s.length() + 2];
        Arrays.fill(out, (byte) 0x55);
        int end = Utf8.encode(s, out, 3);
        assertThat(end).isEqualTo(3 + expected.length);
        assertThat(Arrays.copyOfRange(out, 3, end)).isEqualTo(expected);
        assertThat(Arrays.copyOfRange(out, 0, 3)).containsOnly((byte) 0x55);
        assertThat(Arrays.copyOfRange(out, end, out.length)).containsOnly((byte) 0x55);
    }

    @Property
    void chronicleLength_anyText_isThatOfEachCharOnItsOwn(@ForAll("texts") String s) {
        assertThat(Utf8.chronicleLength(s)).isEqualTo(perChar(s).length);
    }

    @Property
    void encodeChronicle_anyText_writesEachCharOnItsOwn(@ForAll("texts") String s) {
        byte[] out = new byte[Utf8.MAX_BYTES_PER_CHAR * s.length()];
        int n = Utf8.encodeChronicle(s, s.length(), out);
        assertThat(Arrays.copyOf(out, n)).isEqualTo(perChar(s));
    }

    @Test
    void surrogates_countAsEachEncodingDefinesThem() {
        String pair = "\uD83D\uDE42"; // one code point outside the BMP
        assertThat(Utf8.length(pair)).isEqualTo(4);
        assertThat(Utf8.chronicleLength(pair)).isEqualTo(6);
        assertThat(Utf8.length("\uD83D"))
                .as("an unpaired surrogate is written as '?'")
                .isEqualTo(1);
        assertThat(Utf8.chronicleLength("\uD83D")).isEqualTo(3);
        assertThat(Utf8.chronicleLength("a\u0000é✓")).isEqualTo(1 + 1 + 2 + 3);
    }

    /** Chronicle's bytes for {@code s}, by definition: modified UTF-8 with NUL as the single byte 0. */
    private static byte[] perChar(String s) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            new DataOutputStream(bytes).writeUTF(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        byte[] modified = bytes.toByteArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 2; i < modified.length; i++) { // after writeUTF's 2-byte length
            if (modified[i] == (byte) 0xC0 && modified[i + 1] == (byte) 0x80) {
                out.write(0);
                i++;
            } else {
                out.write(modified[i]);
            }
        }
        return out.toByteArray();
    }
}
