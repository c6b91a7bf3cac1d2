package io.uring4j.ring;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Loopback sockets for the network tests, and the descriptors to close afterwards: every fd a test opens goes
 * through {@link #track(int)}, and {@link #close()} closes what the test did not close itself. Ports are
 * ephemeral (bind to port 0, then getsockname), so tests never collide with each other or with the machine.
 */
final class NetFixture implements AutoCloseable {
    private static final int SO_RCVTIMEO = 20;
    private final Arena arena;
    private final Deque<Integer> open = new ArrayDeque<>();

    NetFixture(Arena arena) {
        this.arena = arena;
    }

    /** Asserts that {@code fd} is a descriptor (not {@code -errno}) and closes it at the end of the test. */
    int track(int fd) {
        assertThat(fd).as("fd (negative: -errno)").isGreaterThanOrEqualTo(0);
        open.push(fd);
        return fd;
    }

    /** Closes {@code fd} now (to make its peer see EOF, say). */
    void close(int fd) {
        assertThat(open.remove(fd)).as("fd %d is tracked", fd).isTrue();
        assertThat(LibC.close(fd)).isZero();
    }

    @Override
    public void close() {
        while (!open.isEmpty()) {
            LibC.close(open.pop());
        }
    }

    // ---- sockets ---------------------------------------------------------------------------------------

    MemorySegment loopback(int port) {
        return Sockets.loopback(arena, port);
    }

    static int port(int fd) {
        int port = Sockets.localPort(fd);
        assertThat(port).as("local port").isPositive();
        return port;
    }

    /** A TCP socket, not yet bound or connected. */
    int tcpSocket(int typeFlags) {
        return track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC | typeFlags, 0));
    }

    /** A TCP socket listening on 127.0.0.1 at an ephemeral port, with room for {@code backlog} pending connections. */
    int tcpListener(int backlog, int typeFlags) {
        int fd = tcpSocket(typeFlags);
        assertThat(Sockets.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, 1)).isZero();
        assertThat(Sockets.bind(fd, loopback(0))).isZero();
        assertThat(Sockets.listen(fd, backlog)).isZero();
        return fd;
    }

    int tcpListener() {
        return tcpListener(128, 0);
    }

    /**
     * A client connected to {@code listener}. On loopback the handshake completes inside connect(), into the
     * listener's backlog, whether or not anybody accepts yet.
     */
    int connect(int listener) {
        int fd = tcpSocket(0);
        assertThat(Sockets.connect(fd, loopback(port(listener)))).isZero();
        return fd;
    }

    /** A connected TCP pair {client, server}; the listener is closed again. */
    int[] tcpPair() {
        int listener = tcpListener(1, 0);
        int client = connect(listener);
        int server = track(Sockets.accept4(listener, Sockets.SOCK_CLOEXEC));
        close(listener);
        return new int[] {client, server};
    }

    /** A UDP socket bound to 127.0.0.1 at an ephemeral port. */
    int udpSocket() {
        int fd = track(Sockets.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0));
        assertThat(Sockets.bind(fd, loopback(0))).isZero();
        return fd;
    }

    /** Two bound UDP sockets {sender, receiver}, the sender connected to the receiver. */
    int[] udpPair() {
        int receiver = udpSocket();
        int sender = udpSocket();
        assertThat(Sockets.connect(sender, loopback(port(receiver)))).isZero();
        return new int[] {sender, receiver};
    }

    /** {@code socketpair(AF_UNIX, type)}. */
    int[] unixPair(int type) {
        int[] pair = new int[2];
        assertThat(Sockets.socketpair(Sockets.AF_UNIX, type | Sockets.SOCK_CLOEXEC, 0, pair)).isZero();
        track(pair[0]);
        track(pair[1]);
        return pair;
    }

    // ---- data ------------------------------------------------------------------------------------------

    /** Writes all of {@code bytes} to {@code fd} with write(2). */
    void write(int fd, byte[] bytes) {
        assertThat(LibC.write(fd, arena.allocateFrom(JAVA_BYTE, bytes))).isEqualTo(bytes.length);
    }

    void write(int fd, String text) {
        write(fd, text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Writes {@code text} to {@code from} and checks that one read(2) of {@code to} returns exactly it: the two
     * are the ends of one working connection.
     */
    void assertCarries(int from, int to, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        write(from, bytes);
        assertThat(read(to, bytes.length + 16)).as("%d -> %d", from, to).isEqualTo(bytes);
    }

    /**
     * Asserts that {@code fd}'s peer closed the connection: a read returns end of stream, within 10 s
     * (SO_RCVTIMEO), not data or a timeout. (The kernel closes a ring's files in its exit work, a moment after
     * the ring fd's close.)
     */
    void assertEndOfStream(int fd) {
        MemorySegment tenSeconds = arena.allocate(16, 8);       // struct timeval
        tenSeconds.set(JAVA_LONG, 0, 10);
        assertThat(Sockets.setsockopt(fd, Sockets.SOL_SOCKET, SO_RCVTIMEO, tenSeconds)).isZero();
        long n;
        do {
            n = LibC.read(fd, arena.allocate(16));
        } while (n == -Errno.EINTR);        // the JVM's own signals
        assertThat(n).as("read of %d after its peer closed (-11: EAGAIN, timed out)", fd).isZero();
    }

    /** One read(2) of at most {@code max} bytes. */
    byte[] read(int fd, int max) {
        MemorySegment buf = arena.allocate(max);
        long n = LibC.read(fd, buf);
        assertThat(n).as("read (negative: -errno)").isGreaterThanOrEqualTo(0);
        return buf.asSlice(0, n).toArray(JAVA_BYTE);
    }
}
