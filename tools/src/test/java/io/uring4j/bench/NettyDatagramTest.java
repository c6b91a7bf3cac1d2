package io.uring4j.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.uring4j.net.UringSelectorProvider;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Netty's NIO datagram transport, unmodified, on uring4j's selector provider (what the flag gives it): it sets its
 * options and asks whether it is bound through the channel's {@code socket()} adaptor, then echoes datagrams.
 */
class NettyDatagramTest {
    @Test
    void nettysNioDatagramTransportEchoesOnTheSelectorProvider() throws Exception {
        UringSelectorProvider provider = new UringSelectorProvider();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory(provider));
        try {
            Channel echo = new Bootstrap().group(group)
                    .channelFactory(() -> new NioDatagramChannel(provider))
                    .option(ChannelOption.SO_BROADCAST, true)
                    .option(ChannelOption.SO_RCVBUF, 1 << 16)
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                            ctx.writeAndFlush(new DatagramPacket(p.content().retain(), p.sender()));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            assertThat(echo.isActive()).as("bound, as its socket() adaptor says").isTrue();
            assertThat(echo.config().getOption(ChannelOption.SO_RCVBUF)).isGreaterThanOrEqualTo(1 << 16);
            assertThat(echo.config().getOption(ChannelOption.SO_BROADCAST)).isTrue();
            try (DatagramChannel client = provider.openDatagramChannel()) {
                for (int i = 0; i < 100; i++) {
                    byte[] message = ("ping " + i).getBytes(StandardCharsets.US_ASCII);
                    client.send(ByteBuffer.wrap(message), echo.localAddress());
                    ByteBuffer back = ByteBuffer.allocate(64);
                    assertThat(client.receive(back)).isEqualTo(echo.localAddress());
                    assertThat(new String(back.array(), 0, back.position(), StandardCharsets.US_ASCII))
                            .isEqualTo("ping " + i);
                }
            }
            echo.close().sync();
        } finally {
            group.shutdownGracefully().sync();
        }
    }
}
