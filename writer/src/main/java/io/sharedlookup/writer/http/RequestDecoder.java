package io.sharedlookup.writer.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's request decoder, which also says whether it holds part of a request: bytes it has not decoded yet (a
 * partial request line), or a request it has begun and not finished (some headers, or a head and part of its
 * body). The guard asks after each response: the first bytes of a pipelined request may have been read together
 * with the last one, and then no new read would tell it a request is arriving. Used with a plain
 * {@link HttpResponseEncoder} instead of {@code HttpServerCodec}, whose decoder cannot be asked: what the codec
 * adds (leaving out the body of a response to HEAD) is done in {@link ResponseWriting}, which never gives a
 * response to HEAD a body.
 */
final class RequestDecoder extends HttpRequestDecoder {
    private boolean midRequest;

    RequestDecoder(HttpServer.Limits limits) {
        super(new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxInitialLine())
                .setMaxHeaderSize(limits.maxHeaderBytes())
                .setMaxChunkSize(8192));
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
