package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** {@link HttpApi} without a server. */
class HttpApiTest {
    @Test
    void healthIsOkUntilTheWriterCannotDoItsJob() {
        AtomicReference<Optional<String>> fatal = new AtomicReference<>(Optional.empty());
        HttpApi api = new HttpApi(Map::of, fatal::get, null, null);
        assertThat(api.handle("GET", "/health").status()).isEqualTo(200);
        fatal.set(Optional.of("ingestion failed: java.lang.IllegalStateException: boom"));
        HttpApi.Response health = api.handle("GET", "/health");
        assertThat(health.status()).isEqualTo(503);
        assertThat(new String(health.body(), StandardCharsets.UTF_8).strip())
                .isEqualTo("ingestion failed: java.lang.IllegalStateException: boom; restart the writer (it rebuilds "
                        + "its namespaces from their topics; readers keep what is published meanwhile)");
    }

    @Test
    void pathDecodingKeepsPlusAndDecodesUtf8() {
        assertThat(HttpApi.decodePath("a+b%20c%C3%A9%2F")).isEqualTo("a+b cé/");
        assertThat(HttpApi.decodePath("caf\u00C3\u00A9"))
                .as("raw UTF-8, one char per byte")
                .isEqualTo("café");
        assertThat(HttpApi.decodePath("caf\u00C3\u00A9%20")).isEqualTo("café ");
        assertThatThrownBy(() -> HttpApi.decodePath("%zz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpApi.decodePath("%C3")).isInstanceOf(IllegalArgumentException.class);
    }
}
