package io.uring4j.bench.peers;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Date;

/**
 * Netty as its users write an HTTP server: the NIO transport (java.nio's {@code Selector} and channels, from
 * {@code SelectorProvider.provider()}), Netty's own {@code HttpServerCodec} parsing requests, and a handler
 * answering each with a {@code FullHttpResponse} — Netty's HTTP object model end to end, where the
 * {@code netty-nio} peer counts requests with uring4j's splitter. Responses are flushed once per read batch.
 */
final class NettyCodecHttp {
    private NettyCodecHttp() {
    }

    static NettyHttp start(InetSocketAddress address, int threads) throws IOException {
        return NettyHttp.start(NettyHttp.Transport.NIO, address, threads,
                pipeline -> pipeline.addLast(new HttpServerCodec(), new Hello()));
    }

    /** The Date header's value, formatted once a second (Netty leaves Date to the application). */
    private record DateHeader(long second, AsciiString value) {
        private static volatile DateHeader current = new DateHeader(-1, AsciiString.EMPTY_STRING);

        static AsciiString now() {
            long second = System.currentTimeMillis() / 1000;
            DateHeader d = current;
            if (d.second != second) {
                d = new DateHeader(second, new AsciiString(DateFormatter.format(new Date(second * 1000))));
                current = d;
            }
            return d.value;
        }
    }

    private static final class Hello extends ChannelInboundHandlerAdapter {
        private static final ByteBuf BODY = Unpooled.unreleasableBuffer(
                Unpooled.directBuffer().writeBytes("Hello, World!".getBytes(StandardCharsets.US_ASCII))).asReadOnly();
        // Names spelled as serve http spells them (HttpHeaderNames' are lower case; HTTP does not mind, bytes do).
        private static final AsciiString SERVER = AsciiString.cached("Server");
        private static final AsciiString CONTENT_TYPE = AsciiString.cached("Content-Type");
        private static final AsciiString CONTENT_LENGTH = AsciiString.cached("Content-Length");
        private static final AsciiString DATE = AsciiString.cached("Date");
        private static final AsciiString URING4J = AsciiString.cached("uring4j");
        private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
        private static final AsciiString LENGTH = AsciiString.cached(Integer.toString(BODY.readableBytes()));

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest request) {
                    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                            BODY.duplicate());
                    response.headers().set(SERVER, URING4J).set(CONTENT_TYPE, TEXT_PLAIN).set(CONTENT_LENGTH, LENGTH)
                            .set(DATE, DateHeader.now());
                    if (HttpUtil.isKeepAlive(request)) {
                        ctx.write(response, ctx.voidPromise());
                    } else {
                        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
                    }
                }
            } finally {
                ReferenceCountUtil.release(msg);           // the request's head and its (empty) content
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();                                    // a reset peer: the connection simply ends
        }
    }
}
