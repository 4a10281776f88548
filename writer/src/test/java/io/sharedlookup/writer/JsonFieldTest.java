package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sharedlookup.writer.ingest.RecordDecoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code --value-field}: what a record's JSON value becomes in the store. */
class JsonFieldTest {
    private static String extract(String path, String json) {
        return new JsonField(path).extract(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void scalarsAreStoredAsTheRecordWritesThem() {
        assertThat(extract("n", "{\"n\":\"Ada\"}")).isEqualTo("Ada");
        assertThat(extract("n", "{\"n\":42}")).isEqualTo("42");
        assertThat(extract("n", "{\"n\":1e2}")).isEqualTo("1e2");
        assertThat(extract("n", "{\"n\":1.50}")).isEqualTo("1.50");
        assertThat(extract("n", "{\"n\":12345678901234567890.5}")).isEqualTo("12345678901234567890.5");
        assertThat(extract("n", "{\"n\":-0}")).isEqualTo("-0");
        assertThat(extract("n", "{\"n\":true}")).isEqualTo("true");
        assertThat(extract("a.b", "{\"x\":[1,{\"b\":2}],\"a\":{\"c\":null,\"b\":\"deep\"}}"))
                .isEqualTo("deep");
        assertThat(extract("n", "{\"n\":null,\"n\":\"x\"}"))
                .as("a name given twice: the last")
                .isEqualTo("x");
    }

    @Test
    void objectsAndArraysAreCompactJsonWithExactNumbers() {
        assertThat(extract("o", "{\"o\": { \"k\" : [ 1 , 1.50, \"s\" ] } }")).isEqualTo("{\"k\":[1,1.50,\"s\"]}");
    }

    @Test
    void missingFieldsNullsAndBadJsonAreDecodeErrors() {
        assertThatThrownBy(() -> extract("n", "{\"m\":1}"))
                .isInstanceOf(RecordDecoder.DecodeException.class)
                .hasMessage("value has no field 'n'");
        assertThatThrownBy(() -> extract("n", "{\"n\":null}")).hasMessage("value has no field 'n'");
        assertThatThrownBy(() -> extract("a.b", "{\"a\":\"not an object\"}")).hasMessage("value has no field 'a.b'");
        assertThatThrownBy(() -> extract("n", "[1,2]")).hasMessage("value has no field 'n'");
        assertThatThrownBy(() -> extract("n", "")).hasMessageStartingWith("value is not valid JSON");
        assertThatThrownBy(() -> extract("n", "{\"n\":1")).hasMessageStartingWith("value is not valid JSON");
        assertThatThrownBy(() -> extract("n", "{\"n\":\"a\"} garbage"))
                .isInstanceOf(RecordDecoder.DecodeException.class)
                .hasMessageStartingWith("value is not valid JSON");
        assertThatThrownBy(() -> extract("n", "{\"n\":\"a\"} {\"n\":\"b\"}"))
                .hasMessageStartingWith("value is not valid JSON");
    }
}
