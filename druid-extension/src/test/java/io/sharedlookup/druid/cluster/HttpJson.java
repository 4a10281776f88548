package io.sharedlookup.druid.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain JDK HTTP calls to the cluster's services on 127.0.0.1, with JSON bodies. */
final class HttpJson {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private HttpJson() {}

    /** A response; status -1 when nothing answered (connection refused or timed out). */
    record Answer(int status, String body) {
        boolean ok() {
            return status / 100 == 2;
        }

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON (HTTP " + status + "): " + body, e);
            }
        }

        @Override
        public String toString() {
            return "HTTP " + status + ": " + body;
        }
    }

    static Answer get(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).GET());
    }

    static Answer post(int port, String path, Object jsonBody) {
        String body;
        try {
            body = jsonBody instanceof String s ? s : JSON.writeValueAsString(jsonBody);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return send(HttpRequest.newBuilder(uri(port, path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> r =
                    CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (IOException e) { // refused, reset, timed out: not (yet) answering
            return new Answer(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
