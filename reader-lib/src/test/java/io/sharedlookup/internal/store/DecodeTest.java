package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Whatever bytes a torn read sees, decoding answers true or false and never throws. */
class DecodeTest {
    @Property(tries = 5000)
    void decode_ofAnyBytes_neverThrows(@ForAll byte[] bytes) {
        char[] out = new char[bytes.length];
        int n = Utf8Text.decode(bytes, 0, bytes.length, out);
        assertThat(n).isBetween(-1, bytes.length);
    }

    @Property
    void decode_ofChroniclesEncoding_givesTheText(@ForAll String text) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (char c : text.toCharArray()) {
            if (c < 0x80) {
                b.write(c);
            } else if (c < 0x800) {
                b.write(0xC0 | (c >> 6));
                b.write(0x80 | (c & 0x3F));
            } else {
                b.write(0xE0 | (c >> 12));
                b.write(0x80 | ((c >> 6) & 0x3F));
                b.write(0x80 | (c & 0x3F));
            }
        }
        byte[] bytes = b.toByteArray();
        char[] decoded = new char[bytes.length];
        int n = Utf8Text.decode(bytes, 0, bytes.length, decoded);
        assertThat(new String(decoded, 0, Math.max(n, 0))).isEqualTo(text);
    }
}
