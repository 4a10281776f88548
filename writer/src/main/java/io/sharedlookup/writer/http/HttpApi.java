package io.sharedlookup.writer.http;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.reader.LookupTimeoutException;
import io.sharedlookup.reader.NamespaceNotFoundException;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.namespace.NamespaceStatus;
import io.sharedlookup.writer.namespace.SkippedRecords;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The HTTP endpoints, independent of the server: a request path in, a {@link Response} out. Nothing here changes
 * data. Lookups go through reader-lib, so they show exactly what readers see (the published generation).
 */
public final class HttpApi {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEXT = "text/plain; charset=utf-8";
    private static final String JSON_TYPE = "application/json";

    private final Supplier<Map<String, NamespaceStatus>> statuses;
    private final Supplier<Optional<String>> fatal;
    private final Supplier<Optional<String>> starting;
    private final SharedLookupStore store;
    private final WriterMetrics metrics;

    /** An API whose process never fails as a whole (for tests of the other endpoints). */
    public HttpApi(Supplier<Map<String, NamespaceStatus>> statuses, SharedLookupStore store, WriterMetrics metrics) {
        this(statuses, Optional::empty, store, metrics);
    }

    /**
     * @param statuses the latest status snapshots of the namespaces, per namespace
     * @param fatal    why the writer can no longer do its job (its ingest thread died, or has been held away from its
     *                 loop past {@code --ingest-hold-limit}), or empty: {@code /health} answers 503 then, so that a
     *                 liveness probe restarts it
     * @param store    the store lookups read, as readers do
     */
    public HttpApi(
            Supplier<Map<String, NamespaceStatus>> statuses,
            Supplier<Optional<String>> fatal,
            SharedLookupStore store,
            WriterMetrics metrics) {
        this(statuses, fatal, Optional::empty, store, metrics);
    }

    /**
     * @param starting what the writer is doing before it ingests (seeding namespaces from a snapshot, which may take
     *                 minutes), or empty: {@code /health} answers 200 with it, so that a liveness probe sees a process
     *                 at work, while {@code /ready} says why each namespace is not ready
     */
    public HttpApi(
            Supplier<Map<String, NamespaceStatus>> statuses,
            Supplier<Optional<String>> fatal,
            Supplier<Optional<String>> starting,
            SharedLookupStore store,
            WriterMetrics metrics) {
        this.statuses = statuses;
        this.fatal = fatal;
        this.starting = starting;
        this.store = store;
        this.metrics = metrics;
    }

