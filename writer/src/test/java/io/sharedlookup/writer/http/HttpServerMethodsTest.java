package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.WriterMetrics;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The methods the endpoints answer, over a raw socket so that the bytes on the wire show which responses carry a
 * body. Before the fix HEAD, which RFC 9110 requires to be answered as GET, got 405 and {@code Allow: GET}.
 */
class HttpServerMethodsTest {
    @TempDir
    Path store;

    @Test
    void headIsAnsweredAsGetWithoutTheBodyAndOtherMethodsGet405AllowingBoth() throws Exception {
        WriterMetrics metrics = new WriterMetrics();
        try (TestStores.Published published = TestStores.publish(store, "users", Map.of("42", "Ada Lovelace"));
                SharedLookupStore s = SharedLookupStore.open(store);
                HttpServer server = new HttpServer(
                        "127.0.0.1", 0, new HttpApi(Map::of, s, metrics), metrics, HttpServer.Limits.DEFAULT)) {
            int port = server.port();
            // Each HEAD is followed on the same connection by a GET: a body sent for the HEAD would come between.
            String health = exchange(port, "HEAD /health", "GET /health");
            assertThat(health).isEqualTo(head(200, "ok\n") + head(200, "ok\n") + "ok\n");

            String lookup = exchange(port, "HEAD /lookup/users/42", "HEAD /lookup/users/43", "GET /lookup/users/42");
            assertThat(lookup)
                    .isEqualTo(head(200, "Ada Lovelace") + head(404, "No key '43' in namespace 'users'\n")
                            + head(200, "Ada Lovelace") + "Ada Lovelace");

            String post = exchange(port, "POST /health");
            assertThat(post)
                    .startsWith("HTTP/1.1 405 ")
                    .containsIgnoringCase("\r\nallow: GET, HEAD\r\n")
                    .endsWith("use GET or HEAD\n");

            // A HEAD too large to be taken is refused and the connection closed, the refusal without a body too.
            String refused = send(
                    port, "HEAD /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(16 * 1024) + "\r\n\r\n");
            assertThat(refused)
                    .startsWith("HTTP/1.1 431 ")
                    .containsIgnoringCase("\r\nconnection: close\r\n")
                    .endsWith("\r\n\r\n");
        }
    }

    /** The head of a text response as the server writes it, for a body of this text. */
    private static String head(int status, String body) {
        String reason = status == 200 ? "OK" : "Not Found";
        return "HTTP/1.1 " + status + " " + reason + "\r\ncontent-type: text/plain; charset=utf-8\r\n"
                + "content-length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n";
    }

    /**
     * Sends the requests (method and path) pipelined on one connection, the last asking to close, and returns all
     * the bytes the server wrote until it closed.
     */
    private static String exchange(int port, String... requests) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < requests.length; i++) {
            text.append(requests[i])
                    .append(" HTTP/1.1\r\nHost: localhost\r\n")
                    .append(i == requests.length - 1 ? "Connection: close\r\n" : "")
                    .append("\r\n");
        }
        return send(port, text.toString());
    }

    /** Sends {@code text} on a new connection and returns all the bytes the server wrote until it closed. */
    private static String send(int port, String text) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000); // a server that never closes fails the test instead of hanging it
            OutputStream out = socket.getOutputStream();
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    got.write(buffer, 0, n);
                }
            } catch (SocketException reset) {
                // A server that closes with part of a refused request unread makes the kernel reset the connection
                // after its answer: what arrived before is the answer.
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }
}
