package io.sharedlookup.writer;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Netty transport for {@link HttpApi}: two small event-loop threads, keep-alive, bodies ignored (all GET). */
final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);
    private final EventLoopGroup boss = new NioEventLoopGroup(1);
    private final EventLoopGroup workers = new NioEventLoopGroup(1);
    private final Channel channel;

    HttpServer(String host, int port, HttpApi api, WriterMetrics metrics) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 * 1024),
                                new Handler(api, metrics));
                    }
                });
        try {
            this.channel = b.bind(host, port).sync().channel();
        } catch (RuntimeException | InterruptedException e) {
            shutdownGroups();
            throw e;
        }
        log.info("HTTP on http://{}:{} (/health /ready /namespaces /lookup/{namespace}/{key} /metrics)", host,
                port());
    }

    int port() {
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

    private static final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final HttpApi api;
        private final WriterMetrics metrics;

        Handler(HttpApi api, WriterMetrics metrics) {
            this.api = api;
            this.metrics = metrics;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            long start = System.nanoTime();
            String method = request.method().name();
            String uri = request.uri();
            HttpApi.Response r;
            if (!request.decoderResult().isSuccess()) {
                r = HttpApi.Response.text(400, "Malformed HTTP request");
            } else {
                try {
                    r = api.handle(method, uri);
                } catch (RuntimeException e) {
                    log.warn("HTTP {} {} failed", method, uri, e);
                    r = HttpApi.Response.text(500, "Internal error: " + e);
                }
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(r.status()), Unpooled.wrappedBuffer(r.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.body().length);
            if (r.status() == 405) {
                response.headers().set(HttpHeaderNames.ALLOW, "GET");
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                HttpUtil.setKeepAlive(response, true);
            }
            String endpoint = HttpApi.endpoint(uri);
            metrics.httpRequests.labelValues(endpoint, Integer.toString(r.status())).inc();
            metrics.httpLatency.labelValues(endpoint).observe((System.nanoTime() - start) / 1e9);
            if (keepAlive) {
                ctx.writeAndFlush(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            log.debug("HTTP connection error", cause);
            ctx.close();
        }
    }
}
