package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link HttpApi} without a server. */
class HttpApiTest {
    @Test
    void pathDecodingKeepsPlusAndDecodesUtf8() {
        assertThat(HttpApi.decodePath("a+b%20c%C3%A9%2F")).isEqualTo("a+b cé/");
        assertThatThrownBy(() -> HttpApi.decodePath("%zz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpApi.decodePath("%C3")).isInstanceOf(IllegalArgumentException.class);
    }
}
