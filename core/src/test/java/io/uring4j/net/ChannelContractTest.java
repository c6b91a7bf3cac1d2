package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The drop-in channels against the JDK's: every contract test runs on both (TCP, and Unix-domain where the case
 * applies), with the same expectations, so where ours differs from the JDK the difference shows as a failure of
 * exactly one of the pair.
 */
@BothEngines
class ChannelContractTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    @UringRuntime(loops = 2)
    private static Uring uring;

    private static SocketChannel client(String impl) throws IOException {
        return switch (impl) {
            case "jdk" -> SocketChannel.open();
            case "jdk-unix" -> SocketChannel.open(StandardProtocolFamily.UNIX);
            case "uring-unix" -> UringSocketChannel.open(uring, StandardProtocolFamily.UNIX);
            default -> UringSocketChannel.open(uring);
        };
    }

    private static ServerSocketChannel server(String impl) throws IOException {
        if (impl.endsWith("unix")) {
            ServerSocketChannel s = impl.startsWith("jdk") ? ServerSocketChannel.open(StandardProtocolFamily.UNIX)
                    : UringServerSocketChannel.open(uring, StandardProtocolFamily.UNIX);
            Path path = Files.createTempDirectory("uring4j-net").resolve("s");
            path.getParent().toFile().deleteOnExit();   // deleteOnExit goes last to first: the socket, then its directory
            path.toFile().deleteOnExit();
            return s.bind(UnixDomainSocketAddress.of(path));
        }
        return server(impl, ANY_PORT);
    }

    private static ServerSocketChannel server(String impl, InetSocketAddress local) throws IOException {
        ServerSocketChannel s = impl.equals("jdk") ? ServerSocketChannel.open() : UringServerSocketChannel.open(uring);
        return s.bind(local);
    }

    /** A connected pair: [client, accepted]. */
    private static SocketChannel[] pair(String impl, ServerSocketChannel server) throws Exception {
        SocketChannel c = client(impl);
        c.connect(server.getLocalAddress());
        return new SocketChannel[] {c, server.accept()};
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void readWriteHeapAndDirectBuffersAndEof(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                assertThat(c.isConnected()).isTrue();
                assertThat(s.getRemoteAddress()).isEqualTo(c.getLocalAddress());
                assertThat(c.getRemoteAddress()).isEqualTo(server.getLocalAddress());
                byte[] big = Clients.random(3, 300_000);
                ByteBuffer heap = ByteBuffer.wrap(big);
                Thread writer = Thread.ofVirtual().start(() -> {
                    try {
                        // The JDK's Unix channel returns short writes on virtual threads: loop, as callers must.
                        Clients.writeFully(c, heap);
                        ByteBuffer direct = ByteBuffer.allocateDirect(5).put("tail!".getBytes()).flip();
                        Clients.writeFully(c, direct);
                        c.shutdownOutput();
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                ByteBuffer in = ByteBuffer.allocate(big.length + 5);
                ByteBuffer directIn = ByteBuffer.allocateDirect(1000);
                int n;
                while ((n = (in.position() % 2 == 0 ? s.read(in) : readVia(s, directIn, in))) >= 0) {
                    assertThat(n).isNotNegative();
                    if (!in.hasRemaining()) {
                        break;
                    }
                }
                writer.join();
                assertThat(s.read(ByteBuffer.allocate(1))).as("end of stream").isEqualTo(-1);
                assertThat(java.util.Arrays.copyOf(in.array(), big.length)).isEqualTo(big);
                assertThat(new String(in.array(), big.length, 5)).isEqualTo("tail!");
                assertThatThrownBy(() -> c.write(ByteBuffer.wrap(new byte[1])))
                        .as("write after shutdownOutput").isExactlyInstanceOf(AsynchronousCloseException.class);
            }
        }
    }

    /**
     * Endpoints as the JDK reports them from its dual-stack sockets: an IPv4 address as an {@code Inet4Address}
     * (never IPv4-mapped), an IPv6 one without a scope of 0, and a server bound to 0.0.0.0 as the IPv6 wildcard
     * it really listens on. The strings are compared too: {@code ::1} and {@code ::1%0} are equal addresses.
     */
    @ParameterizedTest
    @CsvSource({"jdk, 127.0.0.1, 127.0.0.1, 127.0.0.1", "uring, 127.0.0.1, 127.0.0.1, 127.0.0.1",
            "jdk, ::1, ::1, ::1", "uring, ::1, ::1, ::1",
            "jdk, 0.0.0.0, ::, 127.0.0.1", "uring, 0.0.0.0, ::, 127.0.0.1",
            "jdk, ::, ::, ::1", "uring, ::, ::, ::1"})
    void endpointsAreReportedAsTheJdkReportsThem(String impl, String bindTo, String listening, String connectTo)
            throws Exception {
        try (ServerSocketChannel server = server(impl, new InetSocketAddress(bindTo, 0))) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            assertEndpoint(server.getLocalAddress(), listening, port);
            try (SocketChannel c = client(impl)) {
                c.connect(new InetSocketAddress(connectTo, port));
                try (SocketChannel s = server.accept()) {
                    int clientPort = ((InetSocketAddress) c.getLocalAddress()).getPort();
                    assertEndpoint(c.getLocalAddress(), connectTo, clientPort);
                    assertEndpoint(c.getRemoteAddress(), connectTo, port);
                    assertEndpoint(s.getLocalAddress(), connectTo, port);
                    assertEndpoint(s.getRemoteAddress(), connectTo, clientPort);
                }
            }
        }
    }

    /** As the JDK's, a channel of INET is an IPv4 socket: its wildcard is 0.0.0.0 and it takes no IPv6 address. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void anInetChannelIsIpv4Only(String impl) throws Exception {
        boolean jdk = impl.equals("jdk");
        StandardProtocolFamily inet = StandardProtocolFamily.INET;
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.ofLiteral("::1"), 0);
        try (ServerSocketChannel server = jdk ? ServerSocketChannel.open(inet)
                : UringServerSocketChannel.open(uring, inet);
             SocketChannel c = jdk ? SocketChannel.open(inet) : UringSocketChannel.open(uring, inet);
             ServerSocketChannel v6Server = server(impl, v6)) {
            server.bind(null);
            assertThat(((InetSocketAddress) server.getLocalAddress()).getAddress())
                    .isEqualTo(InetAddress.ofLiteral("0.0.0.0"));
            assertThatThrownBy(() -> c.bind(v6)).isInstanceOf(UnsupportedAddressTypeException.class);
            assertThatThrownBy(() -> c.connect(v6Server.getLocalAddress()))
                    .isInstanceOf(UnsupportedAddressTypeException.class);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            c.connect(new InetSocketAddress(InetAddress.ofLiteral("127.0.0.1"), port));
            try (SocketChannel accepted = server.accept()) {
                assertThat(accepted.getRemoteAddress()).isEqualTo(c.getLocalAddress());
            }
        }
    }

    /** As the JDK's: a connect to a wildcard address reaches the loopback address of its family. */
    @ParameterizedTest
    @CsvSource({"jdk, 127.0.0.1, 0.0.0.0", "uring, 127.0.0.1, 0.0.0.0", "jdk, ::1, ::", "uring, ::1, ::"})
    void aConnectToTheWildcardReachesLoopback(String impl, String loopback, String wildcard) throws Exception {
        try (ServerSocketChannel server = server(impl, new InetSocketAddress(loopback, 0)); SocketChannel c = client(impl)) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            c.connect(new InetSocketAddress(wildcard, port));
            server.accept().close();
            assertEndpoint(c.getRemoteAddress(), loopback, port);
        }
    }

    private static void assertEndpoint(SocketAddress actual, String host, int port) throws Exception {
        InetSocketAddress expected = new InetSocketAddress(InetAddress.getByName(host), port);
        assertThat(actual).isEqualTo(expected);
        assertThat(actual).hasToString(expected.toString());
        assertThat(((InetSocketAddress) actual).getAddress().getClass()).isEqualTo(expected.getAddress().getClass());
    }

    /**
     * The JDK's SocketChannelImpl ends a write that wrote nothing with AsynchronousCloseException once the output
     * is shut down, whatever the buffers (empty ones too) and the thread; the channel stays open.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void writeAfterShutdownOutputIsAsynchronousClose(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                c.shutdownOutput();
                c.shutdownOutput();                     // a second time is no error
                assertWriteIsAsynchronousClose(c);
                CompletableFuture<Void> onVirtual = CompletableFuture.runAsync(() -> assertWriteIsAsynchronousClose(c),
                        java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor());
                onVirtual.get(10, TimeUnit.SECONDS);
                assertThat(c.isOpen()).isTrue();
                assertThat(s.read(ByteBuffer.allocate(1))).as("the peer sees end of stream").isEqualTo(-1);
            }
        }
    }

    private static void assertWriteIsAsynchronousClose(SocketChannel c) {
        assertThatThrownBy(() -> c.write(ByteBuffer.wrap(new byte[10]))).isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(() -> c.write(ByteBuffer.allocateDirect(10))).isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(() -> c.write(ByteBuffer.allocate(0))).isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(() -> c.write(new ByteBuffer[] {ByteBuffer.allocate(0), ByteBuffer.allocate(3)}))
                .isExactlyInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(() -> c.write(new ByteBuffer[0])).isExactlyInstanceOf(AsynchronousCloseException.class);
    }

    /**
     * A write blocked on a full socket buffer when another thread shuts the output down: the JDK ends it with
     * AsynchronousCloseException too (or returns what it wrote; the caller's next write then throws).
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void shutdownOutputEndsABlockedWrite(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread.ofVirtual().start(() -> {
                    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
                    try {
                        while (true) {                  // the peer never reads: this blocks once the buffers fill
                            c.write(chunk.clear());
                        }
                    } catch (Throwable e) {
                        failure.complete(e);
                    }
                });
                Thread.sleep(200);                      // most likely blocked by now; if not, the next write throws
                c.shutdownOutput();
                assertThat(failure.get(10, TimeUnit.SECONDS)).isExactlyInstanceOf(AsynchronousCloseException.class);
                assertThat(c.isOpen()).isTrue();
                assertThat(s.isOpen()).isTrue();
            }
        }
    }

    private static int readVia(SocketChannel s, ByteBuffer direct, ByteBuffer into) throws IOException {
        direct.clear().limit(Math.min(direct.capacity(), into.remaining()));
        int n = s.read(direct);
        if (n > 0) {
            into.put(direct.flip());
        }
        return n;
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void connectionRefusedClosesTheChannel(String impl) throws Exception {
        int port;
        try (ServerSocketChannel s = server(impl)) {
            port = ((InetSocketAddress) s.getLocalAddress()).getPort();
        }
        SocketChannel c = client(impl);
        assertThatThrownBy(() -> c.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)))
                .isInstanceOf(ConnectException.class);
        assertThat(c.isOpen()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void closeFromAnotherThreadEndsABlockedRead(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                CompletableFuture<Throwable> failure = blockedRead(s);
                Thread.sleep(100);
                s.close();
                assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
                assertThatThrownBy(() -> s.read(ByteBuffer.allocate(1))).isInstanceOf(ClosedChannelException.class);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void interruptClosesTheChannel(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                CompletableFuture<Thread> reader = new CompletableFuture<>();
                CompletableFuture<Throwable> failure = new CompletableFuture<>();
                Thread t = Thread.ofVirtual().start(() -> {
                    try {
                        s.read(ByteBuffer.allocate(16));
                        failure.complete(null);
                    } catch (Throwable e) {
                        failure.complete(e);
                    }
                    reader.complete(Thread.currentThread());
                });
                Thread.sleep(100);
                t.interrupt();
                assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
                assertThat(s.isOpen()).isFalse();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring", "jdk-unix", "uring-unix"})
    void closeEndsABlockedAcceptAndAcceptAfterCloseIsClosedChannel(String impl) throws Exception {
        ServerSocketChannel server = server(impl);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                server.accept();
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        Thread.sleep(100);
        server.close();
        assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(AsynchronousCloseException.class);
        assertThatThrownBy(server::accept).isInstanceOf(ClosedChannelException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void peerResetIsConnectionReset(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                c.setOption(StandardSocketOptions.SO_LINGER, 0);
                c.close();
                assertThatThrownBy(() -> s.read(ByteBuffer.allocate(16)))
                        .isInstanceOf(SocketException.class).hasMessage("Connection reset");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void optionsAndUnconnectedUse(String impl) throws Exception {
        try (SocketChannel c = client(impl)) {
            assertThat(c.getLocalAddress()).isNull();
            assertThatThrownBy(() -> c.read(ByteBuffer.allocate(1))).isInstanceOf(NotYetConnectedException.class);
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            assertThat(c.getOption(StandardSocketOptions.TCP_NODELAY)).isTrue();
            c.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            assertThat(c.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
        }
        try (ServerSocketChannel s = server(impl)) {
            assertThat(s.getOption(StandardSocketOptions.SO_REUSEADDR)).isTrue();
        }
    }

    /** Once refused: channels on a caller's runtime switch modes both ways, and have adaptors (SelectorContract). */
    @Test
    void channelsOnACallersRuntimeSwitchModesAndHaveAdaptors() throws Exception {
        try (SocketChannel c = UringSocketChannel.open(uring); ServerSocketChannel s = UringServerSocketChannel.open(uring)) {
            c.configureBlocking(false);
            assertThat(c.isBlocking()).isFalse();
            c.configureBlocking(true);
            assertThat(c.isBlocking()).isTrue();
            s.configureBlocking(false);
            assertThat(s.isBlocking()).isFalse();
            assertThat(c.socket().getChannel()).isSameAs(c);
            assertThat(s.socket().getChannel()).isSameAs(s);
            assertThat(c.provider()).isInstanceOf(UringSelectorProvider.class);
        }
    }

    // ---- divergences SocketChannelDifferentialTest found (each was uring4j's, before its fix) ----------------------

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aClosedChannelIsNotConnected(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            p[0].close();
            p[1].close();
            assertThat(p[0].isConnected()).isFalse();
            assertThat(p[1].isConnected()).isFalse();
        }
    }

    /** As readv: what is there fills the buffers in order, not just the first with room. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aScatteringReadFillsEveryBuffer(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                byte[] sent = Clients.random(5, 100);
                c.write(ByteBuffer.wrap(sent));            // one segment: a read that wakes for it sees all of it
                ByteBuffer[] into = {ByteBuffer.allocate(30), ByteBuffer.allocate(0), ByteBuffer.allocateDirect(100)};
                assertThat(s.read(into)).isEqualTo(100);
                assertThat(into[0].position()).isEqualTo(30);
                assertThat(into[2].position()).isEqualTo(70);
                byte[] got = new byte[100];
                into[0].flip().get(got, 0, 30);
                into[2].flip().get(got, 30, 70);
                assertThat(got).isEqualTo(sent);
            }
        }
    }

    /** Refused before anything is read, whatever the room; the bytes stay for the next read. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aReadIntoAReadOnlyBufferIsRefused(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                c.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
                for (ByteBuffer readOnly : new ByteBuffer[] {ByteBuffer.allocate(8).asReadOnlyBuffer(),
                        ByteBuffer.allocate(0).asReadOnlyBuffer(), ByteBuffer.allocateDirect(8).asReadOnlyBuffer()}) {
                    assertThatThrownBy(() -> s.read(readOnly)).isExactlyInstanceOf(IllegalArgumentException.class)
                            .hasMessage("Read-only buffer");
                }
                assertThatThrownBy(() -> s.read(new ByteBuffer[] {ByteBuffer.allocate(8), ByteBuffer.allocate(0).asReadOnlyBuffer()}))
                        .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Read-only buffer");
                assertThat(s.read(ByteBuffer.allocate(8))).isEqualTo(3);
            }
        }
    }

    /** As the JDK's: a read or write of nothing is still a call between begin and end, which an interrupt ends. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void anInterruptedThreadCannotReadOrWriteNothingEither(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            for (boolean write : new boolean[] {false, true}) {
                SocketChannel[] p = pair(impl, server);
                try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                    CompletableFuture<Throwable> failure = new CompletableFuture<>();
                    Thread.ofVirtual().start(() -> {
                        Thread.currentThread().interrupt();
                        try {
                            if (write) {
                                c.write(ByteBuffer.allocate(0));
                            } else {
                                c.read(ByteBuffer.allocate(0));
                            }
                            failure.complete(null);
                        } catch (Throwable e) {
                            failure.complete(e);
                        }
                    });
                    assertThat(failure.get(10, TimeUnit.SECONDS)).isExactlyInstanceOf(ClosedByInterruptException.class);
                    assertThat(c.isOpen()).isFalse();
                }
            }
        }
    }

    /**
     * Options as the JDK reports and checks them on Linux: buffer sizes as set (the kernel's doubling halved
     * away), 0 allowed and a negative size refused by name, SO_LINGER capped at 65535, and the arguments checked
     * before whether the channel is open.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void optionValuesAsTheJdkReportsThem(String impl) throws Exception {
        SocketChannel c = client(impl);
        c.setOption(StandardSocketOptions.SO_SNDBUF, 65_536);
        c.setOption(StandardSocketOptions.SO_RCVBUF, 100_000);
        assertThat(c.getOption(StandardSocketOptions.SO_SNDBUF)).isEqualTo(65_536);
        assertThat(c.getOption(StandardSocketOptions.SO_RCVBUF)).isEqualTo(100_000);
        c.setOption(StandardSocketOptions.SO_SNDBUF, 0);
        assertThatThrownBy(() -> c.setOption(StandardSocketOptions.SO_RCVBUF, -1))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Invalid send/receive buffer size");
        c.setOption(StandardSocketOptions.SO_LINGER, 70_000);
        assertThat(c.getOption(StandardSocketOptions.SO_LINGER)).isEqualTo(65_535);
        @SuppressWarnings({"unchecked", "rawtypes"})
        SocketOption<Object> noDelay = (SocketOption) StandardSocketOptions.TCP_NODELAY;
        assertThatThrownBy(() -> c.setOption(noDelay, 1))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Invalid value '1'");
        c.close();
        assertThatThrownBy(() -> c.setOption(StandardSocketOptions.SO_LINGER, null))
                .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Invalid value 'null'");
        assertThatThrownBy(() -> c.getOption(StandardSocketOptions.IP_MULTICAST_TTL))
                .isExactlyInstanceOf(UnsupportedOperationException.class).hasMessage("'IP_MULTICAST_TTL' not supported");
        assertThatThrownBy(() -> c.getOption(StandardSocketOptions.SO_LINGER)).isExactlyInstanceOf(ClosedChannelException.class);
    }

    /**
     * After a reset: every read throws "Connection reset" (a SocketException; the JDK's is its internal subclass),
     * a write fails with the plain IOException the JDK gives a failed write, with the strerror text, and
     * shutting down either direction of the dead connection is no error.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aResetConnectionStaysReset(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel c = p[0]; SocketChannel s = p[1]) {
                c.setOption(StandardSocketOptions.SO_LINGER, 0);
                c.close();
                for (int i = 0; i < 2; i++) {
                    assertThatThrownBy(() -> s.read(ByteBuffer.allocate(16))).isInstanceOf(SocketException.class)
                            .hasMessage("Connection reset");
                }
                assertThatThrownBy(() -> s.read(ByteBuffer.allocate(0))).isInstanceOf(SocketException.class)
                        .hasMessage("Connection reset");
                assertThatThrownBy(() -> s.write(ByteBuffer.wrap(new byte[10]))).isExactlyInstanceOf(IOException.class)
                        .hasMessage("Broken pipe");
                s.shutdownInput();
                s.shutdownOutput();
                assertThat(s.isOpen()).isTrue();
            }
        }
    }

    /**
     * A gathering write goes out as one writev: after the peer's FIN (the peer answers data with a RST) the JDK's
     * small gathering write succeeds whole, where a send per buffer would meet the RST after the first.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void aGatheringWriteAfterThePeersFinGoesOutWhole(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl)) {
            SocketChannel[] p = pair(impl, server);
            try (SocketChannel s = p[1]) {
                p[0].close();
                assertThat(s.read(ByteBuffer.allocate(1))).isEqualTo(-1);
                ByteBuffer[] srcs = {ByteBuffer.wrap(new byte[75]), ByteBuffer.allocateDirect(116),
                        ByteBuffer.wrap(new byte[104]).asReadOnlyBuffer()};
                assertThat(s.write(srcs)).isEqualTo(295);
                assertThat(srcs[2].hasRemaining()).isFalse();
            }
        }
    }

    /**
     * A blocking read that finds bytes waiting, and a blocking write that finds room, are made in place, as the
     * JDK's first try is: no request goes to a loop (each would be a round trip through the loop's thread).
     */
    @Test
    void aReadyBlockingReadOrWriteIsMadeInPlace() throws Exception {
        try (UringServerSocketChannel server = UringServerSocketChannel.open(uring)) {
            server.bind(ANY_PORT);
            try (UringSocketChannel c = UringSocketChannel.open(uring, server.getLocalAddress());
                 SocketChannel s = server.accept()) {
                long before = submitted();
                assertThat(s.write(ByteBuffer.wrap(new byte[100]))).isEqualTo(100);
                try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                    var peek = arena.allocate(100);
                    while (io.uring4j.sys.Sockets.recv(c.link().guard.fd(), peek, io.uring4j.sys.Sockets.MSG_PEEK
                            | io.uring4j.sys.Sockets.MSG_DONTWAIT) < 100) {
                        Thread.onSpinWait();                // until all 100 bytes have arrived
                    }
                }
                assertThat(c.read(ByteBuffer.allocate(100))).isEqualTo(100);
                assertThat(submitted()).as("requests submitted to the loops").isEqualTo(before);
            }
        }
    }

    /**
     * A thread interrupted before a blocking accept gets ClosedByInterruptException and a closed channel, as with
     * the JDK, even with a connection waiting that an accept in place would have taken.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void anInterruptedBlockingAcceptClosesTheChannelEvenWithAConnectionWaiting(String impl) throws Exception {
        try (ServerSocketChannel server = server(impl);
             SocketChannel c = SocketChannel.open(server.getLocalAddress())) {
            CompletableFuture<Throwable> failure = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt();
                try (SocketChannel accepted = server.accept()) {
                    failure.complete(null);
                } catch (Throwable e) {
                    failure.complete(e);
                }
            });
            assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedByInterruptException.class);
            assertThat(server.isOpen()).isFalse();
        }
    }

    /**
     * A blocking accept that finds a connection waiting is made in place too: a server's acceptor thread under a
     * burst of connections takes each without a round trip through a loop (which, slower than the burst, let the
     * listen queue overflow: lost handshakes, retransmitted after 200 ms and more).
     */
    @Test
    void aBlockingAcceptOfAWaitingConnectionIsMadeInPlace() throws Exception {
        try (UringServerSocketChannel server = UringServerSocketChannel.open(uring)) {
            server.bind(ANY_PORT);
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress())) {   // in the listen queue now
                long before = submitted();
                try (SocketChannel s = server.accept()) {
                    assertThat(s.getRemoteAddress()).isEqualTo(c.getLocalAddress());
                    assertThat(s.isBlocking()).isTrue();
                }
                assertThat(submitted()).as("requests submitted to the loops").isEqualTo(before);
            }
        }
    }

    /**
     * shutdownOutput with no write waiting costs no request: the cancel that ends a blocked write is only sent
     * while one may be (servers shut down every connection they close, and each cancel woke a loop's thread).
     */
    @Test
    void shutdownOutputWithNoWriteWaitingReachesNoLoop() throws Exception {
        try (UringServerSocketChannel server = UringServerSocketChannel.open(uring)) {
            server.bind(ANY_PORT);
            try (SocketChannel c = SocketChannel.open(server.getLocalAddress()); SocketChannel s = server.accept()) {
                assertThat(s.write(ByteBuffer.wrap(new byte[100]))).isEqualTo(100);   // in place: room
                long before = submitted();
                s.shutdownOutput();
                assertThat(submitted()).as("requests submitted to the loops").isEqualTo(before);
                ByteBuffer got = ByteBuffer.allocate(200);
                while (c.read(got) >= 0) {
                    assertThat(got.position()).isLessThanOrEqualTo(100);
                }
                assertThat(got.position()).as("the bytes, then the end of stream").isEqualTo(100);
            }
        }
    }

    private static long submitted() {
        return uring.loop(0).stats().submitted() + uring.loop(1).stats().submitted();
    }

    private static CompletableFuture<Throwable> blockedRead(SocketChannel s) {
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                s.read(ByteBuffer.allocate(16));
                failure.complete(null);
            } catch (Throwable e) {
                failure.complete(e);
            }
        });
        return failure;
    }
}
