package io.uring4j.net;

import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The channels' non-blocking mode against the JDK's, same code for both: what each call returns when it cannot wait. */
@BothEngines
class NonBlockingChannelTest {
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private static SelectorProvider provider(String impl) {
        return impl.equals("jdk") ? SelectorProvider.provider() : new UringSelectorProvider();
    }

    /** [blocking client, non-blocking accepted]. */
    private static SocketChannel[] pair(SelectorProvider provider, ServerSocketChannel server) throws IOException {
        SocketChannel c = provider.openSocketChannel();
        c.connect(server.getLocalAddress());
        SocketChannel s = server.accept();
        s.configureBlocking(false);
        return new SocketChannel[] {c, s};
    }

    /** Waits with a selector until {@code channel} is ready for {@code ops}. */
    private static void await(Selector selector, SocketChannel channel, int ops) throws IOException {
        SelectionKey key = channel.keyFor(selector) == null ? channel.register(selector, ops) : channel.keyFor(selector);
        key.interestOps(ops);
        selector.selectedKeys().clear();
        assertThat(selector.select(10_000)).as("ready in time").isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void readsReturnZeroWhenNothingIsThereAndMinusOneAtTheEnd(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK);
             Selector selector = provider.openSelector()) {
            SocketChannel[] p = pair(provider, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                assertThat(s.read(ByteBuffer.allocate(10))).isZero();
                assertThat(s.read(ByteBuffer.allocateDirect(10))).isZero();
                assertThat(s.read(new ByteBuffer[] {ByteBuffer.allocate(2), ByteBuffer.allocate(2)})).isZero();
                c.write(ByteBuffer.wrap("abcdef".getBytes()));
                await(selector, s, SelectionKey.OP_READ);
                ByteBuffer[] two = {ByteBuffer.allocate(2), ByteBuffer.allocate(10)};
                assertThat(s.read(two)).isEqualTo(6);
                assertThat(new String(two[1].array(), 0, 4)).isEqualTo("cdef");
                c.shutdownOutput();
                await(selector, s, SelectionKey.OP_READ);
                assertThat(s.read(ByteBuffer.allocate(10))).isEqualTo(-1);
                assertThat(s.read(ByteBuffer.allocate(10))).isEqualTo(-1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void writesTakeWhatFitsAndThenNothing(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK)) {
            SocketChannel[] p = pair(provider, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                s.setOption(StandardSocketOptions.SO_SNDBUF, 8192);
                ByteBuffer big = ByteBuffer.allocate(8 << 20);
                int first = s.write(big);
                assertThat(first).isPositive().isLessThan(8 << 20);
                assertThat(big.position()).isEqualTo(first);
                int n;
                while ((n = s.write(big)) > 0) {
                    assertThat(n).isPositive();
                }
                assertThat(s.write(ByteBuffer.allocateDirect(100))).isZero();
                assertThat(s.write(new ByteBuffer[] {ByteBuffer.allocate(10), ByteBuffer.allocate(10)})).isZero();
                assertThat(s.write(ByteBuffer.allocate(0))).isZero();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void switchingToBlockingModeWaitsAgain(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK)) {
            SocketChannel[] p = pair(provider, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                assertThat(s.read(ByteBuffer.allocate(4))).isZero();
                s.configureBlocking(true);
                CompletableFuture<Void> later = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(50);
                        c.write(ByteBuffer.wrap("late".getBytes()));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                assertThat(s.read(ByteBuffer.allocate(4))).isEqualTo(4);
                later.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aPendingConnectIsFinishedBlockingOrNot(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK);
             SocketChannel c = provider.openSocketChannel()) {
            assertThatThrownBy(c::finishConnect).isInstanceOf(NoConnectionPendingException.class);
            c.configureBlocking(false);
            if (!c.connect(server.getLocalAddress())) {
                assertThatThrownBy(() -> c.connect(server.getLocalAddress())).isInstanceOf(ConnectionPendingException.class);
                c.configureBlocking(true);
                assertThat(c.finishConnect()).as("blocking mode waits for the connect").isTrue();
            }
            assertThat(c.isConnected()).isTrue();
            try (SocketChannel accepted = server.accept()) {
                assertThat(accepted.getRemoteAddress()).isEqualTo(c.getLocalAddress());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aWriteAfterShutdownOutputFailsAsAsynchronousClose(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK)) {
            SocketChannel[] p = pair(provider, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                s.shutdownOutput();
                assertThatThrownBy(() -> s.write(ByteBuffer.allocate(1))).isExactlyInstanceOf(AsynchronousCloseException.class);
                assertThat(s.isOpen()).isTrue();
                assertThat(c.read(ByteBuffer.allocate(1))).isEqualTo(-1);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aResetIsReportedByEveryReadFromThenOn(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK);
             Selector selector = provider.openSelector()) {
            SocketChannel[] p = pair(provider, server);
            try (SocketChannel s = p[1]) {
                p[0].setOption(StandardSocketOptions.SO_LINGER, 0);
                p[0].close();
                await(selector, s, SelectionKey.OP_READ);
                assertThatThrownBy(() -> s.read(ByteBuffer.allocate(1))).isInstanceOf(SocketException.class)
                        .hasMessage("Connection reset");
                assertThatThrownBy(() -> s.read(ByteBuffer.allocate(1))).isInstanceOf(SocketException.class)
                        .hasMessage("Connection reset");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aNonBlockingAcceptGivesNullOrABlockingChannel(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        try (ServerSocketChannel server = provider.openServerSocketChannel().bind(LOOPBACK);
             Selector selector = provider.openSelector();
             SocketChannel c = provider.openSocketChannel()) {
            server.configureBlocking(false);
            assertThat(server.accept()).isNull();
            c.connect(server.getLocalAddress());
            server.register(selector, SelectionKey.OP_ACCEPT);
            assertThat(selector.select(10_000)).isEqualTo(1);
            try (SocketChannel accepted = server.accept()) {
                assertThat(accepted.isBlocking()).isTrue();
                assertThat(accepted.provider()).isSameAs(server.provider());
            }
        }
    }
}
