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
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.uring4j.net.UringSelectorProvider;
import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Netty's NIO datagram transport, unmodified, on uring4j's selector provider (what the flag gives it): it sets its
 * options and asks whether it is bound through the channel's {@code socket()} adaptor, then echoes datagrams; and it
 * joins a multicast group.
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

    /**
     * Netty's multicast on the provider: it joins a group through the channel's {@code join} and sets
     * IP_MULTICAST_IF through its options. The datagram goes out with TTL 0 and comes back through
     * IP_MULTICAST_LOOP, so nothing leaves the machine; skipped where no interface is up and multicast-capable
     * with an IPv4 address.
     */
    @Test
    void nettysNioDatagramTransportJoinsAGroupOnTheSelectorProvider() throws Exception {
        NetworkInterface interf = NetworkInterface.networkInterfaces().filter(ni -> {
            try {
                return ni.isUp() && ni.supportsMulticast()
                        && ni.inetAddresses().anyMatch(Inet4Address.class::isInstance);
            } catch (SocketException e) {
                return false;
            }
        }).findFirst().orElse(null);
        assumeTrue(interf != null, "no interface here is up, multicast-capable and has an IPv4 address");
        InetAddress group = InetAddress.getByName("239.255.77.3");
        UringSelectorProvider provider = new UringSelectorProvider();
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory(provider));
        CompletableFuture<String> heard = new CompletableFuture<>();
        try {
            NioDatagramChannel listener = (NioDatagramChannel) new Bootstrap().group(loops)
                    .channelFactory(() -> new NioDatagramChannel(provider, SocketProtocolFamily.INET))
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .option(ChannelOption.IP_MULTICAST_IF, interf)
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket p) {
                            heard.complete(p.content().toString(StandardCharsets.US_ASCII));
                        }
                    })
                    .bind(new InetSocketAddress(0)).sync().channel();
            assertThat(listener.config().getOption(ChannelOption.IP_MULTICAST_IF)).isEqualTo(interf);
            listener.joinGroup(new InetSocketAddress(group, 0), interf).sync();
            try (DatagramChannel sender = provider.openDatagramChannel(StandardProtocolFamily.INET)) {
                sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, interf);
                sender.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 0);
                sender.send(ByteBuffer.wrap("to the group".getBytes(StandardCharsets.US_ASCII)),
                        new InetSocketAddress(group, listener.localAddress().getPort()));
            }
            assertThat(heard.get(10, TimeUnit.SECONDS)).isEqualTo("to the group");
            listener.leaveGroup(new InetSocketAddress(group, 0), interf).sync();
            listener.close().sync();
        } finally {
            loops.shutdownGracefully().sync();
        }
    }
}
