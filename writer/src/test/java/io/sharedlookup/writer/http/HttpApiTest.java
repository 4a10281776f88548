package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link HttpApi} without a server. */
class HttpApiTest {
    @Test
    void pathDecodingKeepsPlusAndDecodesUtf8() {
        assertThat(HttpApi.decodePath("a+b%20c%C3%A9%2F")).isEqualTo("a+b cé/");
        assertThat(HttpApi.decodePath("caf\u00C3\u00A9")).as("raw UTF-8, one char per byte").isEqualTo("café");
        assertThat(HttpApi.decodePath("caf\u00C3\u00A9%20")).isEqualTo("café ");
        assertThatThrownBy(() -> HttpApi.decodePath("%zz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpApi.decodePath("%C3")).isInstanceOf(IllegalArgumentException.class);
    }
}
