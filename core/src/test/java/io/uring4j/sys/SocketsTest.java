package io.uring4j.sys;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sys-layer socket calls ({@link Sockets}) against the real kernel, loopback only: the building blocks the
 * io_uring network tests set their sockets up with, so a failure here is not blamed on the ring.
 */
class SocketsTest {
    private final Deque<Integer> open = new ArrayDeque<>();

    @AfterEach
    void closeEverything() {
        while (!open.isEmpty()) {
            assertThat(LibC.close(open.pop())).isZero();
        }
    }

    private int track(int fd) {
        assertThat(fd).as("fd (negative: -errno)").isGreaterThanOrEqualTo(0);
        open.push(fd);
        return fd;
    }

    private int listener(Arena arena) {
        int fd = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0));
        assertThat(Sockets.bind(fd, Sockets.loopback(arena, 0))).isZero();
        assertThat(Sockets.listen(fd, 16)).isZero();
        return fd;
    }

    @Test
    void loopbackAddressIsLaidOutInNetworkOrder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = Sockets.loopback(arena, 0x1f90);     // 8080

            assertThat(sa.byteSize()).isEqualTo(Sockets.SOCKADDR_IN_SIZE);
            assertThat(Sockets.family(sa)).isEqualTo(Sockets.AF_INET);
            // The kernel reads sin_port and sin_addr big-endian, whatever the host order.
            assertThat(sa.asSlice(2, 6).toArray(JAVA_BYTE)).containsExactly(0x1f, (byte) 0x90, 127, 0, 0, 1);
            assertThat(sa.asSlice(8, 8).toArray(JAVA_BYTE)).containsOnly((byte) 0);
            assertThat(Sockets.port(sa)).isEqualTo(8080);
            assertThat(Sockets.ipv4Address(sa)).isEqualTo(Sockets.INADDR_LOOPBACK);
        }
    }

    @Test
    void bindToPortZeroPicksAnEphemeralPortThatGetsocknameReports() {
        try (Arena arena = Arena.ofConfined()) {
            int fd = listener(arena);
            MemorySegment local = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);

            assertThat(Sockets.getsockname(fd, local)).isEqualTo((int) Sockets.SOCKADDR_IN_SIZE);
            assertThat(Sockets.family(local)).isEqualTo(Sockets.AF_INET);
            assertThat(Sockets.ipv4Address(local)).isEqualTo(Sockets.INADDR_LOOPBACK);
            assertThat(Sockets.port(local)).isPositive();
            assertThat(Sockets.localPort(fd)).isEqualTo(Sockets.port(local));
        }
    }

    @Test
    void connectAndAccept4GiveAConnectedPairThatCarriesBytesBothWays() {
        try (Arena arena = Arena.ofConfined()) {
            int listener = listener(arena);
            int client = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM, 0));
            assertThat(Sockets.connect(client, Sockets.loopback(arena, Sockets.localPort(listener)))).isZero();

            MemorySegment peer = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            MemorySegment peerLen = arena.allocateFrom(JAVA_INT, (int) peer.byteSize());
            int server = track(Sockets.accept4(listener, peer, peerLen, Sockets.SOCK_CLOEXEC));

            // accept4 reports the client's own address.
            assertThat(peerLen.get(JAVA_INT, 0)).isEqualTo((int) Sockets.SOCKADDR_IN_SIZE);
            assertThat(Sockets.port(peer)).isEqualTo(Sockets.localPort(client));
            assertThat(transfer(arena, client, server, "ping")).isEqualTo("ping");
            assertThat(transfer(arena, server, client, "pong")).isEqualTo("pong");
        }
    }

    @Test
    void shutdownForWritingGivesThePeerEndOfFile() {
        try (Arena arena = Arena.ofConfined()) {
            int[] pair = new int[2];
            assertThat(Sockets.socketpair(Sockets.AF_UNIX, Sockets.SOCK_STREAM, 0, pair)).isZero();
            track(pair[0]);
            track(pair[1]);

            assertThat(transfer(arena, pair[0], pair[1], "last words")).isEqualTo("last words");
            assertThat(Sockets.shutdown(pair[0], Sockets.SHUT_WR)).isZero();
            assertThat(LibC.read(pair[1], arena.allocate(16))).isZero();
            // The other direction is still open.
            assertThat(transfer(arena, pair[1], pair[0], "reply")).isEqualTo("reply");
        }
    }

    @Test
    void socketOptionsRoundTrip() {
        try (Arena arena = Arena.ofConfined()) {
            int fd = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM, Sockets.IPPROTO_TCP));
            MemorySegment value = arena.allocate(JAVA_INT);

            assertThat(Sockets.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, value)).isEqualTo(4);
            assertThat(value.get(JAVA_INT, 0)).isZero();
            assertThat(Sockets.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1)).isZero();
            assertThat(Sockets.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, value)).isEqualTo(4);
            assertThat(value.get(JAVA_INT, 0)).isEqualTo(1);

            assertThat(Sockets.setsockopt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1)).isZero();
            assertThat(Sockets.getsockopt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, value)).isEqualTo(4);
            assertThat(value.get(JAVA_INT, 0)).isEqualTo(1);

            assertThat(Sockets.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_TYPE, value)).isEqualTo(4);
            assertThat(value.get(JAVA_INT, 0)).isEqualTo(Sockets.SOCK_STREAM);
        }
    }

    @Test
    void nonblockingAndCloexecTypeFlagsAreApplied() {
        int fd = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_NONBLOCK, 0));
        assertThat(Sockets.listen(fd, 1)).isZero();       // listen on an unbound socket binds an ephemeral port
        // A non-blocking accept with nobody connecting fails at once instead of blocking.
        assertThat(Sockets.accept4(fd, 0)).isEqualTo(-Errno.EAGAIN);
    }

    @Test
    void failuresReturnNegativeErrno() {
        try (Arena arena = Arena.ofConfined()) {
            assertThat(Sockets.socket(12345, Sockets.SOCK_STREAM, 0)).isEqualTo(-Errno.EAFNOSUPPORT);

            int listener = listener(arena);
            int port = Sockets.localPort(listener);
            int other = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM, 0));
            assertThat(Sockets.bind(other, Sockets.loopback(arena, port))).isEqualTo(-Errno.EADDRINUSE);
            assertThat(Sockets.accept4(other, 0)).as("accept on a socket that is not listening")
                    .isEqualTo(-Errno.EINVAL);

            // A bound but not listening port refuses connections: loopback answers with an immediate RST.
            int bound = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM, 0));
            assertThat(Sockets.bind(bound, Sockets.loopback(arena, 0))).isZero();
            assertThat(Sockets.connect(other, Sockets.loopback(arena, Sockets.localPort(bound))))
                    .isEqualTo(-Errno.ECONNREFUSED);

            int udp = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM, 0));
            assertThat(Sockets.listen(udp, 1)).isEqualTo(-Errno.EOPNOTSUPP);

            int[] pipe = new int[2];
            assertThat(LibC.pipe2(pipe, LibC.O_CLOEXEC)).isZero();
            track(pipe[0]);
            track(pipe[1]);
            assertThat(Sockets.setsockopt(pipe[0], Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1))
                    .isEqualTo(-Errno.ENOTSOCK);
            assertThat(Sockets.shutdown(pipe[0], Sockets.SHUT_RDWR)).isEqualTo(-Errno.ENOTSOCK);
            assertThat(Sockets.localPort(-1)).isEqualTo(-Errno.EBADF);
        }
    }

    @Test
    void iovecsDescribeEachBuffer() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(10);
            MemorySegment b = arena.allocate(20);
            MemorySegment iov = Sockets.iovecs(arena, a, b);

            assertThat(iov.byteSize()).isEqualTo(2 * Sockets.IOVEC_SIZE);
            assertThat(iov.get(JAVA_LONG, 0)).isEqualTo(a.address());
            assertThat(iov.get(JAVA_LONG, 8)).isEqualTo(10);
            assertThat(iov.get(JAVA_LONG, 16)).isEqualTo(b.address());
            assertThat(iov.get(JAVA_LONG, 24)).isEqualTo(20);
        }
    }

    @Test
    void msghdrPointsAtItsNameAndIovecs() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = Sockets.loopback(arena, 7);
            MemorySegment msg = Sockets.msghdr(arena, name, arena.allocate(10), arena.allocate(20));

            assertThat(msg.byteSize()).isEqualTo(Sockets.MSGHDR_SIZE);
            assertThat(msg.get(JAVA_LONG, 0)).isEqualTo(name.address());
            assertThat(Sockets.msgNameLength(msg)).isEqualTo(16);
            assertThat(msg.get(JAVA_LONG, 16)).as("msg_iov").isNotZero();
            assertThat(msg.get(JAVA_LONG, 24)).as("msg_iovlen").isEqualTo(2);
            assertThat(msg.get(JAVA_LONG, 32)).as("msg_control").isZero();
            assertThat(Sockets.msgFlags(msg)).isZero();

            MemorySegment anonymous = Sockets.msghdr(arena, MemorySegment.NULL, arena.allocate(1));
            assertThat(anonymous.get(JAVA_LONG, 0)).isZero();
            assertThat(Sockets.msgNameLength(anonymous)).isZero();
        }
    }

    /** Writes {@code text} on {@code from} and reads it back on {@code to} (small: one segment on loopback). */
    private static String transfer(Arena arena, int from, int to, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        MemorySegment out = arena.allocateFrom(JAVA_BYTE, bytes);
        assertThat(LibC.write(from, out)).isEqualTo(bytes.length);
        MemorySegment in = arena.allocate(64);
        long n = LibC.read(to, in);
        assertThat(n).isPositive();
        return new String(in.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }
}
