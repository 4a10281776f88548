package io.sharedlookup.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.testing.TestStores;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's operator commands write UTF-8, the store's encoding, whatever the JVM's default charset: on JDK 17 that
 * follows the locale, and a value outside it came out as {@code ?} (run with {@code -Dfile.encoding=ISO-8859-1} to
 * see it on a UTF-8 machine).
 */
class OperatorCommandsEncodingTest {
    @TempDir
    Path store;

    @Test
    void getWritesTheValueAsUtf8() throws Exception {
        try (TestStores.Published p = TestStores.publish(store, "users", Map.of("ü-ключ", "名前 ✓"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int rc = WriterMain.run(
                    new String[] {"get", store.toString(), "users", "ü-ключ"},
                    Map.of(),
                    new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(rc).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("名前 ✓" + System.lineSeparator());
        }
    }
}
