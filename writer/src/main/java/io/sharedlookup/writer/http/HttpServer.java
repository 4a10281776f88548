package io.sharedlookup.writer.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.sharedlookup.writer.WriterMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty transport for {@link HttpApi}: two small event-loop threads, keep-alive, bodies ignored (all GET or HEAD).
 *
 * <p>Every connection is bounded, so that clients that are slow, idle or hostile cannot take the descriptors the
 * writer needs for Kafka and its store files, nor keep {@code /health} from answering (see {@link Limits#DEFAULT}):
 * <ul>
 *   <li>a request must arrive completely within the request timeout, counted from the connection's opening, from
 *       its first byte after the previous response, or from the previous response's end when its first bytes came
 *       before (pipelined); otherwise the server answers 408 and closes;</li>
 *   <li>a kept-alive connection with nothing to do is closed after the idle timeout;</li>
 *   <li>at the connection cap a new connection makes the server close the kept-alive connection idle the longest
 *       (clients open a new one when they need it); when none is idle, the new connection is answered 503 and closed
 *       at once;</li>
 *   <li>an initial line, header section or body over its limit is answered 414, 431 or 413 and the connection is
 *       closed (the rest of such a request is never read);</li>
 *   <li>a response the client does not read within the write timeout closes the connection.</li>
 * </ul>
 * Each of these closings is counted in {@code sharedlookup_http_connections_closed_total{reason}}, and the open
 * connections in {@code sharedlookup_http_open_connections}.
 *
 * <p>So is the memory a connection holds. It has one request in flight: the server stops reading it once a request
 * is received and reads on only when the response is written, so a client that pipelines requests without reading
 * the responses makes the server hold one response, not one per request. That response goes out in slices of
 * {@link #SLICE} bytes, each only while the connection's outbound buffer is under {@link #WATER_MARK}'s high mark,
 * so a slow reader keeps at most about that much of it in Netty's (direct) buffers.
 *
 * <p>This class binds the port and builds each connection's pipeline; the pipeline's parts each own one job:
 * {@link ConnectionGuard} (the cap and the timers), {@link RequestDecoder}, {@link OversizedBodyAggregator},
 * {@link RequestHandler} (answering through {@link HttpApi}) and {@link ResponseWriting} (what goes on the wire).
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);
    private final EventLoopGroup boss = new NioEventLoopGroup(1);
    private final EventLoopGroup workers = new NioEventLoopGroup(1);
    private final Channel channel;
    private final AtomicInteger open = new AtomicInteger();
    private final IdleConnections<ConnectionGuard> idle = new IdleConnections<>();

    /** A body larger than this is written slice by slice, as the client takes it; a smaller one in one write. */
    static final int SLICE = 8192;
    /**
     * A connection whose unsent bytes exceed 32 KiB gets no further slice until they drop under 8 KiB: with the
     * connection cap, at most 256 x (32 KiB + one slice), 10 MiB, of direct memory waits on slow readers (a sidecar
     * runs with 32 MiB).
     */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(8 * 1024, 32 * 1024);

    /**
     * Per-connection bounds.
     *
     * @param requestTimeout    a request (line, headers, body) must arrive completely within this, counted from the
     *                          connection's opening, from its first byte after the previous response, or from that
     *                          response's end when its first bytes came before
     * @param idleTimeout       a kept-alive connection without a request in progress is closed after this
     * @param writeTimeout      a response not taken by the client within this closes the connection
     * @param maxConnections    open connections at most; a new one beyond it closes the longest idle kept-alive
     *                          connection, or is answered 503 and closed when none is idle
     * @param maxInitialLine    bytes of the request line at most (the path holds the lookup key), else 414
     * @param maxHeaderBytes    bytes of all header lines at most, else 431
     * @param maxBodyBytes      bytes of a request body at most (every endpoint is a GET), else 413
     */
    record Limits(
            Duration requestTimeout,
            Duration idleTimeout,
            Duration writeTimeout,
            int maxConnections,
            int maxInitialLine,
            int maxHeaderBytes,
            int maxBodyBytes) {
        /**
         * 5 s to send a request (clients here are probes, scrapers and lookups on the same host or network: a
         * complete request takes milliseconds), 30 s of keep-alive idleness (a Prometheus scrape every 15 s keeps
         * its connection), 10 s to take a response, 256 connections (the writer keeps the rest of a typical 1024
         * descriptor limit for Kafka and store files), 8 KiB for the request line and for the headers (as common web
         * servers), 8 KiB of body.
         */
        static final Limits DEFAULT = new Limits(
                Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(10), 256, 8192, 8192, 8192);

        Limits {
            if (requestTimeout.isNegative()
                    || requestTimeout.isZero()
                    || idleTimeout.isNegative()
                    || idleTimeout.isZero()
                    || writeTimeout.isNegative()
                    || writeTimeout.isZero()
                    || maxConnections < 1
                    || maxInitialLine < 64
                    || maxHeaderBytes < 64
                    || maxBodyBytes < 0) {
                throw new IllegalArgumentException("Invalid HTTP limits: " + this);
            }
        }
    }

    /**
     * Listens on {@code host:port}, or fails having released everything it took.
     *
     * @throws IOException when it cannot listen there (port in use, address not this host's), with a one-line message
     *                     naming the address and what to do
     */
    public HttpServer(String host, int port, HttpApi api, WriterMetrics metrics)
            throws IOException, InterruptedException {
        this(host, port, api, metrics, Limits.DEFAULT);
    }

    HttpServer(String host, int port, HttpApi api, WriterMetrics metrics, Limits limits)
            throws IOException, InterruptedException {
        metrics.httpOpenConnections.set(0);
        for (String reason : ConnectionGuard.REASONS) {
            metrics.httpConnectionsClosed.labelValues(reason);
        }
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RequestDecoder decoder = new RequestDecoder(limits);
                        ConnectionGuard guard = new ConnectionGuard(limits, open, idle, metrics, decoder);
                        ChannelPipeline p = ch.pipeline();
                        // The write timeout first, so that its exception passes the guard, which counts it.
                        // The flow control before the aggregator: the decoder turns one socket read into as many
                        // requests as it holds, and the flow control passes them on one at a time while the guard
                        // has reading stopped (the aggregator alone would read on to complete a partial body).
                        p.addLast(
                                new WriteTimeoutHandler(limits.writeTimeout().toMillis(), TimeUnit.MILLISECONDS),
                                guard,
                                decoder,
                                new HttpResponseEncoder(),
                                new FlowControlHandler(),
                                new OversizedBodyAggregator(limits.maxBodyBytes(), metrics),
                                new ChunkedWriteHandler(),
                                new RequestHandler(api, metrics, guard));
                    }
                });
        // await, not sync: sync rethrows a failed bind's BindException (checked, undeclared) past this catch, which
        // would leave the event-loop threads, not daemons, running.
        ChannelFuture bound;
        try {
            bound = b.bind(host, port).await();
        } catch (RuntimeException | Error | InterruptedException e) {
            shutdownGroups();
            throw e;
        }
        if (!bound.isSuccess()) {
            shutdownGroups();
            Throwable cause = bound.cause();
            throw new IOException(
                    "Cannot listen for HTTP on " + host + ":" + port + " ("
                            + (cause.getMessage() != null
                                    ? cause.getMessage()
                                    : cause.getClass().getSimpleName()) + "): stop what holds that port (another "
                            + "writer?) or choose another --http-port or --http-host",
                    cause);
        }
        this.channel = bound.channel();
        log.info(
                "HTTP on http://{}:{} (/health /ready /namespaces /lookup/{namespace}/{key} /metrics); {}",
                host,
                port(),
                limits);
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        shutdownGroups();
    }

    private void shutdownGroups() {
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
