package io.uring4j.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AcceptPendingException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ReadPendingException;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritePendingException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.uring4j.net.AsyncKit.Pair;
import static io.uring4j.net.AsyncKit.Recorder;
import static io.uring4j.net.AsyncKit.failureOf;
import static io.uring4j.net.AsyncKit.get;
import static io.uring4j.net.AsyncKit.named;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The asynchronous socket channels' contract (and the groups', inherited), run against the JDK's provider
 * ({@link JdkAsynchronousChannelTest}) and uring4j's ({@link UringAsynchronousChannelTest}) with the same concrete
 * expectations: where ours differs from the JDK's, exactly one of the pair fails.
 */
abstract class AsynchronousChannelContract extends AsynchronousGroupContract {
    @Test
    void acceptAndConnectWithHandlersOnTheGroupsThreads() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); AsynchronousSocketChannel client = client()) {
            Recorder<AsynchronousSocketChannel> accepted = new Recorder<>();
            server.accept("accept", accepted);
            Recorder<Void> connected = new Recorder<>();
            client.connect(server.getLocalAddress(), "connect", connected);
            assertThat(connected.get()).isNull();
            try (AsynchronousSocketChannel ch = accepted.get()) {
                assertThat(accepted.attachment).isEqualTo("accept");
                assertThat(connected.attachment).isEqualTo("connect");
                assertThat(accepted.thread.getName()).startsWith("contract-handler-");
                assertThat(connected.thread.getName()).startsWith("contract-handler-");
                assertThat(client.getRemoteAddress()).isEqualTo(server.getLocalAddress());
                assertThat(ch.getRemoteAddress()).isEqualTo(client.getLocalAddress());
                assertThat(ch.getLocalAddress()).isEqualTo(server.getLocalAddress());
                assertThat(ch.provider()).isSameAs(provider());

                Recorder<Integer> read = new Recorder<>();
                ByteBuffer into = ByteBuffer.allocate(10);
                ch.read(into, 0, TimeUnit.SECONDS, "read", read);
                assertThat(get(client.write(ByteBuffer.wrap(pattern(1, 5))))).isEqualTo(5);
                assertThat(read.get()).isEqualTo(5);
                assertThat(read.thread.getName()).startsWith("contract-handler-");
                assertThat(Arrays.copyOf(into.array(), 5)).isEqualTo(pattern(1, 5));
            }
        }
    }

    @Test
    void acceptConnectReadAndWriteWithFutures() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            ByteBuffer direct = ByteBuffer.allocateDirect(100).put(pattern(2, 100)).flip();
            assertThat(get(p.client().write(direct))).isEqualTo(100);
            assertThat(direct.hasRemaining()).isFalse();
            ByteBuffer into = ByteBuffer.allocate(100);
            assertThat(get(AsyncKit.readFully(p.accepted(), into))).isEqualTo(100);
            assertThat(into.array()).isEqualTo(pattern(2, 100));
            assertThat(get(p.accepted().write(ByteBuffer.allocate(0)))).isZero();
            assertThat(get(p.accepted().read(ByteBuffer.allocate(0)))).isZero();
        }
    }

    /** 100 connections at once, each echoing 1 MiB; heap buffers on the server and the clients, or direct ones. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void manyConnectionsEchoConcurrently(boolean direct) throws Exception {
        int clients = 100;
        int size = 1 << 20;
        try (AsynchronousServerSocketChannel server = server()) {
            AsyncKit.echoServer(server, direct);
            List<AsynchronousSocketChannel> channels = new ArrayList<>();
            List<CompletableFuture<byte[]>> echoes = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    AsynchronousSocketChannel ch = client();
                    channels.add(ch);
                    get(ch.connect(server.getLocalAddress()));
                    echoes.add(AsyncKit.roundTrip(ch, pattern(i, size), direct));
                }
                for (int i = 0; i < clients; i++) {
                    assertThat(get(echoes.get(i))).as("connection %d", i).isEqualTo(pattern(i, size));
                }
            } finally {
                for (AsynchronousSocketChannel ch : channels) {
                    ch.close();
                }
            }
        }
    }

    @Test
    void readReturnsMinusOneAtEndOfStream() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Future<Integer> pending = p.accepted().read(ByteBuffer.allocate(10));
            p.client().shutdownOutput();
            assertThat(get(pending)).isEqualTo(-1);
            Recorder<Integer> again = new Recorder<>();
            p.accepted().read(ByteBuffer.allocateDirect(10), 0, TimeUnit.SECONDS, "eof", again);
            assertThat(again.get()).isEqualTo(-1);
            Recorder<Long> vectored = new Recorder<>();
            p.accepted().read(new ByteBuffer[] {ByteBuffer.allocate(4)}, 0, 1, 0, TimeUnit.SECONDS, "v", vectored);
            assertThat(vectored.get()).isEqualTo(-1L);
        }
    }

    /** As the kernel's close of a socket with unread input: a reset, not a FIN, after what was written. */
    @Test
    void aCloseWithInputLeftUnreadResetsTheConnection() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            assertThat(get(p.client().write(ByteBuffer.wrap(pattern(3, 10))))).isEqualTo(10);
            assertThat(get(AsyncKit.readFully(p.accepted(), ByteBuffer.allocate(4)))).isEqualTo(4);
            assertThat(get(p.accepted().write(ByteBuffer.wrap(pattern(4, 100))))).isEqualTo(100);
            p.accepted().close();
            ByteBuffer into = ByteBuffer.allocate(200);
            Throwable failure = null;
            while (failure == null) {
                Future<Integer> read = p.client().read(into);
                try {
                    assertThat(get(read)).as("end of stream instead of a reset").isPositive();
                } catch (java.util.concurrent.ExecutionException e) {
                    failure = e.getCause();
                }
            }
            assertThat(failure).isInstanceOf(IOException.class).hasMessage("Connection reset");
            assertThat(into.position()).as("what was written reached the peer").isEqualTo(100);
        }
    }

    @Test
    void aPeersResetFailsThatChannelOnly() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair healthy = pair(server)) {
            Future<AsynchronousSocketChannel> accepting = server.accept();
            SocketChannel peer = SocketChannel.open(server.getLocalAddress());
            try (AsynchronousSocketChannel victim = get(accepting)) {
                Future<Integer> read = victim.read(ByteBuffer.allocate(10));
                peer.setOption(StandardSocketOptions.SO_LINGER, 0);
                peer.close();                                   // a reset
                assertThat(failureOf(read)).isInstanceOf(IOException.class).hasMessageContaining("reset");
                assertThat(victim.isOpen()).isTrue();
            }
            assertThat(get(healthy.client().write(ByteBuffer.wrap(pattern(3, 8))))).isEqualTo(8);
            ByteBuffer into = ByteBuffer.allocate(8);
            assertThat(get(AsyncKit.readFully(healthy.accepted(), into))).isEqualTo(8);
            assertThat(into.array()).isEqualTo(pattern(3, 8));
        }
    }

    @Test
    void aReadTimeoutFailsTheReadAndRefusesReadsAfter() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Recorder<Integer> read = new Recorder<>();
            p.accepted().read(ByteBuffer.allocate(10), 50, TimeUnit.MILLISECONDS, "timed", read);
            assertThat(read.failure()).isExactlyInstanceOf(InterruptedByTimeoutException.class);
            assertThat(read.attachment).isEqualTo("timed");
            assertThatThrownBy(() -> p.accepted().read(ByteBuffer.allocate(10)))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage("Reading not allowed due to timeout or cancellation");
            assertThat(get(p.accepted().write(ByteBuffer.wrap(pattern(4, 6))))).as("writes go on").isEqualTo(6);
            assertThat(get(AsyncKit.readFully(p.client(), ByteBuffer.allocate(6)))).isEqualTo(6);
        }
    }

    @Test
    void aWriteTimeoutOnAPeerThatNeverReads() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            p.accepted().setOption(StandardSocketOptions.SO_SNDBUF, 4096);
            ByteBuffer big = ByteBuffer.allocateDirect(1 << 20);
            Throwable failure = null;
            for (int i = 0; i < 10_000 && failure == null; i++) {
                Recorder<Integer> write = new Recorder<>();
                p.accepted().write(big.clear(), 100, TimeUnit.MILLISECONDS, null, write);
                try {
                    write.get();
                } catch (Exception e) {
                    failure = e.getCause();
                }
            }
            assertThat(failure).isExactlyInstanceOf(InterruptedByTimeoutException.class);
            assertThatThrownBy(() -> p.accepted().write(big.clear()))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage("Writing not allowed due to timeout or cancellation");
        }
    }

    @Test
    void pendingOperationsRefuseASecond() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Future<AsynchronousSocketChannel> accept = server.accept();
            assertThatThrownBy(server::accept).isExactlyInstanceOf(AcceptPendingException.class);
            Future<Integer> read = p.accepted().read(ByteBuffer.allocate(10));
            assertThatThrownBy(() -> p.accepted().read(ByteBuffer.allocate(10)))
                    .isExactlyInstanceOf(ReadPendingException.class);
            // Fill the socket buffers (the client never reads) until a write stays pending — one that has not
            // ended after a second, with sizes fixed so that the kernel does not grow the buffers and end it.
            p.client().setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            p.accepted().setOption(StandardSocketOptions.SO_SNDBUF, 4096);
            ByteBuffer big = ByteBuffer.allocateDirect(1 << 20);
            boolean blocked = false;
            for (int i = 0; i < 100_000 && !blocked; i++) {
                try {
                    p.accepted().write(big.duplicate()).get(1, TimeUnit.SECONDS);
                } catch (TimeoutException stillPending) {
                    blocked = true;
                }
            }
            assertThat(blocked).isTrue();
            assertThatThrownBy(() -> p.accepted().write(big.duplicate()))
                    .isExactlyInstanceOf(WritePendingException.class);
            assertThatThrownBy(() -> p.accepted().write(ByteBuffer.allocate(0)))
                    .as("checked before whether there is anything to write")
                    .isExactlyInstanceOf(WritePendingException.class);
            assertThat(accept.isDone()).isFalse();
            assertThat(read.isDone()).isFalse();
        }
    }

    @Test
    void scatteringAndGatheringWithOffsets() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            byte[] data = pattern(5, 60);
            ByteBuffer[] out = {ByteBuffer.allocate(7), ByteBuffer.wrap(data, 0, 10),
                    ByteBuffer.allocateDirect(20).put(data, 10, 20).flip(), ByteBuffer.allocate(0),
                    ByteBuffer.allocateDirect(30).put(data, 30, 30).flip(), ByteBuffer.allocate(9)};
            Recorder<Long> written = new Recorder<>();
            p.client().write(out, 1, 4, 0, TimeUnit.SECONDS, "w", written);
            assertThat(written.get()).isEqualTo(60L);
            assertThat(out[0].position()).isZero();
            assertThat(out[5].position()).isZero();

            ByteBuffer[] in = {ByteBuffer.allocate(5), ByteBuffer.allocate(25), ByteBuffer.allocateDirect(25),
                    ByteBuffer.allocate(25), ByteBuffer.allocate(5)};
            long total = 0;
            while (total < 60) {
                Recorder<Long> read = new Recorder<>();
                p.accepted().read(in, 1, 3, 0, TimeUnit.SECONDS, "r", read);
                total += read.get();
            }
            assertThat(total).isEqualTo(60);
            assertThat(in[0].position()).isZero();
            assertThat(in[3].position()).isEqualTo(10);
            assertThat(in[4].position()).isZero();
            byte[] back = new byte[60];
            in[1].flip().get(back, 0, 25);
            in[2].flip().get(back, 25, 25);
            in[3].flip().get(back, 50, 10);
            assertThat(back).isEqualTo(data);

            Recorder<Long> none = new Recorder<>();
            p.accepted().read(new ByteBuffer[] {ByteBuffer.allocate(0)}, 0, 1, 0, TimeUnit.SECONDS, "none", none);
            assertThat(none.get()).as("no room").isZero();
            assertThatThrownBy(() -> p.accepted().read(in, 3, 3, 0, TimeUnit.SECONDS, null, new Recorder<Long>()))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void closeFailsAPendingReadWithAsynchronousCloseException(boolean handler) throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Throwable failure;
            if (handler) {
                Recorder<Integer> read = new Recorder<>();
                p.accepted().read(ByteBuffer.allocateDirect(10), 0, TimeUnit.SECONDS, "closed", read);
                p.accepted().close();
                failure = read.failure();
                assertThat(read.thread.getName()).startsWith("contract-handler-");
            } else {
                Future<Integer> read = p.accepted().read(ByteBuffer.allocate(10));
                p.accepted().close();
                failure = failureOf(read);
            }
            assertThat(failure).isExactlyInstanceOf(AsynchronousCloseException.class);
            assertThat(p.accepted().isOpen()).isFalse();
        }
    }

    @Test
    void closeFailsAPendingAccept() throws Exception {
        AsynchronousServerSocketChannel server = server();
        Recorder<AsynchronousSocketChannel> accept = new Recorder<>();
        server.accept("a", accept);
        server.close();
        assertThat(accept.failure()).isExactlyInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void aRefusedConnectFailsWithConnectExceptionAndClosesTheChannel() throws Exception {
        AsynchronousServerSocketChannel gone = server();
        InetSocketAddress address = (InetSocketAddress) gone.getLocalAddress();
        gone.close();
        AsynchronousSocketChannel withFuture = client();
        assertThat(failureOf(withFuture.connect(address))).isExactlyInstanceOf(ConnectException.class);
        assertThat(withFuture.isOpen()).isFalse();
        AsynchronousSocketChannel withHandler = client();
        Recorder<Void> connect = new Recorder<>();
        withHandler.connect(address, "refused", connect);
        assertThat(connect.failure()).isExactlyInstanceOf(ConnectException.class);
        assertThat(withHandler.isOpen()).isFalse();
    }

    @Test
    void closedChannelsFailWithClosedChannelException() throws Exception {
        AsynchronousSocketChannel ch = client();
        ch.close();
        ch.close();
        assertThat(failureOf(ch.read(ByteBuffer.allocate(1)))).isExactlyInstanceOf(ClosedChannelException.class);
        assertThat(failureOf(ch.write(ByteBuffer.allocate(1)))).isExactlyInstanceOf(ClosedChannelException.class);
        assertThat(failureOf(ch.connect(LOOPBACK))).isExactlyInstanceOf(ClosedChannelException.class);
        Recorder<Integer> read = new Recorder<>();
        ch.read(ByteBuffer.allocate(1), 0, TimeUnit.SECONDS, "r", read);
        assertThat(read.failure()).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(ch::getLocalAddress).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(ch::getRemoteAddress).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> ch.bind(LOOPBACK)).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(() -> ch.setOption(StandardSocketOptions.TCP_NODELAY, true))
                .isExactlyInstanceOf(ClosedChannelException.class);
        AsynchronousServerSocketChannel server = server();
        server.close();
        assertThat(failureOf(server.accept())).isExactlyInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(server::getLocalAddress).isExactlyInstanceOf(ClosedChannelException.class);
    }

    @Test
    void stateRules() throws Exception {
        try (AsynchronousSocketChannel ch = client();
             AsynchronousServerSocketChannel unbound = provider().openAsynchronousServerSocketChannel(group)) {
            assertThat(ch.getLocalAddress()).isNull();
            assertThat(ch.getRemoteAddress()).isNull();
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1))).isExactlyInstanceOf(NotYetConnectedException.class);
            assertThatThrownBy(() -> ch.write(ByteBuffer.allocate(1))).isExactlyInstanceOf(NotYetConnectedException.class);
            assertThatThrownBy(ch::shutdownInput).isExactlyInstanceOf(NotYetConnectedException.class);
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1).asReadOnlyBuffer()))
                    .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("Read-only buffer");
            assertThatThrownBy(() -> ch.read(ByteBuffer.allocate(1), null, null))
                    .isExactlyInstanceOf(NullPointerException.class);
            ch.bind(LOOPBACK);
            assertThat(((InetSocketAddress) ch.getLocalAddress()).getPort()).isPositive();
            assertThatThrownBy(() -> ch.bind(LOOPBACK)).isExactlyInstanceOf(AlreadyBoundException.class);
            assertThatThrownBy(unbound::accept).isExactlyInstanceOf(NotYetBoundException.class);
            assertThat(unbound.getLocalAddress()).isNull();
            try (AsynchronousServerSocketChannel server = server()) {
                Future<AsynchronousSocketChannel> accepted = server.accept();
                get(ch.connect(server.getLocalAddress()));
                get(accepted).close();
                assertThatThrownBy(() -> ch.connect(server.getLocalAddress()))
                        .isExactlyInstanceOf(AlreadyConnectedException.class);
                assertThatThrownBy(() -> server.bind(LOOPBACK)).isExactlyInstanceOf(AlreadyBoundException.class);
            }
        }
    }

    @Test
    void options() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            AsynchronousSocketChannel ch = p.client();
            assertThat(ch.supportedOptions()).contains(StandardSocketOptions.TCP_NODELAY,
                    StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF,
                    StandardSocketOptions.SO_REUSEADDR).doesNotContain(StandardSocketOptions.SO_LINGER);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true).setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            assertThat(ch.getOption(StandardSocketOptions.TCP_NODELAY)).isTrue();
            assertThat(ch.getOption(StandardSocketOptions.SO_KEEPALIVE)).isTrue();
            ch.setOption(StandardSocketOptions.SO_RCVBUF, 65536);
            assertThat(ch.getOption(StandardSocketOptions.SO_RCVBUF)).isEqualTo(65536);
            assertThatThrownBy(() -> ch.setOption(StandardSocketOptions.SO_LINGER, 1))
                    .isExactlyInstanceOf(UnsupportedOperationException.class);
            assertThat(server.supportedOptions()).contains(StandardSocketOptions.SO_RCVBUF,
                    StandardSocketOptions.SO_REUSEADDR);
            assertThat(server.getOption(StandardSocketOptions.SO_REUSEADDR)).as("on by default").isTrue();
            assertThatThrownBy(() -> server.setOption(StandardSocketOptions.TCP_NODELAY, true))
                    .isExactlyInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void shutdownInputAndOutput() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            p.accepted().shutdownInput().shutdownInput();
            assertThat(get(p.accepted().read(ByteBuffer.allocate(4)))).isEqualTo(-1);
            p.client().shutdownOutput();
            assertThat(failureOf(p.client().write(ByteBuffer.allocate(4))))
                    .isExactlyInstanceOf(ClosedChannelException.class);
            assertThat(failureOf(p.client().write(ByteBuffer.allocate(0)))).as("even with nothing to write")
                    .isExactlyInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void cancellingAReadFutureRefusesReadsAfter() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Future<Integer> read = p.accepted().read(ByteBuffer.allocate(10));
            assertThat(read.cancel(false)).isTrue();
            assertThat(read.isCancelled()).isTrue();
            assertThatThrownBy(() -> p.accepted().read(ByteBuffer.allocate(10)))
                    .isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage("Reading not allowed due to timeout or cancellation");
            assertThat(p.accepted().isOpen()).isTrue();
            Future<Integer> write = p.client().write(ByteBuffer.wrap(pattern(6, 3)));
            get(write);
            assertThat(write.cancel(true)).as("done").isFalse();
            assertThat(p.client().isOpen()).isTrue();
        }
    }

    @Test
    void cancellingAnAcceptFutureRefusesAcceptsAfter() throws Exception {
        try (AsynchronousServerSocketChannel server = server()) {
            Future<AsynchronousSocketChannel> accept = server.accept();
            assertThat(accept.cancel(false)).isTrue();
            assertThatThrownBy(server::accept).isExactlyInstanceOf(RuntimeException.class)
                    .hasMessage("Accept not allowed due cancellation");
            assertThat(server.isOpen()).isTrue();
        }
        try (AsynchronousServerSocketChannel server = server()) {
            assertThat(server.accept().cancel(true)).isTrue();
            assertThat(server.isOpen()).as("cancel(true) closes the channel").isFalse();
        }
    }

    @Test
    void cancellingWithInterruptClosesTheChannel() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Future<Integer> read = p.accepted().read(ByteBuffer.allocateDirect(10));
            assertThat(read.cancel(true)).isTrue();
            assertThat(p.accepted().isOpen()).isFalse();
            assertThat(get(p.client().read(ByteBuffer.allocate(1)))).as("the peer sees the close").isEqualTo(-1);
        }
    }

    @Test
    void ipv6() throws Exception {
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 0);
        try (AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(group).bind(v6)) {
            AsyncKit.echoServer(server, false);
            try (AsynchronousSocketChannel ch = client()) {
                get(ch.connect(server.getLocalAddress()));
                assertThat(((InetSocketAddress) ch.getRemoteAddress()).getAddress()).isInstanceOf(Inet6Address.class);
                assertThat(get(AsyncKit.roundTrip(ch, pattern(7, 1000), true))).isEqualTo(pattern(7, 1000));
            }
        }
    }
}
