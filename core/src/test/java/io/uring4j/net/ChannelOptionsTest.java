package io.uring4j.net;

import io.uring4j.testkit.BothEngines;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The channels' socket options against the JDK's, same code for both: each kind of channel offers the JDK's set
 * (but for the JDK's internal SO_OOBINLINE), and the extended ones — keep-alive timing, quick ACKs, IP_TOS,
 * don't-fragment, the NAPI id, a Unix-domain peer's credentials — are set, read back and refused as the JDK's
 * are.
 */
@BothEngines
class ChannelOptionsTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final SelectorProvider URING = new UringSelectorProvider();
    private static final AsynchronousChannelProvider URING_ASYNC = new UringAsynchronousChannelProvider();

    private static SelectorProvider provider(String impl) {
        return impl.equals("jdk") ? SelectorProvider.provider() : URING;
    }

    private static AsynchronousChannelProvider asyncProvider(String impl) {
        return impl.equals("jdk") ? AsynchronousChannelProvider.provider() : URING_ASYNC;
    }

    private static Set<String> names(NetworkChannel channel) throws Exception {
        try (channel) {
            Set<String> names = new TreeSet<>();
            channel.supportedOptions().forEach(o -> names.add(o.name()));
            return names;
        }
    }

    @Test
    void everyKindOfChannelOffersTheJdksOptions() throws Exception {
        for (String impl : new String[] {"jdk", "uring"}) {
            assertThat(ExtendedSocketOptions.TCP_KEEPIDLE).isIn(provider(impl).openSocketChannel().supportedOptions());
        }
        Set<String> tcp = names(SelectorProvider.provider().openSocketChannel());
        tcp.remove("SO_OOBINLINE");                 // the JDK's internal option, not a public SocketOption
        assertThat(names(URING.openSocketChannel())).isEqualTo(tcp);
        assertThat(names(URING.openServerSocketChannel()))
                .isEqualTo(names(SelectorProvider.provider().openServerSocketChannel()));
        assertThat(names(URING.openDatagramChannel()))
                .isEqualTo(names(SelectorProvider.provider().openDatagramChannel()));
        assertThat(names(URING.openDatagramChannel(StandardProtocolFamily.INET)))
                .isEqualTo(names(SelectorProvider.provider().openDatagramChannel(StandardProtocolFamily.INET)));
        assertThat(names(URING.openSocketChannel(StandardProtocolFamily.UNIX)))
                .isEqualTo(names(SelectorProvider.provider().openSocketChannel(StandardProtocolFamily.UNIX)));
        assertThat(names(URING.openServerSocketChannel(StandardProtocolFamily.UNIX)))
                .isEqualTo(names(SelectorProvider.provider().openServerSocketChannel(StandardProtocolFamily.UNIX)));
        assertThat(names(URING_ASYNC.openAsynchronousSocketChannel(null)))
                .isEqualTo(names(AsynchronousChannelProvider.provider().openAsynchronousSocketChannel(null)));
        assertThat(names(URING_ASYNC.openAsynchronousServerSocketChannel(null)))
                .isEqualTo(names(AsynchronousChannelProvider.provider().openAsynchronousServerSocketChannel(null)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void keepAliveTimingQuickAcksAndTosAreSetAndReadBack(String impl) throws Exception {
        try (SocketChannel c = provider(impl).openSocketChannel()) {
            c.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 30);
            c.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 10);
            c.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 4);
            c.setOption(ExtendedSocketOptions.TCP_QUICKACK, true);
            c.setOption(StandardSocketOptions.IP_TOS, 0x10);
            assertThat(c.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(30);
            assertThat(c.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(10);
            assertThat(c.getOption(ExtendedSocketOptions.TCP_KEEPCOUNT)).isEqualTo(4);
            assertThat(c.getOption(ExtendedSocketOptions.TCP_QUICKACK)).isTrue();
            assertThat(c.getOption(StandardSocketOptions.IP_TOS)).isEqualTo(0x10);
            assertThat(c.getOption(ExtendedSocketOptions.SO_INCOMING_NAPI_ID)).isNotNegative();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void badValuesAndReadOnlyOptionsAreRefusedAsTheJdksAre(String impl) throws Exception {
        SocketChannel c = provider(impl).openSocketChannel();
        try (c) {
            assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, -1))
                    .isExactlyInstanceOf(SocketException.class).hasMessage("Invalid argument");
            assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 300))
                    .isExactlyInstanceOf(SocketException.class).hasMessage("Invalid argument");
            assertThatThrownBy(() -> c.setOption(StandardSocketOptions.IP_TOS, 256))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("Invalid IP_TOS value");
            assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.SO_INCOMING_NAPI_ID, 1))
                    .isExactlyInstanceOf(SocketException.class)
                    .hasMessage("Attempt to set read only option SO_INCOMING_NAPI_ID");
            assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.SO_INCOMING_NAPI_ID, null))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> c.getOption(ExtendedSocketOptions.TCP_KEEPIDLE))
                .isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.SO_INCOMING_NAPI_ID, 1))
                .isInstanceOf(ClosedChannelException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aListenersKeepAliveTimingIsWhatItsAcceptedSocketsStartWith(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel()) {
            server.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 20);
            assertThat(server.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(20);
            server.bind(LOOPBACK);
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress());
                 SocketChannel accepted = server.accept()) {
                assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(20);
                assertThat(c.isConnected()).isTrue();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aDatagramChannelsDontFragmentIsSetAndReadBack(String impl) throws Exception {
        for (var family : new StandardProtocolFamily[] {StandardProtocolFamily.INET6, StandardProtocolFamily.INET}) {
            try (DatagramChannel c = provider(impl).openDatagramChannel(family)) {
                assertThat(c.getOption(ExtendedSocketOptions.IP_DONTFRAGMENT)).as(family.name()).isFalse();
                c.setOption(ExtendedSocketOptions.IP_DONTFRAGMENT, true);
                assertThat(c.getOption(ExtendedSocketOptions.IP_DONTFRAGMENT)).as(family.name()).isTrue();
                c.setOption(StandardSocketOptions.IP_TOS, 0x20);
                assertThat(c.getOption(StandardSocketOptions.IP_TOS)).as(family.name()).isEqualTo(0x20);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void theAsynchronousChannelsTakeTheExtendedOptions(String impl) throws Exception {
        try (AsynchronousServerSocketChannel server = asyncProvider(impl).openAsynchronousServerSocketChannel(null)) {
            server.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 7);
            assertThat(server.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(7);
            server.bind(LOOPBACK);
            try (AsynchronousSocketChannel c = asyncProvider(impl).openAsynchronousSocketChannel(null)) {
                c.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 9);
                c.connect(server.getLocalAddress()).get(10, TimeUnit.SECONDS);
                assertThat(c.getOption(ExtendedSocketOptions.TCP_KEEPIDLE)).isEqualTo(9);
                try (AsynchronousSocketChannel accepted = server.accept().get(10, TimeUnit.SECONDS)) {
                    assertThat(accepted.getOption(ExtendedSocketOptions.TCP_KEEPINTERVAL)).isEqualTo(7);
                }
                SocketOption<Integer> tos = StandardSocketOptions.IP_TOS;
                assertThatThrownBy(() -> c.setOption(tos, 7)).isInstanceOf(UnsupportedOperationException.class);
            }
        }
    }

    @Test
    void aUnixDomainPeersCredentialsAreTheJdksPrincipals() throws Exception {
        Path socket = Files.createTempDirectory("uring4j-peercred").resolve("s");
        try (ServerSocketChannel jdkServer = SelectorProvider.provider()
                .openServerSocketChannel(StandardProtocolFamily.UNIX).bind(UnixDomainSocketAddress.of(socket));
             SocketChannel jdkClient = SelectorProvider.provider().openSocketChannel(StandardProtocolFamily.UNIX);
             SocketChannel ours = URING.openSocketChannel(StandardProtocolFamily.UNIX)) {
            assertThatThrownBy(() -> ours.getOption(ExtendedSocketOptions.SO_PEERCRED))
                    .isExactlyInstanceOf(SocketException.class).hasMessage("Invalid argument");
            jdkClient.connect(jdkServer.getLocalAddress());
            ours.connect(jdkServer.getLocalAddress());
            try (SocketChannel first = jdkServer.accept(); SocketChannel second = jdkServer.accept()) {
                UnixDomainPrincipal expected = jdkClient.getOption(ExtendedSocketOptions.SO_PEERCRED);
                assertThat(ours.getOption(ExtendedSocketOptions.SO_PEERCRED)).isEqualTo(expected);
                assertThat(ours.getOption(ExtendedSocketOptions.SO_PEERCRED).user().getName())
                        .isEqualTo(expected.user().getName());
                assertThat(first.isConnected() && second.isConnected()).isTrue();
            }
            for (SocketChannel c : List.of(jdkClient, ours)) {
                UnixDomainPrincipal any = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
                assertThatThrownBy(() -> c.setOption(ExtendedSocketOptions.SO_PEERCRED, any))
                        .isExactlyInstanceOf(SocketException.class).hasMessageStartingWith("SO_PEERCRED cannot be set");
            }
        } finally {
            Files.deleteIfExists(socket);
            Files.delete(socket.getParent());
        }
    }
}
