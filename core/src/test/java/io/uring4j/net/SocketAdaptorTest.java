package io.uring4j.net;

import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code socket()} adaptors against the JDK's, same code for both: options as Netty's NIO transport and
 * Jetty set them through {@code javaChannel().socket()}, addresses, streams in blocking mode, SO_TIMEOUT and timed
 * connects, close.
 */
@BothEngines
class SocketAdaptorTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static SelectorProvider provider(String impl) {
        return impl.equals("jdk") ? SelectorProvider.provider() : new UringSelectorProvider();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void optionsAndAddressesGoThroughTheChannel(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel();
             SocketChannel c = provider(impl).openSocketChannel()) {
            ServerSocket ss = server.socket();
            assertThat(server.socket()).isSameAs(ss);
            assertThat(ss.isBound()).isFalse();
            assertThat(ss.getLocalPort()).isEqualTo(-1);
            assertThat(ss).hasToString("ServerSocket[unbound]");
            ss.setReuseAddress(true);
            assertThat(ss.getReuseAddress()).isTrue();
            ss.setReceiveBufferSize(65536);
            assertThat(ss.getReceiveBufferSize()).isPositive();
            assertThatThrownBy(() -> ss.setReceiveBufferSize(0)).isInstanceOf(IllegalArgumentException.class);
            ss.bind(LOOPBACK, 10);
            assertThat(ss.isBound()).isTrue();
            assertThat(ss.getLocalPort()).isEqualTo(((InetSocketAddress) server.getLocalAddress()).getPort());
            assertThat(ss.getInetAddress()).isEqualTo(InetAddress.getLoopbackAddress());
            assertThat(ss.getChannel()).isSameAs(server);

            Socket s = c.socket();
            assertThat(s.isConnected()).isFalse();
            assertThat(s.getPort()).isZero();
            assertThat(s.getInetAddress()).isNull();
            assertThat(s).hasToString("Socket[unconnected]");
            s.setTcpNoDelay(true);
            assertThat(s.getTcpNoDelay()).isTrue();
            s.setKeepAlive(true);
            assertThat(s.getKeepAlive()).isTrue();
            s.setSoLinger(true, 5);
            assertThat(s.getSoLinger()).isEqualTo(5);
            s.setSoLinger(false, 0);
            assertThat(s.getSoLinger()).isEqualTo(-1);
            s.setSendBufferSize(32768);
            assertThat(s.getSendBufferSize()).isPositive();
            assertThatThrownBy(() -> s.setSendBufferSize(0)).isInstanceOf(IllegalArgumentException.class);
            s.setSoTimeout(0);
            assertThat(s.getSoTimeout()).isZero();
            s.connect(ss.getLocalSocketAddress());
            assertThat(s.isConnected()).isTrue();
            assertThat(s.isBound()).isTrue();
            assertThat(s.getPort()).isEqualTo(ss.getLocalPort());
            assertThat(s.getLocalPort()).isEqualTo(((InetSocketAddress) c.getLocalAddress()).getPort());
            assertThat(s.getRemoteSocketAddress()).isEqualTo(c.getRemoteAddress());
            assertThat(s.toString()).startsWith("Socket[addr=");
            assertThatThrownBy(() -> s.connect(ss.getLocalSocketAddress())).isInstanceOf(SocketException.class)
                    .hasMessage("Already connected");
            try (Socket accepted = ss.accept()) {
                assertThat(accepted.getChannel()).isNotNull();
                assertThat(accepted.getRemoteSocketAddress()).isEqualTo(s.getLocalSocketAddress());
            }
            c.close();
            assertThat(s.isClosed()).isTrue();
            assertThatThrownBy(() -> s.setTcpNoDelay(true)).isInstanceOf(SocketException.class)
                    .hasMessage("Socket is closed");
            assertThatThrownBy(() -> s.setSoTimeout(1)).isInstanceOf(SocketException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void streamsWorkInBlockingModeOnly(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel().bind(LOOPBACK);
             SocketChannel c = provider(impl).openSocketChannel()) {
            Socket s = c.socket();
            assertThatThrownBy(s::getInputStream).isInstanceOf(SocketException.class)
                    .hasMessage("Socket is not connected");
            c.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                OutputStream out = s.getOutputStream();
                out.write("ping".getBytes());
                out.write('!');
                InputStream in = accepted.socket().getInputStream();
                assertThat(in.readNBytes(5)).isEqualTo("ping!".getBytes());
                accepted.socket().getOutputStream().write(42);
                assertThat(s.getInputStream().read()).isEqualTo(42);
                s.shutdownOutput();
                assertThat(s.isOutputShutdown()).isTrue();
                assertThat(in.read()).isEqualTo(-1);
                assertThatThrownBy(s::getOutputStream).isInstanceOf(SocketException.class)
                        .hasMessage("Socket output is shutdown");
                InputStream stream = s.getInputStream();
                c.configureBlocking(false);
                assertThatThrownBy(stream::read).isInstanceOf(IllegalBlockingModeException.class);
                s.close();
                assertThat(c.isOpen()).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aNonBlockingServerAdaptorAcceptsWhatIsWaitingOrRefuses(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel().bind(LOOPBACK)) {
            server.configureBlocking(false);
            assertThatThrownBy(() -> server.socket().accept()).isInstanceOf(IllegalBlockingModeException.class);
            server.close();
            assertThat(server.socket().isClosed()).isTrue();
            assertThatThrownBy(() -> server.socket().setSoTimeout(1)).isInstanceOf(SocketException.class)
                    .hasMessage("Socket is closed");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void soTimeoutBoundsAReadWhichLeavesTheSocketUsable(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel().bind(LOOPBACK);
             SocketChannel c = provider(impl).openSocketChannel()) {
            c.connect(server.getLocalAddress());
            SocketChannel accepted = server.accept();
            Socket s = c.socket();
            s.setSoTimeout(50);
            InputStream in = s.getInputStream();
            byte[] into = new byte[8];
            assertThatThrownBy(() -> in.read(into)).isInstanceOf(SocketTimeoutException.class)
                    .hasMessage("Read timed out");
            assertThat(c.isOpen()).isTrue();
            accepted.write(ByteBuffer.wrap("late".getBytes()));
            assertThat(in.readNBytes(4)).isEqualTo("late".getBytes());
            assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
            accepted.write(ByteBuffer.wrap("!".getBytes()));
            s.setSoTimeout(0);
            assertThat(in.read()).isEqualTo('!');
            accepted.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void soTimeoutBoundsAnAcceptWhichLeavesTheServerOpen(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel().bind(LOOPBACK)) {
            ServerSocket ss = server.socket();
            ss.setSoTimeout(50);
            assertThatThrownBy(ss::accept).isInstanceOf(SocketTimeoutException.class).hasMessage("Accept timed out");
            assertThat(server.isOpen()).isTrue();
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress()); Socket accepted = ss.accept()) {
                assertThat(accepted.getRemoteSocketAddress()).isEqualTo(c.getLocalAddress());
            }
        }
    }

    /** A server that accepts nothing, its backlog full: a SYN to it is dropped, so a connect to it waits. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aTimedConnectThatTimesOutClosesTheChannel(String impl) throws Exception {
        List<Socket> queued = new ArrayList<>();
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(LOOPBACK, 1);
            boolean full = false;
            while (!full && queued.size() < 64) {
                Socket filler = new Socket();
                queued.add(filler);
                try {
                    filler.connect(server.getLocalAddress(), 100);
                } catch (SocketTimeoutException backlogFull) {
                    full = true;
                }
            }
            assertThat(full).as("a connect left waiting by a full backlog").isTrue();
            SocketChannel c = provider(impl).openSocketChannel();
            Socket s = c.socket();
            assertThatThrownBy(() -> s.connect(server.getLocalAddress(), 100))
                    .isInstanceOf(SocketTimeoutException.class).hasMessage("Connect timed out");
            assertThat(c.isOpen()).isFalse();
            assertThat(s.isClosed()).isTrue();
        } finally {
            for (Socket filler : queued) {
                filler.close();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void anInterruptEndsATimedReadAndClosesTheChannel(String impl) throws Exception {
        try (ServerSocketChannel server = provider(impl).openServerSocketChannel().bind(LOOPBACK);
             SocketChannel c = provider(impl).openSocketChannel()) {
            c.connect(server.getLocalAddress());
            try (SocketChannel accepted = server.accept()) {
                c.socket().setSoTimeout(60_000);
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread reader = Thread.ofVirtual().start(() -> {
                    try {
                        failure.complete(new AssertionError("read " + c.socket().getInputStream().read()));
                    } catch (Throwable e) {
                        failure.complete(e);
                    }
                });
                awaitCondition(() -> reader.getState() == Thread.State.WAITING
                        || reader.getState() == Thread.State.TIMED_WAITING);
                reader.interrupt();
                assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
                assertThat(c.isOpen()).isFalse();
                assertThat(accepted.isOpen()).isTrue();
            }
        }
    }
}
