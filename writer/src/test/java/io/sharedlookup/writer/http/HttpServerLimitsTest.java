package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.Http;
import io.sharedlookup.writer.WriterMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue #13 item 9: the writer's HTTP server against clients that are slow, idle or send too much, over real loopback
 * sockets. Before the fix a half-sent request stayed open for as long as the client liked and 600 idle connections
 * took the descriptors the writer needed for its manifest and for {@code /health}.
 */
class HttpServerLimitsTest {
    private static final Logger log = LoggerFactory.getLogger(HttpServerLimitsTest.class);
    private static final HttpServer.Limits DEFAULTS = HttpServer.Limits.DEFAULT;
    private final WriterMetrics metrics = new WriterMetrics();
    private final List<Conn> conns = new ArrayList<>();
    private Path storeDir;
    private SharedLookupStore store;
    private HttpServer server;

    @BeforeEach
    void store() throws Exception {
        storeDir = Files.createTempDirectory("http-limits-");
        store = SharedLookupStore.open(storeDir);
    }

    @AfterEach
    void stop() throws Exception {
        conns.forEach(Conn::close);
        if (server != null) {
            server.close();
        }
        store.close();
        Files.deleteIfExists(storeDir);
    }

    private int start(HttpServer.Limits limits) throws Exception {
        server = new HttpServer("127.0.0.1", 0, new HttpApi(Map::of, store, metrics), metrics, limits);
        return server.port();
    }

    private Conn connect(int port) throws IOException {
        Conn c = new Conn(port);
        conns.add(c);
        return c;
    }

    private double closedFor(String reason) {
        return Http.metric(
                new String(metrics.scrape(), StandardCharsets.UTF_8),
                "sharedlookup_http_connections_closed_total{reason=\"" + reason + "\"}");
    }

