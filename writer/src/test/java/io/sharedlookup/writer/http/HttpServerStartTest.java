package io.sharedlookup.writer.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.Http;
import io.sharedlookup.writer.WriterMetrics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that cannot listen. Before the fix a port in use threw a bare {@code BindException: Address already in
 * use} past the constructor's clean-up, and its event-loop thread, not a daemon, kept running.
 */
class HttpServerStartTest {
    @TempDir
    Path storeDir;

    @Test
    void aPortInUseFailsWithOneLineNamingTheAddressAndLeavesNoEventLoopThreadRunning() throws Exception {
        WriterMetrics metrics = new WriterMetrics();
        try (SharedLookupStore store = SharedLookupStore.open(storeDir);
                HttpServer first = new HttpServer("127.0.0.1", 0, new HttpApi(Map::of, store, metrics), metrics)) {
            int port = first.port();
            Set<Thread> before = nettyThreads();

            assertThatThrownBy(() -> new HttpServer("127.0.0.1", port, new HttpApi(Map::of, store, metrics), metrics))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("Cannot listen for HTTP on 127.0.0.1:" + port + " (")
                    .hasMessageContaining("choose another --http-port")
                    .hasMessageNotContaining("\n");
            await("the failed server's event-loop threads end")
                    .atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(50))
                    .untilAsserted(() -> assertThat(nettyThreads())
                            .as("non-daemon Netty threads started by the failed server")
                            .isSubsetOf(before));
            assertThat(Http.get(port, "/health").statusCode())
                    .as("the first server still answers")
                    .isEqualTo(200);
        }
    }

    /** Live non-daemon Netty event-loop threads (named by Netty's thread factory after the group class). */
    private static Set<Thread> nettyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon() && t.getName().startsWith("nioEventLoopGroup"))
                .collect(Collectors.toSet());
    }
}
