package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetric;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.testing.TestStores;
import io.sharedlookup.writer.Http;
import io.sharedlookup.writer.WriterMetrics;
import io.sharedlookup.writer.store.GenerationFile;
import io.sharedlookup.writer.store.GenerationSizing;
import io.sharedlookup.writer.store.NamespaceDirectory;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection that pipelines requests and does not read the responses. Before the fix the server read and answered
 * them all, holding every response (here 2,000 x 100 KB, 200 MB of direct memory) until the client read it or the
 * write timeout closed the connection: a single client could exhaust a sidecar's 32 MiB of direct memory.
 */
class HttpServerBackpressureTest {
    private static final Logger log = LoggerFactory.getLogger(HttpServerBackpressureTest.class);
    private static final int REQUESTS = 2000;
    private static final int KEYS = 4;
    private static final int VALUE_BYTES = 100 * 1024;
    /** Well above one response and the allocator's chunk granularity (4 MiB), far below REQUESTS responses. */
    private static final long MEMORY_BOUND = 16L << 20;

    @TempDir
    Path storeDir;

    @Test
    void aClientThatPipelinesWithoutReadingMakesTheServerHoldBoundedMemoryAndThenGetsEveryResponseInOrder()
            throws Exception {
        Map<String, String> values = new HashMap<>();
        for (int k = 0; k < KEYS; k++) {
            values.put("k" + k, ("value " + k + " ").repeat(VALUE_BYTES / 8).substring(0, VALUE_BYTES));
        }
        WriterMetrics metrics = new WriterMetrics();
        ExecutorService sender = Executors.newSingleThreadExecutor();
        try (NamespaceDirectory writer =
                        NamespaceDirectory.open(new StoreLayout(storeDir), "big", StorePermissions.DEFAULT);
                GenerationFile generation = publish(writer, values);
                SharedLookupStore store = SharedLookupStore.open(storeDir);
                HttpServer server = new HttpServer(
                        "127.0.0.1", 0, new HttpApi(Map::of, store, metrics), metrics, HttpServer.Limits.DEFAULT);
                Socket socket = new Socket()) {
            // A small receive buffer, so that the kernel holds few responses for the client that does not read.
            socket.setReceiveBufferSize(64 * 1024);
            socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
            socket.setSoTimeout(30_000); // a server that stops answering fails the test instead of hanging it
            long before = allocatorMemory();

            OutputStream out = socket.getOutputStream();
            CompletableFuture<Void> sent = CompletableFuture.runAsync(
                    () -> {
                        try {
                            for (int i = 0; i < REQUESTS; i++) {
                                out.write(("GET /lookup/big/k" + i % KEYS + " HTTP/1.1\r\nHost: localhost\r\n"
                                                + (i == REQUESTS - 1 ? "Connection: close\r\n" : "") + "\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                            }
                            out.flush();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    },
                    sender);

            await("first lookup answered").atMost(Duration.ofSeconds(10)).until(() -> answered(metrics) >= 1);
            AtomicLong most = new AtomicLong();
            // While the client reads nothing, the server holds a bounded amount, however many requests are sent.
            await("pending response memory stays bounded")
                    .during(Duration.ofSeconds(2))
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> {
                        long held = allocatorMemory() - before;
                        most.accumulateAndGet(held, Math::max);
                        assertThat(held)
                                .as("allocator memory taken since the client connected")
                                .isLessThan(MEMORY_BOUND);
                    });
            long answeredUnread = (long) answered(metrics);
            log.info(
                    "Client not reading: {} of {} lookups answered, at most {} KiB more allocator memory",
                    answeredUnread,
                    REQUESTS,
                    most.get() / 1024);
            assertThat(answeredUnread)
                    .as("lookups answered while the client reads nothing (the rest wait unread)")
                    .isLessThan(REQUESTS / 10);

            // Now the client reads: every response arrives, complete and in order.
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (int i = 0; i < REQUESTS; i++) {
                String expected = values.get("k" + i % KEYS);
                String body = readResponse(in, i);
                assertThat(body)
                        .as("body of response %d", i)
                        .hasSize(expected.length())
                        .isEqualTo(expected);
            }
            assertThat(in.read())
                    .as("the server closes after the last (Connection: close)")
                    .isEqualTo(-1);
            sent.get(10, TimeUnit.SECONDS);
            assertThat(answered(metrics)).isEqualTo(REQUESTS);
        } finally {
            sender.shutdownNow();
        }
    }

    /** A generation sized for the large values (the test stores' default sizing is for short ones), published. */
    private static GenerationFile publish(NamespaceDirectory writer, Map<String, String> values) throws IOException {
        GenerationFile generation =
                writer.createGeneration(GenerationSizing.forExpected(values.size(), 2, VALUE_BYTES), false);
        values.forEach((k, v) -> generation.put(k, v, TestStores.TIMEOUT));
        writer.publish(generation, "topic", Map.of(0, (long) values.size()), true, Map.of());
        return generation;
    }

    /** Direct and heap memory the server's allocator (Netty's default) has taken from the JVM. */
    private static long allocatorMemory() {
        ByteBufAllocatorMetric m = ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric();
        return m.usedDirectMemory() + m.usedHeapMemory();
    }

    private static double answered(WriterMetrics metrics) {
        return Http.metric(
                new String(metrics.scrape(), StandardCharsets.UTF_8),
                "sharedlookup_http_requests_total{endpoint=\"/lookup\",status=\"200\"}");
    }

    /** Reads one response with a Content-Length body; returns the body. */
    private static String readResponse(InputStream in, int index) throws IOException {
        String status = readLine(in);
        assertThat(status).as("status line of response %d", index).startsWith("HTTP/1.1 200 ");
        int length = -1;
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        assertThat(length).as("Content-Length of response %d", index).isNotNegative();
        byte[] body = in.readNBytes(length);
        assertThat(body).as("body of response %d complete", index).hasSize(length);
        return new String(body, StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("Connection closed in the middle of a response head");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}