    @Test
    void aHalfSentRequestIsAnswered408AndClosedWithinTheRequestTimeout() throws Exception {
        int port = start(DEFAULTS);
        Conn slow = connect(port);
        slow.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
        Conn silent = connect(port);
        long sent = System.nanoTime();
        Duration bound = DEFAULTS.requestTimeout().plusSeconds(2);
        await("half-sent request closed by the server")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(20))
                .until(slow::closedByServer);
        long millis = (System.nanoTime() - sent) / 1_000_000;
        log.info("Half-sent request closed after {} ms (request timeout {})", millis, DEFAULTS.requestTimeout());
        assertThat(millis)
                .as("not closed before the request timeout")
                .isGreaterThanOrEqualTo(DEFAULTS.requestTimeout().toMillis() - 500);
        assertThat(slow.received()).startsWith("HTTP/1.1 408 ");
        await("silent connection closed by the server")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(silent::closedByServer);
        assertThat(closedFor("request_timeout")).isEqualTo(2);
        assertThat(Http.get(port, "/health").statusCode()).isEqualTo(200);
    }

    @Test
    void aSlowButCompleteRequestIsServedAndAKeptAliveConnectionClosesAfterTheIdleTimeout() throws Exception {
        HttpServer.Limits limits = timeouts(Duration.ofSeconds(1), Duration.ofSeconds(3));
        int port = start(limits);
        Conn c = connect(port);
        c.send("GET /health HTTP/1.1\r\n");
        Thread.sleep(300); // part of the scenario (a slow client), not synchronisation
        c.send("Host: localhost\r\n\r\n");
        await("response")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> c.poll().contains("ok\n"));
        long answered = System.nanoTime();
        assertThat(c.received()).startsWith("HTTP/1.1 200 ");
        await("idle keep-alive connection closed")
                .atMost(limits.idleTimeout().plusSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(c::closedByServer);
        long idleMillis = (System.nanoTime() - answered) / 1_000_000;
        assertThat(idleMillis)
                .as("kept alive for the idle timeout, not the request timeout")
                .isGreaterThanOrEqualTo(limits.idleTimeout().toMillis() - 300);
        assertThat(closedFor("idle_timeout")).isEqualTo(1);
    }

    @Test
    void beyondTheConnectionCapNewConnectionsAreRefusedAtOnceAndHealthAnswersOnceIdleOnesTimeOut() throws Exception {
        int port = start(DEFAULTS);
        int extra = 44;
        int total = DEFAULTS.maxConnections() + extra;
        long opened = System.nanoTime();
        for (int i = 0; i < total; i++) {
            connect(port);
        }
        await("connections beyond the cap closed")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> conns.stream().filter(Conn::closedByServer).count() >= extra);
        long refusedMillis = (System.nanoTime() - opened) / 1_000_000;
        List<Conn> refused = conns.stream().filter(Conn::closedByServer).toList();
        assertThat(refused)
                .hasSize(extra)
                .allSatisfy(c -> assertThat(c.received()).startsWith("HTTP/1.1 503 "));
        assertThat(closedFor("over_limit")).isEqualTo(extra);

        // The client keeps its idle connections open: the server's request timeout frees the slots.
        Duration bound = DEFAULTS.requestTimeout().plusSeconds(3);
        long waited = System.nanoTime();
        await("/health answers once idle connections timed out")
                .atMost(bound)
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .until(() -> Http.get(port, "/health").statusCode() == 200);
        long healthMillis = (System.nanoTime() - waited) / 1_000_000;
        await().atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> conns.stream().allMatch(Conn::closedByServer));
        log.info(
                "{} idle connections: {} refused within {} ms; /health answered {} ms later",
                total,
                extra,
                refusedMillis,
                healthMillis);
        assertThat(closedFor("request_timeout")).isEqualTo(DEFAULTS.maxConnections());
    }

    /**
     * Before the fix every connection beyond the cap was refused, so clients holding kept-alive connections they did
     * not use got a liveness probe answered 503 and a healthy writer restarted.
     */
    @Test
    void atTheCapTheLongestIdleKeptAliveConnectionIsClosedForANewOneAndOnlyWithNoneIdleIsANewOneRefused()
            throws Exception {
        // A long request timeout: the silent connections must stay open for the whole test.
        HttpServer.Limits limits = new HttpServer.Limits(
                Duration.ofSeconds(60),
                DEFAULTS.idleTimeout(),
                DEFAULTS.writeTimeout(),
                3,
                DEFAULTS.maxInitialLine(),
                DEFAULTS.maxHeaderBytes(),
                DEFAULTS.maxBodyBytes());
        int port = start(limits);
        Conn first = keptAlive(port);
        Conn second = keptAlive(port);
        Conn silent = connect(port); // opened, nothing sent: a request arriving, not idle
        awaitOpen(3);

        Conn probe = connect(port);
        probe.send("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        await("probe answered")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(probe::closedByServer);
        assertThat(probe.received()).startsWith("HTTP/1.1 200 ").endsWith("ok\n");
        await("longest idle connection closed")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(first::closedByServer);
        assertThat(second.closedByServer())
                .as("the other idle connection stays")
                .isFalse();
        assertThat(closedFor("evicted")).isEqualTo(1);

        awaitOpen(2);
        Conn silent2 = connect(port);
        Conn silent3 = connect(port); // one over the cap: the one idle connection left makes room
        await("the other idle connection closed")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(second::closedByServer);
        awaitOpen(3);

        Conn refused = connect(port); // none idle: refused
        await("refused")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(20))
                .until(refused::closedByServer);
        assertThat(refused.received()).startsWith("HTTP/1.1 503 ");
        assertThat(List.of(silent, silent2, silent3)).noneMatch(Conn::closedByServer);
        assertThat(closedFor("evicted")).isEqualTo(2);
        assertThat(closedFor("over_limit")).isEqualTo(1);
    }

    /** A connection that has had one request answered and stays open, idle. */
    private Conn keptAlive(int port) throws IOException {
        Conn c = connect(port);
        c.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
        await("kept-alive response")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> c.poll().endsWith("ok\n"));
        return c;
    }

    private void awaitOpen(int connections) {
        await("open connections " + connections)
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> Http.metric(
                                new String(metrics.scrape(), StandardCharsets.UTF_8),
                                "sharedlookup_http_open_connections")
                        == connections);
    }

    @Test
    void anOversizedHeaderLineOrBodyIsAnsweredAndTheConnectionClosed() throws Exception {
        int port = start(DEFAULTS);
        Conn header = connect(port);
        header.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(16 * 1024) + "\r\n\r\n");
        Conn line = connect(port);
        line.send("GET /lookup/users/" + "k".repeat(16 * 1024) + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
        Conn body = connect(port);
        body.send("GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n");
        for (Conn c : List.of(header, line, body)) {
            await("connection closed after an oversized request")
                    .atMost(Duration.ofSeconds(2))
                    .pollInterval(Duration.ofMillis(20))
                    .until(c::closedByServer);
        }
        assertThat(header.received()).startsWith("HTTP/1.1 431 ");
        assertThat(line.received()).startsWith("HTTP/1.1 414 ");
        assertThat(body.received()).startsWith("HTTP/1.1 413 ");
        assertThat(closedFor("oversized")).isEqualTo(3);
    }

    /**
     * The start of a next request sent in the same write as a complete one (pipelining) is a request arriving, not
     * idleness, whether the decoder holds a partial request line, a request line and some headers, or a whole head and
     * part of its body. Before the fix those bytes were read before the first response was written, nothing new
     * arrived after it, and the connection counted as idle: closed without an answer after the idle timeout instead
     * of 408 after the request timeout, and evictable at the cap in the middle of a request.
     */
    @Test
    void aPartialRequestPipelinedBehindACompleteOneIsTimedAsARequestNotAsIdleness() throws Exception {
        HttpServer.Limits limits = timeouts(Duration.ofSeconds(1), Duration.ofSeconds(20));
        int port = start(limits);
        String complete = "GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n";
        List<String> partials = List.of(
                "GET /hea",
                "GET /health HTTP/1.1\r\nHost: localhost\r\n",
                "GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 10\r\n\r\n12345");
        List<Conn> pipelined = new ArrayList<>();
        for (String partial : partials) {
            Conn c = connect(port);
            c.send(complete + partial);
            pipelined.add(c);
        }
        long sent = System.nanoTime();
        for (Conn c : pipelined) {
            await("the partial request answered 408 and closed")
                    .atMost(limits.requestTimeout().plusSeconds(3))
                    .pollInterval(Duration.ofMillis(20))
                    .until(c::closedByServer);
        }
        long millis = (System.nanoTime() - sent) / 1_000_000;
        log.info("Partial pipelined requests closed after {} ms (request timeout {})", millis, limits.requestTimeout());
        assertThat(pipelined)
                .allSatisfy(c ->
                        assertThat(c.received()).startsWith("HTTP/1.1 200 ").contains("ok\nHTTP/1.1 408 "));
        assertThat(closedFor("request_timeout")).isEqualTo(partials.size());
        assertThat(closedFor("idle_timeout")).isZero();
    }

    /**
     * The line breaks some clients send after a request are skipped, not the start of a next request: the connection
     * is idle after the response. Before the fix a response written at once was sent before the decoder had looked
     * at them, so they counted as a request arriving, answered 408 after the request timeout.
     */
    @Test
    void lineBreaksAfterARequestLeaveTheConnectionIdle() throws Exception {
        HttpServer.Limits limits = timeouts(Duration.ofSeconds(1), Duration.ofSeconds(3));
        int port = start(limits);
        Conn c = connect(port);
        c.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n\r\n");
        await("response")
                .atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> c.poll().endsWith("ok\n"));
        await("idle timeout")
                .atMost(limits.idleTimeout().plusSeconds(3))
                .pollInterval(Duration.ofMillis(20))
                .until(c::closedByServer);
        assertThat(c.received()).doesNotContain("408");
        assertThat(closedFor("idle_timeout")).isEqualTo(1);
        assertThat(closedFor("request_timeout")).isZero();
    }

    /** The default limits with these request and idle timeouts. */
    private static HttpServer.Limits timeouts(Duration request, Duration idle) {
        return new HttpServer.Limits(
                request,
                idle,
                DEFAULTS.writeTimeout(),
                DEFAULTS.maxConnections(),
                DEFAULTS.maxInitialLine(),
                DEFAULTS.maxHeaderBytes(),
                DEFAULTS.maxBodyBytes());
    }

    /** A raw loopback connection, read without blocking. */
    private static final class Conn implements AutoCloseable {
        private final SocketChannel channel;
        private final ByteArrayOutputStream got = new ByteArrayOutputStream();
        private boolean eof;

        Conn(int port) throws IOException {
            channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
            channel.configureBlocking(false);
        }

        void send(String text) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
            while (b.hasRemaining()) {
                channel.write(b);
            }
        }

        /** Reads what has arrived; returns everything received so far. */
        synchronized String poll() {
            if (!eof) {
                ByteBuffer b = ByteBuffer.allocate(8192);
                try {
                    int n;
                    while ((n = channel.read(b)) > 0) {
                        got.write(b.array(), 0, n);
                        b.clear();
                    }
                    eof = n < 0;
                } catch (IOException e) {
                    eof = true; // reset by the server
                }
            }
            return received();
        }

        boolean closedByServer() {
            poll();
            return eof;
        }

        synchronized String received() {
            return got.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                // test clean-up
            }
        }
    }
}
