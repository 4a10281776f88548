package io.sharedlookup.writer.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.stream.ChunkedStream;
import java.io.ByteArrayInputStream;

/**
 * Turns an {@link HttpApi.Response} into what goes on the wire: GET's headers and no body for HEAD, a large body in
 * slices of {@link HttpServer#SLICE} bytes that the chunked writer hands over only while the connection is under its
 * water mark, and the connection kept alive or closed as the request asked.
 */
final class ResponseWriting {
    private ResponseWriting() {}

    /**
     * Answers {@code request} with {@code r}; when the client keeps the connection alive, tells {@code guard} once
     * the response is written, else closes.
     */
    static void send(ChannelHandlerContext ctx, FullHttpRequest request, HttpApi.Response r, ConnectionGuard guard) {
        // A HEAD response has GET's headers, Content-Length included, and no body.
        boolean head = request.method().equals(HttpMethod.HEAD);
        boolean sliced = !head && r.body().length > HttpServer.SLICE;
        HttpResponse response = sliced
                ? new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()))
                : new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1,
                        HttpResponseStatus.valueOf(r.status()),
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
        ChannelFuture written;
        if (sliced) {
            // The chunked writer takes a slice only while the channel is writable (under the water mark).
            ctx.write(response);
            written = ctx.writeAndFlush(
                    new HttpChunkedInput(new ChunkedStream(new ByteArrayInputStream(r.body()), HttpServer.SLICE)));
        } else {
            written = ctx.writeAndFlush(response);
        }
        if (keepAlive) {
            written.addListener(f -> guard.responseSent());
        } else {
            written.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Answers {@code request} with {@code r} and closes; a response to HEAD gets GET's headers and no body. */
    static void closeWith(ChannelHandlerContext ctx, HttpMessage request, HttpApi.Response r) {
        boolean head = request instanceof HttpRequest req && req.method().equals(HttpMethod.HEAD);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(r.status()),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(r.body()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
