package io.sharedlookup.writer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain JDK HTTP client calls against a writer, and reading its metrics. */
public final class Http {
    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public static HttpResponse<String> get(int port, String path) throws Exception {
        return send(port, "GET", path);
    }

    public static HttpResponse<String> send(int port, String method, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(10))
                .build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The value of a metric sample line such as {@code name{namespace="x"} 3.0}, or 0 when absent. */
    public static double metric(String metricsText, String nameAndLabels) {
        for (String line : metricsText.split("\n")) {
            if (line.startsWith(nameAndLabels + " ")) {
                return Double.parseDouble(
                        line.substring(nameAndLabels.length() + 1).trim());
            }
        }
        return 0;
    }
}
