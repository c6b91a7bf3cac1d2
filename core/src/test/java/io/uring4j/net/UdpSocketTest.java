package io.uring4j.net;

import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link UdpSocket} and the SENDMSG/RECVMSG ops on loopback, IPv4 and IPv6, in the three styles. */
@BothEngines
class UdpSocketTest {
    private static final InetSocketAddress V4 = new InetSocketAddress("127.0.0.1", 0);
    private static final InetSocketAddress V6 = new InetSocketAddress("::1", 0);

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
        return arena.allocateFrom(s).asSlice(0, s.length());
    }

    private static String text(MemorySegment buffer, int length) {
        return new String(buffer.asSlice(0, length).toArray(JAVA_BYTE));
    }

    @Test
    void blockingRoundTripOverIpv4ReportsTheSender() throws Exception {
        roundTrip(V4);
    }

    @Test
    void blockingRoundTripOverIpv6ReportsTheSender() throws Exception {
        roundTrip(V6);
    }

    private void roundTrip(InetSocketAddress any) throws Exception {
        try (UdpSocket a = UdpSocket.bind(uring, any); UdpSocket b = UdpSocket.bind(uring, any)) {
            assertThat(a.send(bytes("ping"), b.localAddress())).isEqualTo(4);
            MemorySegment in = arena.allocate(64);
            Datagram d = b.receive(in);
            assertThat(d.length()).isEqualTo(4);
            assertThat(d.sender()).isEqualTo(a.localAddress());
            assertThat(d.sender().getAddress()).isEqualTo(any.getAddress());
            assertThat(d.sender()).as("no %0 scope").hasToString(new InetSocketAddress(any.getAddress(), a.localAddress().getPort()).toString());
            assertThat(d.truncated()).isFalse();
            assertThat(text(in, 4)).isEqualTo("ping");

            b.send(bytes("pong!"), d.sender());           // reply to whoever sent it
            Datagram back = a.receive(in);
            assertThat(back).isEqualTo(new Datagram(5, b.localAddress(), false));
            assertThat(text(in, 5)).isEqualTo("pong!");
        }
    }

    @Test
    void futureStyleReceiveWaitsForTheSend() throws Exception {
        try (UdpSocket a = UdpSocket.bind(uring, V6); UdpSocket b = UdpSocket.bind(uring, V6)) {
            MemorySegment in = arena.allocate(64);
            CompletableFuture<Datagram> received = b.receiveAsync(in);
            assertThat(a.sendAsync(bytes("async"), b.localAddress()).get(10, TimeUnit.SECONDS)).isEqualTo(5);
            assertThat(received.get(10, TimeUnit.SECONDS)).isEqualTo(new Datagram(5, a.localAddress(), false));
            assertThat(text(in, 5)).isEqualTo("async");
        }
    }

    @Test
    void callbackStyleReusesOneReceiveOpForDatagramsFromTwoSenders() throws Exception {
        try (UdpSocket receiver = UdpSocket.bind(uring, V4);
             UdpSocket first = UdpSocket.bind(uring, V4); UdpSocket second = UdpSocket.bind(uring, V4)) {
            EventLoop loop = uring.loop();
            MemorySegment in = arena.allocate(64);
            MessageOp op = NetOps.recvmsg(receiver.fd(), in);
            LinkedBlockingQueue<Object> received = new LinkedBlockingQueue<>();
            CompletionHandler handler = new CompletionHandler() {
                int count;

                @Override
                public void complete(int result, int flags) {
                    received.add(result < 0 ? Errno.name(result) : op.datagram(result) + " " + text(in, result));
                    if (++count < 2) {
                        loop.submit(op, this);       // on the loop thread: the same op, rewritten for the next datagram
                    }
                }
            };
            loop.submit(op, handler);
            first.send(bytes("one"), receiver.localAddress());
            assertThat(received.poll(10, TimeUnit.SECONDS))
                    .isEqualTo(new Datagram(3, first.localAddress(), false) + " one");
            second.send(bytes("two!"), receiver.localAddress());
            assertThat(received.poll(10, TimeUnit.SECONDS))
                    .isEqualTo(new Datagram(4, second.localAddress(), false) + " two!");
        }
    }

    @Test
    void aDatagramLongerThanTheBufferIsTruncated() throws Exception {
        try (UdpSocket a = UdpSocket.bind(uring, V4); UdpSocket b = UdpSocket.bind(uring, V4)) {
            a.send(bytes("0123456789abcdef"), b.localAddress());
            MemorySegment small = arena.allocate(10);
            Datagram d = b.receive(small);
            assertThat(d.length()).isEqualTo(10);
            assertThat(d.truncated()).isTrue();
            assertThat(text(small, 10)).isEqualTo("0123456789");

            a.send(bytes("fits"), b.localAddress());      // the tail of the first is gone, not delivered next
            assertThat(b.receive(small)).isEqualTo(new Datagram(4, a.localAddress(), false));
        }
    }

    @Test
    void aTimedReceiveGivesUpAndTheNextDatagramIsNotLost() throws Exception {
        try (UdpSocket a = UdpSocket.bind(uring, V4); UdpSocket b = UdpSocket.bind(uring, V4)) {
            MemorySegment in = arena.allocate(16);
            assertThatThrownBy(() -> b.receive(in, Duration.ofMillis(20)))
                    .isInstanceOf(SocketTimeoutException.class).hasMessage("recvmsg timed out after 20 ms");
            a.send(bytes("later"), b.localAddress());
            assertThat(b.receive(in, Duration.ofSeconds(10))).isEqualTo(new Datagram(5, a.localAddress(), false));
            assertThat(text(in, 5)).isEqualTo("later");
        }
    }

    @Test
    void aConnectedSocketSendsWithoutAnAddress() throws Exception {
        try (UdpSocket a = UdpSocket.open(uring, StandardProtocolFamily.INET6); UdpSocket b = UdpSocket.bind(uring, V6)) {
            a.connect(b.localAddress());
            a.send(bytes("hi"));
            Datagram d = b.receive(arena.allocate(16));
            assertThat(d.length()).isEqualTo(2);
            assertThat(d.sender()).isEqualTo(a.localAddress());
        }
    }

    @Test
    void requestsOnAClosedDescriptorNameTheOpAndErrno() throws Exception {
        // A number no fd can have (above any nr_open): a closed fd's number may be taken again at once by
        // another thread's open (the JDK's, or the portable engine's own epoll and eventfds).
        int fd = (1 << 30) - 1;
        InetSocketAddress somewhere = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);
        assertThatThrownBy(() -> uring.call(NetOps.sendmsg(fd, bytes("x"), somewhere)))
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("SENDMSG: EBADF");
        assertThatThrownBy(() -> uring.call(NetOps.recvmsg(fd, arena.allocate(8))))
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("RECVMSG: EBADF");
    }

    @Test
    void closeEndsABlockedReceiveAndLaterCallsFail() throws Exception {
        UdpSocket socket = UdpSocket.bind(uring, V4);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                outcome.complete(new AssertionError("received " + socket.receive(arena.allocate(16))));
            } catch (Throwable t) {
                outcome.complete(t);
            }
        });
        // The receive is in flight once the loop has it; close cancels whatever is there by fd either way.
        awaitInFlight(socket);
        socket.close();
        Throwable t = outcome.get(10, TimeUnit.SECONDS);
        assertThat(t).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThat(t.getCause()).isInstanceOf(ErrnoException.class).hasMessageStartingWith("recvmsg: ECANCELED");

        assertThatThrownBy(() -> socket.send(bytes("late"), new InetSocketAddress("127.0.0.1", 9)))
                .isInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThatThrownBy(() -> socket.receiveAsync(arena.allocate(8)).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().hasMessage("Socket closed");
    }

    private void awaitInFlight(UdpSocket socket) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (socket.loop.stats().inFlight() == 0) {
            assertThat(System.nanoTime()).as("receive in flight within 10 s").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    void ipv4DestinationsFromAnIpv6Socket() throws Exception {
        try (UdpSocket v6 = UdpSocket.open(uring, StandardProtocolFamily.INET6); UdpSocket v4 = UdpSocket.bind(uring, V4)) {
            v6.send(bytes("mapped"), v4.localAddress());
            Datagram d = v4.receive(arena.allocate(16));
            assertThat(d.length()).isEqualTo(6);
            assertThat(d.sender().getPort()).isEqualTo(v6.localAddress().getPort());
        }
    }

    /** As the JDK's DatagramChannel reports it: an IPv4 sender to a dual-stack socket is IPv4, not IPv4-mapped. */
    @Test
    void anIpv4SenderToADualStackSocketIsAnIpv4Address() throws Exception {
        try (UdpSocket v6 = UdpSocket.bind(uring, new InetSocketAddress("::", 0)); UdpSocket v4 = UdpSocket.bind(uring, V4)) {
            v4.send(bytes("hi"), new InetSocketAddress("127.0.0.1", v6.localAddress().getPort()));
            Datagram d = v6.receive(arena.allocate(16));
            assertThat(d.sender()).isEqualTo(v4.localAddress()).hasToString(v4.localAddress().toString());
            v6.send(bytes("back"), d.sender());
            assertThat(v4.receive(arena.allocate(16)).length()).isEqualTo(4);
        }
    }
}
