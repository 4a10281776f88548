package io.sharedlookup.writer.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.sharedlookup.writer.WriterMetrics;

/** Answers a body over the limit with 413 and closes, whatever the request says about keep-alive. */
final class OversizedBodyAggregator extends HttpObjectAggregator {
    private final WriterMetrics metrics;

    OversizedBodyAggregator(int maxBodyBytes, WriterMetrics metrics) {
        super(maxBodyBytes);
        this.metrics = metrics;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        metrics.httpConnectionsClosed.labelValues(ConnectionGuard.OVERSIZED).inc();
        metrics.httpRequests.labelValues("other", "413").inc();
        ResponseWriting.closeWith(
                ctx, oversized, HttpApi.Response.text(413, "Request body too large: every endpoint is a GET"));
    }
}
