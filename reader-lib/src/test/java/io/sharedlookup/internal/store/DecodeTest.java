package io.sharedlookup.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/** Whatever bytes a torn read sees, decoding answers true or false and never throws. */
class DecodeTest {
    @Property(tries = 5000)
    void decode_ofAnyBytes_neverThrows(@ForAll byte[] bytes) {
        StringBuilder out = new StringBuilder();
        boolean ok = MappedMap.decode(bytes, 0, bytes.length, out);
        assertThat(ok || !ok).isTrue();
    }

    @Property
    void decode_ofChroniclesEncoding_givesTheText(@ForAll String text) {
        StringBuilder encoded = new StringBuilder();
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
        assertThat(MappedMap.decode(bytes, 0, bytes.length, encoded)).isTrue();
        assertThat(encoded.toString()).isEqualTo(text);
    }
}
