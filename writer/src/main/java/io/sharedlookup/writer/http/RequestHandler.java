package io.sharedlookup.writer.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.sharedlookup.writer.WriterMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler in the pipeline: answers each whole request through {@link HttpApi}, a request the decoder
 * refused (too long, malformed) with its 4xx and a close, and counts each in the request metrics.
 */
final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(RequestHandler.class);
    private final HttpApi api;
    private final WriterMetrics metrics;
    private final ConnectionGuard guard;

    RequestHandler(HttpApi api, WriterMetrics metrics, ConnectionGuard guard) {
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
                metrics.httpConnectionsClosed
                        .labelValues(ConnectionGuard.OVERSIZED)
                        .inc();
            }
            metrics.httpRequests
                    .labelValues("other", Integer.toString(r.status()))
                    .inc();
            ResponseWriting.closeWith(ctx, request, r);
            return;
        }
        HttpApi.Response r;
        try {
            r = api.handle(method, uri);
        } catch (RuntimeException e) {
            log.warn("HTTP {} {} failed", method, uri, e);
            r = HttpApi.Response.text(500, "Internal error: " + e);
        }
        String endpoint = HttpApi.endpoint(uri);
        metrics.httpRequests.labelValues(endpoint, Integer.toString(r.status())).inc();
        metrics.httpLatency.labelValues(endpoint).observe((System.nanoTime() - start) / 1e9);
        ResponseWriting.send(ctx, request, r, guard);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("HTTP connection error", cause);
        ctx.close();
    }
}
