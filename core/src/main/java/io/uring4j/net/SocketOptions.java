package io.uring4j.net;

import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The socket options a TCP user sets, on a raw fd: plain setsockopt/getsockopt system calls — they never block,
 * so a ring round trip would only add latency. {@link TcpSocket}, {@link TcpListener} and {@link Connection} expose
 * them as methods; this class is for fds obtained elsewhere.
 */
public final class SocketOptions {
    private SocketOptions() {
    }

    /** TCP_NODELAY: send small segments at once instead of coalescing them (Nagle off). */
    public static void noDelay(int fd, boolean on) throws IOException {
        set(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, on ? 1 : 0, "TCP_NODELAY");
    }

    /** SO_REUSEADDR: bind a listening port that still has connections in TIME_WAIT. */
    public static void reuseAddress(int fd, boolean on) throws IOException {
        set(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR, on ? 1 : 0, "SO_REUSEADDR");
    }

    /** SO_REUSEPORT: several sockets listen on one port, the kernel spreading connections between them. */
    public static void reusePort(int fd, boolean on) throws IOException {
        set(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEPORT, on ? 1 : 0, "SO_REUSEPORT");
    }

    /** SO_KEEPALIVE: probe idle connections so a vanished peer is noticed. */
    public static void keepAlive(int fd, boolean on) throws IOException {
        set(fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE, on ? 1 : 0, "SO_KEEPALIVE");
    }

    /** SO_SNDBUF in bytes (the kernel doubles it for its bookkeeping; {@link #get} reports the doubled value). */
    public static void sendBufferSize(int fd, int bytes) throws IOException {
        set(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, positive(bytes), "SO_SNDBUF");
    }

    /** SO_RCVBUF in bytes (doubled by the kernel, like SO_SNDBUF). */
    public static void receiveBufferSize(int fd, int bytes) throws IOException {
        set(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, positive(bytes), "SO_RCVBUF");
    }

    /**
     * SO_LINGER: {@code seconds >= 0} makes close wait that long for unsent data (0: close at once with a RST);
     * negative turns lingering off.
     */
    public static void linger(int fd, int seconds) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment linger = arena.allocate(8, 4);
            linger.set(JAVA_INT, 0, seconds >= 0 ? 1 : 0);
            linger.set(JAVA_INT, 4, Math.max(seconds, 0));
            int ret = Sockets.setsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_LINGER, linger);
            if (ret < 0) {
                throw NetErrors.of("setsockopt(SO_LINGER)", ret);
            }
        }
    }

    /** SO_LINGER's seconds, or -1 when off. */
    public static int linger(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment linger = arena.allocate(8, 4);
            int ret = Sockets.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_LINGER, linger);
            if (ret < 0) {
                throw NetErrors.of("getsockopt(SO_LINGER)", ret);
            }
            return linger.get(JAVA_INT, 0) == 0 ? -1 : linger.get(JAVA_INT, 4);
        }
    }

    /** An int-valued option, e.g. {@code get(fd, SOL_SOCKET, SO_SNDBUF)}. */
    public static int get(int fd, int level, int name) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_INT);
            int ret = Sockets.getsockopt(fd, level, name, value);
            if (ret < 0) {
                throw NetErrors.of("getsockopt", ret);
            }
            return value.get(JAVA_INT, 0);
        }
    }

    /** Any int-valued option. */
    public static void set(int fd, int level, int name, int value, String what) throws IOException {
        int ret = Sockets.setsockopt(fd, level, name, value);
        if (ret < 0) {
            throw NetErrors.of("setsockopt(" + what + ")", ret);
        }
    }

    private static int positive(int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("buffer size must be positive: " + bytes);
        }
        return bytes;
    }
}
