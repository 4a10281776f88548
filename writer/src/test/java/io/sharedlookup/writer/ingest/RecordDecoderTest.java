package io.sharedlookup.writer.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {
    private final RecordDecoder decoder = new RecordDecoder(Optional.empty());

    @Property
    void key_anyText_decodesAsUtf8(@ForAll String text) {
        // Strings with unpaired surrogates encode to '?', which is what the bytes then say.
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        assertThat(decoder.key(bytes)).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
        assertThat(decoder.value(bytes)).isEqualTo(new String(bytes, StandardCharsets.UTF_8));
    }

    @Test
    void key_asciiAndNonAscii_keepEveryCharacter() {
        assertThat(decoder.key("user-42".getBytes(StandardCharsets.UTF_8))).isEqualTo("user-42");
        assertThat(decoder.value("Zoë 🙂".getBytes(StandardCharsets.UTF_8))).isEqualTo("Zoë 🙂");
        assertThat(decoder.value(new byte[0])).isEmpty();
    }

    @Test
    void key_malformedUtf8_isADecodeError() {
        assertThatThrownBy(() -> decoder.key(new byte[] {'a', (byte) 0xC3}))
                .isInstanceOf(RecordDecoder.DecodeException.class)
                .hasMessage("key is not valid UTF-8");
        assertThatThrownBy(() -> decoder.value(new byte[] {(byte) 0xFF}))
                .isInstanceOf(RecordDecoder.DecodeException.class)
                .hasMessage("value is not valid UTF-8");
    }
}
