package io.sharedlookup.writer.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.stream.ChunkedStream;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.sharedlookup.writer.WriterMetrics;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
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
    record Limits(Duration requestTimeout, Duration idleTimeout, Duration writeTimeout, int maxConnections,
                  int maxInitialLine, int maxHeaderBytes, int maxBodyBytes) {
        /**
         * 5 s to send a request (clients here are probes, scrapers and lookups on the same host or network: a
         * complete request takes milliseconds), 30 s of keep-alive idleness (a Prometheus scrape every 15 s keeps
         * its connection), 10 s to take a response, 256 connections (the writer keeps the rest of a typical 1024
         * descriptor limit for Kafka and store files), 8 KiB for the request line and for the headers (as common web
         * servers), 8 KiB of body.
         */
        static final Limits DEFAULT = new Limits(Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(10),
                256, 8192, 8192, 8192);

        Limits {
            if (requestTimeout.isNegative() || requestTimeout.isZero() || idleTimeout.isNegative()
                    || idleTimeout.isZero() || writeTimeout.isNegative() || writeTimeout.isZero()
                    || maxConnections < 1 || maxInitialLine < 64 || maxHeaderBytes < 64 || maxBodyBytes < 0) {
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
                        p.addLast(new WriteTimeoutHandler(limits.writeTimeout().toMillis(), TimeUnit.MILLISECONDS),
                                guard,
                                decoder,
                                new HttpResponseEncoder(),
                                new FlowControlHandler(),
                                new Aggregator(limits.maxBodyBytes(), metrics),
                                new ChunkedWriteHandler(),
                                new Handler(api, metrics, guard));
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
            throw new IOException("Cannot listen for HTTP on " + host + ":" + port + " (" + (cause.getMessage() != null
                    ? cause.getMessage() : cause.getClass().getSimpleName()) + "): stop what holds that port (another "
                    + "writer?) or choose another --http-port or --http-host", cause);
        }
        this.channel = bound.channel();
        log.info("HTTP on http://{}:{} (/health /ready /namespaces /lookup/{namespace}/{key} /metrics); {}", host,
                port(), limits);
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

    /**
     * First in the pipeline, so it sees raw bytes: counts the connection against the cap, stops reading while a
     * response is being written, and keeps one timer per connection — the request deadline while a request is
     * arriving, the write deadline while its response is written, the idle deadline between requests.
     */
    private static final class ConnectionGuard extends ChannelDuplexHandler {
        static final String OVER_LIMIT = "over_limit";
        static final String REQUEST_TIMEOUT = "request_timeout";
        static final String IDLE_TIMEOUT = "idle_timeout";
        static final String OVERSIZED = "oversized";
        static final String WRITE_TIMEOUT = "write_timeout";
        static final String EVICTED = "evicted";
        static final String[] REASONS = {OVER_LIMIT, REQUEST_TIMEOUT, IDLE_TIMEOUT, OVERSIZED, WRITE_TIMEOUT, EVICTED};
        private static final byte[] OVER_LIMIT_RESPONSE = rawResponse("503 Service Unavailable",
                "Too many connections: try again soon\n");

        private final Limits limits;
        private final AtomicInteger open;
        private final IdleConnections<ConnectionGuard> idle;
        private final WriterMetrics metrics;
        private final RequestDecoder decoder;
        private ChannelHandlerContext ctx;
        private boolean counted;
        private boolean refused;
        /** A request is arriving: its first bytes were read, the whole of it has not been decoded yet. */
        private boolean awaitingRequest;
        /** A request was received and its response is not written yet: reading stops, the write deadline runs. */
        private boolean responding;
        private ScheduledFuture<?> timer;

        ConnectionGuard(Limits limits, AtomicInteger open, IdleConnections<ConnectionGuard> idle,
                        WriterMetrics metrics, RequestDecoder decoder) {
            this.limits = limits;
            this.open = open;
            this.idle = idle;
            this.metrics = metrics;
            this.decoder = decoder;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            this.ctx = ctx;
            int now = open.incrementAndGet();
            counted = true;
            metrics.httpOpenConnections.set(now);
            if (now > limits.maxConnections() && !makeRoom()) {
                refused = true;
                metrics.httpConnectionsClosed.labelValues(OVER_LIMIT).inc();
                ctx.writeAndFlush(Unpooled.wrappedBuffer(OVER_LIMIT_RESPONSE)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            // Nothing sent yet counts as a request arriving: a connection opened and left silent holds a slot for
            // the request timeout, not for the idle timeout.
            awaitingRequest = true;
            arm(ctx, limits.requestTimeout(), REQUEST_TIMEOUT);
            super.channelActive(ctx);
        }

        /**
         * Closes the connection idle the longest, if any, for this one: a probe or a lookup must not be refused
         * because other clients keep connections open that they do not use. Until that one's close completes, the
         * open count is one over the cap.
         */
        private boolean makeRoom() {
            return idle.takeLongestIdle().map(longest -> {
                longest.evict();
                return true;
            }).orElse(false);
        }

        private void evict() {
            metrics.httpConnectionsClosed.labelValues(EVICTED).inc();
            log.debug("HTTP connection from {}: idle at the connection cap; closing it to make room",
                    ctx.channel().remoteAddress());
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            idle.busy(this);
            cancel();
            if (counted) {
                counted = false;
                metrics.httpOpenConnections.set(open.decrementAndGet());
            }
            super.channelInactive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (refused) {
                // Answered 503 in channelActive and being closed: what it sends is not read.
                io.netty.util.ReferenceCountUtil.release(msg);
                return;
            }
            if (!awaitingRequest && !responding && msg instanceof ByteBuf buf && buf.isReadable()) {
                awaitingRequest = true;
                idle.busy(this);
                arm(ctx, limits.requestTimeout(), REQUEST_TIMEOUT);
            }
            super.channelRead(ctx, msg);
        }

        /**
         * The whole request was decoded: nothing more is read from the connection until its response is written
         * (requests pipelined behind it wait in the socket and the flow control), and the response must be taken
         * within the write timeout, counted from here as a whole however it is sliced.
         */
        void requestReceived() {
            awaitingRequest = false;
            responding = true;
            idle.busy(this);
            ctx.channel().config().setAutoRead(false);
            arm(ctx, limits.writeTimeout(), WRITE_TIMEOUT);
        }

        /**
         * The response was written and the connection stays open: idle until the next request's first byte, and
         * reading again (which may hand over at once a request that was pipelined behind the last). When the decoder
         * already holds part of a next request (its first bytes came with the last one, or while its response was
         * written), that request is arriving, and its deadline counts from now.
         */
        void responseSent() {
            responding = false;
            if (!ctx.channel().isActive()) {
                return;
            }
            if (!awaitingRequest) {
                cancel();
                // Decided once the bytes read so far are decoded: a response written at once is sent from within
                // the decoding of the read that brought its request, before the decoder has looked at what followed
                // it (the next request, or only the line breaks a client may send after one).
                ctx.executor().execute(this::idleOrRequestArriving);
            }
            ctx.channel().config().setAutoRead(true);
        }

        private void idleOrRequestArriving() {
            if (awaitingRequest || responding || !ctx.channel().isActive()) {
                return; // a request began or arrived whole meanwhile, or the connection closed
            }
            if (decoder.holdsPartOfARequest()) {
                awaitingRequest = true;
                arm(ctx, limits.requestTimeout(), REQUEST_TIMEOUT);
            } else {
                arm(ctx, limits.idleTimeout(), IDLE_TIMEOUT);
                idle.idle(this);
            }
        }

        private void arm(ChannelHandlerContext ctx, Duration after, String reason) {
            cancel();
            timer = ctx.executor().schedule(() -> expire(ctx, reason), after.toNanos(), TimeUnit.NANOSECONDS);
        }

        private void cancel() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        private void expire(ChannelHandlerContext ctx, String reason) {
            timer = null;
            if (!ctx.channel().isActive()) {
                return;
            }
            metrics.httpConnectionsClosed.labelValues(reason).inc();
            if (reason.equals(REQUEST_TIMEOUT)) {
                log.debug("HTTP connection from {}: no complete request within {}; closing",
                        ctx.channel().remoteAddress(), limits.requestTimeout());
                ctx.writeAndFlush(Unpooled.wrappedBuffer(rawResponse("408 Request Timeout", "No complete request "
                        + "within " + limits.requestTimeout().toMillis() + " ms\n")))
                        .addListener(ChannelFutureListener.CLOSE);
            } else {
                if (reason.equals(WRITE_TIMEOUT)) {
                    log.debug("HTTP connection from {}: response not taken within {}; closing",
                            ctx.channel().remoteAddress(), limits.writeTimeout());
                }
                ctx.close();
            }
        }

        /**
         * A whole response as bytes, for the guard, which sits before the HTTP encoder: a connection refused or timed
         * out gets a status line a client can show, then the close.
         */
        private static byte[] rawResponse(String status, String text) {
            byte[] body = text.getBytes(StandardCharsets.US_ASCII);
            byte[] head = ("HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                    + body.length + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            byte[] out = java.util.Arrays.copyOf(head, head.length + body.length);
            System.arraycopy(body, 0, out, head.length, body.length);
            return out;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
            if (cause instanceof io.netty.handler.timeout.WriteTimeoutException) {
                metrics.httpConnectionsClosed.labelValues(WRITE_TIMEOUT).inc();
                log.debug("HTTP connection from {}: response not taken within {}; closing",
                        ctx.channel().remoteAddress(), limits.writeTimeout());
                ctx.close();
                return;
            }
            super.exceptionCaught(ctx, cause);
        }
    }

    /**
     * Netty's request decoder, which also says whether it holds part of a request: bytes it has not decoded yet (a
     * partial request line), or a request it has begun and not finished (some headers, or a head and part of its
     * body). The guard asks after each response: the first bytes of a pipelined request may have been read together
     * with the last one, and then no new read would tell it a request is arriving. Used with a plain
     * {@link HttpResponseEncoder} instead of {@code HttpServerCodec}, whose decoder cannot be asked: what the codec
     * adds (leaving out the body of a response to HEAD) is done here where responses are made, which never give a
     * response to HEAD a body.
     */
    static final class RequestDecoder extends HttpRequestDecoder {
        private boolean midRequest;

        RequestDecoder(Limits limits) {
            super(new HttpDecoderConfig().setMaxInitialLineLength(limits.maxInitialLine())
                    .setMaxHeaderSize(limits.maxHeaderBytes()).setMaxChunkSize(8192));
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
            int outBefore = out.size();
            int readBefore = buffer.readerIndex();
            super.decode(ctx, buffer, out);
            if (out.size() > outBefore) {
                midRequest = !(out.get(out.size() - 1) instanceof LastHttpContent);
            } else if (!midRequest) {
                // Consumed without a message: a request line or complete header lines, unless it was only what the
                // decoder skips before a request (the line breaks a client may send between requests).
                midRequest = !onlySkippable(buffer, readBefore, buffer.readerIndex());
            }
        }

        /** Whether bytes {@code from..to-1} are all of the kind the decoder skips before a request line. */
        private static boolean onlySkippable(ByteBuf buffer, int from, int to) {
            for (int i = from; i < to; i++) {
                char c = (char) (buffer.getByte(i) & 0xFF);
                if (!Character.isISOControl(c) && !Character.isWhitespace(c)) {
                    return false;
                }
            }
            return true;
        }

        boolean holdsPartOfARequest() {
            return midRequest || actualReadableBytes() > 0;
        }
    }

    /** Answers a body over the limit with 413 and closes, whatever the request says about keep-alive. */
    private static final class Aggregator extends HttpObjectAggregator {
        private final WriterMetrics metrics;

        Aggregator(int maxBodyBytes, WriterMetrics metrics) {
            super(maxBodyBytes);
            this.metrics = metrics;
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            metrics.httpConnectionsClosed.labelValues(ConnectionGuard.OVERSIZED).inc();
            metrics.httpRequests.labelValues("other", "413").inc();
            closeWith(ctx, oversized, HttpApi.Response.text(413, "Request body too large: every endpoint is a GET"));
        }
    }

    /** Answers {@code request} with {@code r} and closes; a response to HEAD gets GET's headers and no body. */
    private static void closeWith(ChannelHandlerContext ctx, HttpMessage request, HttpApi.Response r) {
        boolean head = request instanceof HttpRequest req && req.method().equals(HttpMethod.HEAD);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(r.status()),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(r.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final HttpApi api;
        private final WriterMetrics metrics;
        private final ConnectionGuard guard;

        Handler(HttpApi api, WriterMetrics metrics, ConnectionGuard guard) {
            this.api = api;
            this.metrics = metrics;
            this.guard = guard;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            guard.requestReceived();
            long start = System.nanoTime();
            String method = request.method().name();
            String uri = request.uri();
            if (!request.decoderResult().isSuccess()) {
                // The decoder discards everything after a bad message: the connection is of no further use.
                Throwable cause = request.decoderResult().cause();
                HttpApi.Response r;
                if (cause instanceof TooLongHttpHeaderException) {
                    r = HttpApi.Response.text(431, "Request header fields too large");
                } else if (cause instanceof TooLongHttpLineException) {
                    r = HttpApi.Response.text(414, "Request line too long: keys in the path are limited");
                } else if (cause instanceof TooLongFrameException) {
                    r = HttpApi.Response.text(431, "Request too large");
                } else {
                    r = HttpApi.Response.text(400, "Malformed HTTP request");
                }
                if (r.status() != 400) {
                    metrics.httpConnectionsClosed.labelValues(ConnectionGuard.OVERSIZED).inc();
                }
                metrics.httpRequests.labelValues("other", Integer.toString(r.status())).inc();
                closeWith(ctx, request, r);
                return;
            }
            HttpApi.Response r;
            try {
                r = api.handle(method, uri);
            } catch (RuntimeException e) {
                log.warn("HTTP {} {} failed", method, uri, e);
                r = HttpApi.Response.text(500, "Internal error: " + e);
            }
            // A HEAD response has GET's headers, Content-Length included, and no body.
            boolean head = request.method().equals(HttpMethod.HEAD);
            boolean sliced = !head && r.body().length > SLICE;
            HttpResponse response = sliced
                    ? new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()))
                    : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(r.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
            if (r.status() == 405) {
                response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                HttpUtil.setKeepAlive(response, true);
            }
            String endpoint = HttpApi.endpoint(uri);
            metrics.httpRequests.labelValues(endpoint, Integer.toString(r.status())).inc();
            metrics.httpLatency.labelValues(endpoint).observe((System.nanoTime() - start) / 1e9);
            ChannelFuture written;
            if (sliced) {
                // The chunked writer takes a slice only while the channel is writable (under the water mark).
                ctx.write(response);
                written = ctx.writeAndFlush(new HttpChunkedInput(
                        new ChunkedStream(new ByteArrayInputStream(r.body()), SLICE)));
            } else {
                written = ctx.writeAndFlush(response);
            }
            if (keepAlive) {
                written.addListener(f -> guard.responseSent());
            } else {
                written.addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("HTTP connection error", cause);
            ctx.close();
        }
    }
}
