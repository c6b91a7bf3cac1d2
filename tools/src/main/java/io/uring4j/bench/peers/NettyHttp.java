package io.uring4j.bench.peers;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.util.ByteProcessor;
import io.netty.util.concurrent.FastThreadLocal;
import io.uring4j.serve.HttpResponse;
import io.uring4j.serve.RequestSplitter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;

/**
 * The Netty peers: one pipeline on any of three transports. The handler is written the fast way — it counts
 * requests with the same splitter as uring4j's server (no HTTP object model), writes a retained duplicate of
 * a per-loop direct response buffer per request and flushes once per read batch (channelReadComplete), so
 * pipelined requests cost one writev. Accepting and serving share one group of {@code threads} event loops.
 */
final class NettyHttp implements Peer.Server {
    enum Transport { IO_URING, EPOLL, NIO }

    private final EventLoopGroup group;
    private final Channel channel;

    private NettyHttp(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    static NettyHttp start(Transport transport, InetSocketAddress address, int threads) throws IOException {
        return start(transport, address, threads, pipeline -> pipeline.addLast(new Handler()));
    }

    /** A server on {@code transport} whose connections' pipelines {@code handlers} fills. */
    static NettyHttp start(Transport transport, InetSocketAddress address, int threads,
                           Consumer<ChannelPipeline> handlers) throws IOException {
        IoHandlerFactory factory;
        Class<? extends ServerChannel> channelClass;
        switch (transport) {
            case IO_URING -> {
                IoUring.ensureAvailability();
                factory = IoUringIoHandler.newFactory();
                channelClass = IoUringServerSocketChannel.class;
            }
            case EPOLL -> {
                Epoll.ensureAvailability();
                factory = EpollIoHandler.newFactory();
                channelClass = EpollServerSocketChannel.class;
            }
            default -> {
                factory = NioIoHandler.newFactory();
                channelClass = NioServerSocketChannel.class;
            }
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, factory);
        try {
            Channel channel = new ServerBootstrap().group(group).channel(channelClass)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            handlers.accept(ch.pipeline());
                        }
                    })
                    .bind(address).sync().channel();
            return new NettyHttp(group, channel);
        } catch (Exception e) {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS);
            throw e instanceof IOException io ? io : new IOException("netty " + transport + " bind " + address, e);
        }
    }

    @Override
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The current response bytes in a direct buffer, one per event loop: refreshed once a second, lock-free. */
    private static final class Response {
        private static final FastThreadLocal<Response> PER_LOOP = new FastThreadLocal<>() {
            @Override
            protected Response initialValue() {
                return new Response();
            }
        };

        private byte[] source;
        private ByteBuf buffer;

        /** A retained duplicate: the write releases it; the old buffer lives on until its last write ends. */
        ByteBuf next(ChannelHandlerContext ctx) {
            byte[] bytes = HttpResponse.bytes();
            if (bytes != source) {
                if (buffer != null) {
                    buffer.release();
                }
                buffer = ctx.alloc().directBuffer(bytes.length).writeBytes(bytes);
                source = bytes;
            }
            return buffer.retainedDuplicate();
        }
    }

    /** One per connection: the splitter state carries a partial request across reads. */
    private static final class Handler extends ChannelInboundHandlerAdapter implements ByteProcessor {
        private int matched;
        private int requests;
        private Response response;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            response = Response.PER_LOOP.get();            // the channel's loop thread, for the channel's life
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                in.forEachByte(this);
            } finally {
                in.release();
            }
            for (; requests > 0; requests--) {
                ctx.write(response.next(ctx), ctx.voidPromise());
            }
        }

        @Override
        public boolean process(byte b) {
            int m = RequestSplitter.advance(matched, b);
            if (m == RequestSplitter.COMPLETE) {
                requests++;
                m = 0;
            }
            matched = m;
            return true;
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
