package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The blocking and future styles of {@link TcpSocket} and {@link TcpListener} on loopback. */
@BothEngines
class TcpSocketTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @UringRuntime(loops = 2)
    private Uring uring;
    private Arena arena;

    @BeforeEach
    void open() throws Exception {
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        arena.close();
    }

    private MemorySegment bytes(String s) {
        return arena.allocateFrom(s).asSlice(0, s.length());   // without the terminating NUL
    }

    private String readExactly(TcpSocket socket, int n) throws IOException {
        MemorySegment buf = arena.allocate(n);
        int done = 0;
        while (done < n) {
            int r = socket.read(buf.asSlice(done));
            assertThat(r).as("EOF after %d of %d bytes", done, n).isPositive();
            done += r;
        }
        return new String(buf.toArray(JAVA_BYTE));
    }

    @Test
    void connectAcceptWriteReadAndHalfClose() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            try (TcpSocket client = TcpSocket.connect(uring, listener.localAddress());
                 TcpSocket server = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(client.remoteAddress()).isEqualTo(listener.localAddress());
                assertThat(server.remoteAddress()).isEqualTo(client.localAddress());
                client.setNoDelay(true);
                assertThat(SocketOptions.get(client.fd(), Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY)).isEqualTo(1);

                client.write(bytes("ping"));
                assertThat(readExactly(server, 4)).isEqualTo("ping");

                // Half-close: the server reads EOF and can still answer.
                client.shutdownOutput();
                assertThat(server.read(arena.allocate(16))).isEqualTo(-1);
                server.write(bytes("pong"));
                assertThat(readExactly(client, 4)).isEqualTo("pong");
                server.close();
                assertThat(client.read(arena.allocate(16))).isEqualTo(-1);
            }
        }
    }

    @Test
    void futureStyleReadAndWrite() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            TcpSocket client = TcpSocket.connectAsync(uring, listener.localAddress()).get(10, TimeUnit.SECONDS);
            try (client; TcpSocket server = accepted.get(10, TimeUnit.SECONDS)) {
                MemorySegment in = arena.allocate(8);
                CompletableFuture<Integer> read = server.readAsync(in);
                assertThat(client.writeAsync(bytes("abc")).get(10, TimeUnit.SECONDS)).isEqualTo(3);
                assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(3);
                assertThat(new String(in.asSlice(0, 3).toArray(JAVA_BYTE))).isEqualTo("abc");
            }
        }
    }

    @Test
    void connectionRefusedIsConnectException() throws Exception {
        int port;
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 1)) {
            port = listener.localAddress().getPort();
        }
        InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        assertThatThrownBy(() -> TcpSocket.connect(uring, nobody))
                .isInstanceOf(ConnectException.class).hasMessage("Connection refused");
        assertThatThrownBy(() -> TcpSocket.connectAsync(uring, nobody).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ConnectException.class);
    }

    @Test
    void connectTimesOutWhenTheAcceptQueueIsFull() throws Exception {
        // A listener with backlog 0 that never accepts: once its queue is full the kernel drops further SYNs,
        // so a connect hangs until its link timeout fires.
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 0)) {
            List<TcpSocket> queued = new ArrayList<>();
            try {
                long start = System.nanoTime();
                SocketTimeoutException timedOut = null;
                for (int i = 0; i < 16 && timedOut == null; i++) {
                    try {
                        queued.add(TcpSocket.connect(uring, listener.localAddress(), Duration.ofMillis(200)));
                    } catch (SocketTimeoutException e) {
                        timedOut = e;
                    }
                }
                assertThat(timedOut).as("a connect to a full accept queue timed out").isNotNull();
                assertThat(timedOut).hasMessageContaining("200 ms");
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(8));
            } finally {
                for (TcpSocket s : queued) {
                    s.close();
                }
            }
        }
    }

    @Test
    void peerResetIsConnectionReset() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            try (TcpSocket client = TcpSocket.connect(uring, listener.localAddress())) {
                TcpSocket server = accepted.get(10, TimeUnit.SECONDS);
                client.write(bytes("unread"));
                Thread.sleep(50);
                server.close();      // closing with unread data sends RST instead of FIN
                assertThatThrownBy(() -> client.read(arena.allocate(16)))
                        .isInstanceOf(SocketException.class).hasMessage("Connection reset");
            }
        }
    }

    @Test
    void closeWakesABlockedAcceptAndRead() throws Exception {
        TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16);
        CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
        TcpSocket client = TcpSocket.connect(uring, listener.localAddress());
        TcpSocket server = accepted.get(10, TimeUnit.SECONDS);
        CompletableFuture<Throwable> acceptFailure = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                listener.accept();
                acceptFailure.complete(null);
            } catch (Throwable t) {
                acceptFailure.complete(t);
            }
        });
        CompletableFuture<Throwable> readFailure = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                server.read(arena.allocate(16));
                readFailure.complete(null);
            } catch (Throwable t) {
                readFailure.complete(t);
            }
        });
        Thread.sleep(100);
        listener.close();
        server.close();
        assertThat(readFailure.get(10, TimeUnit.SECONDS)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        Throwable a = acceptFailure.get(10, TimeUnit.SECONDS);
        assertThat(a).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThatThrownBy(listener::accept).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        client.close();
    }

    @Test
    void aHundredVirtualThreadConnectionsEchoTenMebibytesEachInOrder() throws Exception {
        // The thread-per-connection style end to end: a TcpListener/TcpSocket echo server on virtual threads,
        // JDK clients (independent of the code under test).
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 128);
             var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            threads.submit(() -> {
                while (true) {
                    TcpSocket s = listener.accept();
                    threads.submit(() -> {
                        try (s; Arena mine = Arena.ofConfined()) {
                            MemorySegment buf = mine.allocate(16 << 10);
                            for (int n; (n = s.read(buf)) > 0; ) {
                                s.write(buf.asSlice(0, n));
                            }
                        }
                        return null;
                    });
                }
            });
            Clients.echoConcurrently(listener.localAddress(), Clients.INTEGRITY_CONNECTIONS, Clients.INTEGRITY_BYTES, 7_919, 60);
            listener.close();      // ends the accept loop ("Socket closed")
        }
    }

    @Test
    void ipv6Loopback() throws Exception {
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        try (TcpListener listener = TcpListener.bind(uring, v6, 16)) {
            assertThat(listener.localAddress().getAddress()).isEqualTo(InetAddress.getByName("::1"));
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            try (TcpSocket client = TcpSocket.connect(uring, listener.localAddress(), Duration.ofSeconds(5));
                 TcpSocket server = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(server.remoteAddress()).isEqualTo(client.localAddress());
                client.write(bytes("v6"));
                assertThat(readExactly(server, 2)).isEqualTo("v6");
            }
        }
    }

    @Test
    void socketOptions() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            try (TcpSocket s = TcpSocket.connect(uring, listener.localAddress());
                 TcpSocket ignored = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(SocketOptions.get(listener.fd(), Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR)).isEqualTo(1);
                s.setKeepAlive(true);
                assertThat(SocketOptions.get(s.fd(), Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE)).isEqualTo(1);
                s.setSendBufferSize(64 << 10);
                s.setReceiveBufferSize(64 << 10);
                // Linux doubles the value for its bookkeeping.
                assertThat(SocketOptions.get(s.fd(), Sockets.SOL_SOCKET, Sockets.SO_SNDBUF)).isEqualTo(128 << 10);
                assertThat(SocketOptions.get(s.fd(), Sockets.SOL_SOCKET, Sockets.SO_RCVBUF)).isEqualTo(128 << 10);
                s.setNoDelay(false);
                assertThat(SocketOptions.get(s.fd(), Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY)).isZero();
            }
        }
    }

    @Test
    void closingTheRuntimeEndsBlockedReadsPromptly() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            TcpSocket client = TcpSocket.connect(uring, listener.localAddress());
            TcpSocket server = accepted.get(10, TimeUnit.SECONDS);
            CompletableFuture<Throwable> failure = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    server.read(arena.allocate(16));
                    failure.complete(null);
                } catch (Throwable t) {
                    failure.complete(t);
                }
            });
            Thread.sleep(100);
            long start = System.nanoTime();
            uring.close();
            assertThat(failure.get(2, TimeUnit.SECONDS)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
            server.close();        // after the runtime: closes the fd without a ring
            client.close();
            assertThat(server.isOpen()).isFalse();
        }
    }

    @Test
    void closeWithTheInterruptStatusSetStillClosesTheDescriptor() throws Exception {
        try (TcpListener listener = TcpListener.bind(uring, ANY_PORT, 16)) {
            CompletableFuture<TcpSocket> accepted = listener.acceptAsync();
            TcpSocket client = TcpSocket.connect(uring, listener.localAddress());
            accepted.get(10, TimeUnit.SECONDS).close();
            Thread.currentThread().interrupt();
            try {
                client.close();
            } finally {
                assertThat(Thread.interrupted()).as("the interrupt status is kept").isTrue();
            }
            assertThat(Sockets.getsockopt(client.fd(), Sockets.SOL_SOCKET, Sockets.SO_TYPE, arena.allocate(4)))
                    .as("the fd is closed").isEqualTo(-io.uring4j.sys.Errno.EBADF);
        }
    }
}