    record Response(int status, String contentType, byte[] body) {
        static Response text(int status, String text) {
            return new Response(status, TEXT, (text + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The endpoint label of a path for metrics: bounded, never the key. */
    static String endpoint(String uri) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        if (path.startsWith("/lookup/")) {
            return "/lookup";
        }
        return switch (path) {
            case "/health", "/ready", "/namespaces", "/metrics" -> path;
            default -> "other";
        };
    }

    /** HEAD is answered as GET (RFC 9110 9.3.2): the server sends the same head without the body. */
    Response handle(String method, String rawPath) {
        if (!method.equals("GET") && !method.equals("HEAD")) {
            return Response.text(
                    405, "Method " + method + " not allowed: every endpoint is read-only, use GET or " + "HEAD");
        }
        int q = rawPath.indexOf('?');
        String path = q < 0 ? rawPath : rawPath.substring(0, q);
        if (path.startsWith("/lookup/")) {
            return lookup(path.substring("/lookup/".length()));
        }
        return switch (path) {
            case "/health" ->
                fatal.get()
                        .map(
                                why -> Response.text(
                                        503,
                                        why + "; restart the writer (it rebuilds "
                                                + "its namespaces from their topics; readers keep what is published meanwhile)"))
                        .orElseGet(() -> Response.text(200, starting.get().orElse("ok")));
            case "/ready" -> ready();
            case "/namespaces" -> json(200, namespaces());
            case "/metrics" -> new Response(200, WriterMetrics.contentType(), metrics.scrape());
            default ->
                Response.text(
                        404,
                        "No endpoint " + path
                                + ": use /health, /ready, /namespaces, /lookup/{namespace}/{key} or /metrics");
        };
    }

    /** The body of /ready: the namespaces not ready with their reasons, then whether none is. */
    record ReadyJson(Map<String, String> notReady, boolean ready) {}

    /** One namespace in /namespaces; the reason is omitted while it is ready. */
    record NamespaceJson(
            String topic,
            String state,
            boolean ready,
            @JsonInclude(JsonInclude.Include.NON_NULL) String notReadyReason,
            boolean caughtUp,
            long generation,
            long entries,
            long capacity,
            double fillRatio,
            Map<Integer, Long> lag,
            String lastUpdate,
            String lastError,
            Map<Integer, Long> offsets,
            String digest,
            List<SkippedRecords.Skipped> skippedRecords) {
        static NamespaceJson of(NamespaceStatus s) {
            return new NamespaceJson(
                    s.topic(),
                    s.state().name(),
                    s.ready(),
                    s.notReadyReason(),
                    s.caughtUp(),
                    s.generation(),
                    s.entries(),
                    s.capacity(),
                    Math.round(s.fillRatio() * 10000) / 10000.0,
                    s.lag(),
                    s.lastUpdateMillis() == 0
                            ? null
                            : Instant.ofEpochMilli(s.lastUpdateMillis()).toString(),
                    s.lastError(),
                    s.offsets(),
                    s.digest() == null ? null : ContentDigest.hex(s.digest()),
                    s.skippedRecords());
        }
    }

    private Response ready() {
        Map<String, String> notReady = new LinkedHashMap<>();
        for (NamespaceStatus s : statuses.get().values()) {
            if (!s.ready()) {
                notReady.put(s.namespace(), s.notReadyReason());
            }
        }
        return json(notReady.isEmpty() ? 200 : 503, new ReadyJson(notReady, notReady.isEmpty()));
    }

    private Map<String, NamespaceJson> namespaces() {
        Map<String, NamespaceJson> body = new LinkedHashMap<>();
        statuses.get().values().forEach(s -> body.put(s.namespace(), NamespaceJson.of(s)));
        return body;
    }

    private Response lookup(String rest) {
        int slash = rest.indexOf('/');
        if (slash < 0) {
            return Response.text(400, "Use /lookup/{namespace}/{key}");
        }
        String namespace;
        String key;
        try {
            namespace = decodePath(rest.substring(0, slash));
            key = decodePath(rest.substring(slash + 1));
        } catch (IllegalArgumentException e) {
            return Response.text(400, e.getMessage());
        }
        if (!NamespaceNames.isValid(namespace)) {
            return Response.text(400, "Invalid namespace name: use 1 to 200 characters from [A-Za-z0-9._-]");
        }
        try {
            String value = store.lookup(namespace).get(key);
            if (value == null) {
                return Response.text(404, "No key '" + key + "' in namespace '" + namespace + "'");
            }
            return new Response(200, TEXT, value.getBytes(StandardCharsets.UTF_8));
        } catch (NamespaceNotFoundException e) {
            return Response.text(404, "No namespace '" + namespace + "' is published in this store");
        } catch (LookupTimeoutException e) {
            return Response.text(503, "Lookup timed out: " + e.getMessage());
        } catch (SharedLookupException e) {
            return Response.text(503, "Namespace '" + namespace + "' cannot be read now: " + e.getMessage());
        }
    }

    /**
     * Percent-decodes a path segment of a request line as UTF-8. Unlike form decoding, '+' stays '+': keys may contain
     * it. Netty hands the request line over one char per byte, so a char below 256 is a byte of the UTF-8 text (a
     * client may send non-ASCII keys unescaped, as curl does).
     *
     * @throws IllegalArgumentException on a malformed escape or invalid UTF-8
     */
    static String decodePath(String s) {
        if (s.indexOf('%') < 0 && s.chars().allMatch(c -> c < 0x80)) {
            return s;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '%') {
                if (i + 2 >= s.length()
                        || Character.digit(s.charAt(i + 1), 16) < 0
                        || Character.digit(s.charAt(i + 2), 16) < 0) {
                    throw new IllegalArgumentException(
                            "Malformed percent-escape in the path: encode keys as UTF-8 " + "with %XX escapes");
                }
                bytes.write(Character.digit(s.charAt(i + 1), 16) * 16 + Character.digit(s.charAt(i + 2), 16));
                i += 2;
            } else if (c < 0x100) {
                bytes.write(c);
            } else {
                throw new IllegalArgumentException("The path holds a character that is not a byte: send it as UTF-8");
            }
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalArgumentException("The path is not valid UTF-8 after percent-decoding");
        }
    }

    private static Response json(int status, Object body) {
        try {
            return new Response(
                    status, JSON_TYPE, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
