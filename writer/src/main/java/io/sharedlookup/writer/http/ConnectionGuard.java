package io.sharedlookup.writer.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.sharedlookup.writer.WriterMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First after the write timeout (which only watches writes), so it sees raw bytes: counts the connection against
 * the cap, stops reading while a response is being written, and keeps one timer per connection — the request
 * deadline while a request is arriving, the write deadline while its response is written, the idle deadline
 * between requests.
 */
final class ConnectionGuard extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);
    static final String OVER_LIMIT = "over_limit";
    static final String REQUEST_TIMEOUT = "request_timeout";
    static final String IDLE_TIMEOUT = "idle_timeout";
    static final String OVERSIZED = "oversized";
    static final String WRITE_TIMEOUT = "write_timeout";
    static final String EVICTED = "evicted";
    static final String[] REASONS = {OVER_LIMIT, REQUEST_TIMEOUT, IDLE_TIMEOUT, OVERSIZED, WRITE_TIMEOUT, EVICTED};
    private static final byte[] OVER_LIMIT_RESPONSE =
            rawResponse("503 Service Unavailable", "Too many connections: try again soon\n");

    private final HttpServer.Limits limits;
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

    ConnectionGuard(
            HttpServer.Limits limits,
            AtomicInteger open,
            IdleConnections<ConnectionGuard> idle,
            WriterMetrics metrics,
            RequestDecoder decoder) {
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
        return idle.takeLongestIdle()
                .map(longest -> {
                    longest.evict();
                    return true;
                })
                .orElse(false);
    }

    private void evict() {
        metrics.httpConnectionsClosed.labelValues(EVICTED).inc();
        log.debug(
                "HTTP connection from {}: idle at the connection cap; closing it to make room",
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
            log.debug(
                    "HTTP connection from {}: no complete request within {}; closing",
                    ctx.channel().remoteAddress(),
                    limits.requestTimeout());
            ctx.writeAndFlush(Unpooled.wrappedBuffer(rawResponse(
                            "408 Request Timeout",
                            "No complete request " + "within "
                                    + limits.requestTimeout().toMillis() + " ms\n")))
                    .addListener(ChannelFutureListener.CLOSE);
        } else {
            if (reason.equals(WRITE_TIMEOUT)) {
                log.debug(
                        "HTTP connection from {}: response not taken within {}; closing",
                        ctx.channel().remoteAddress(),
                        limits.writeTimeout());
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
                        + body.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] out = java.util.Arrays.copyOf(head, head.length + body.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (cause instanceof io.netty.handler.timeout.WriteTimeoutException) {
            metrics.httpConnectionsClosed.labelValues(WRITE_TIMEOUT).inc();
            log.debug(
                    "HTTP connection from {}: response not taken within {}; closing",
                    ctx.channel().remoteAddress(),
                    limits.writeTimeout());
            ctx.close();
            return;
        }
        super.exceptionCaught(ctx, cause);
    }
}
