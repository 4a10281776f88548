package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.WriterMetrics;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys in {@code /lookup/<namespace>/<key>} as clients send them: percent-escaped or raw UTF-8 (curl sends
 * non-ASCII keys unescaped), '+' and '/' kept, a path that is not UTF-8 refused.
 */
class HttpLookupPathTest {
    @TempDir
    Path store;

    @Test
    void keysAreDecodedAsUtf8WhetherEscapedOrNot() throws Exception {
        WriterMetrics metrics = new WriterMetrics();
        try (TestStores.Published published = TestStores.publish(
                        store,
                        "users",
                        Map.of("café", "coffee", "a+b/c", "plus and slash", "café au lait", "with milk"));
                SharedLookupStore s = SharedLookupStore.open(store);
                HttpServer server = new HttpServer(
                        "127.0.0.1", 0, new HttpApi(Map::of, s, metrics), metrics, HttpServer.Limits.DEFAULT)) {
            int port = server.port();
            assertThat(get(port, "/lookup/users/caf%C3%A9"))
                    .startsWith("HTTP/1.1 200 ")
                    .endsWith("coffee");
            assertThat(get(port, "/lookup/users/café"))
                    .startsWith("HTTP/1.1 200 ")
                    .endsWith("coffee");
            assertThat(get(port, "/lookup/users/café%20au%20lait"))
                    .startsWith("HTTP/1.1 200 ")
                    .endsWith("with milk");
            assertThat(get(port, "/lookup/users/a+b/c"))
                    .startsWith("HTTP/1.1 200 ")
                    .endsWith("plus and slash");
            assertThat(get(port, "/lookup/users/caf%E9")).startsWith("HTTP/1.1 400 ");
        }
    }

    /** One request written as UTF-8 bytes, the whole response read as UTF-8. */
    private static String get(int port, String path) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000); // a server that never closes fails the test instead of hanging it
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            in.transferTo(response);
            return response.toString(StandardCharsets.UTF_8).trim();
        }
    }
}
