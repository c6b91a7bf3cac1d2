package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A listening TCP socket whose accepts are io_uring requests (blocking or future style). socket, bind and listen
 * are system calls: they never block, and IORING_OP_BIND/LISTEN (6.11) would only add a round trip.
 * SO_REUSEADDR is always set, as the JDK's ServerSocketChannel does, so a restarted server can rebind at once.
 * Accepted sockets use the listener's loop.
 */
public final class TcpListener extends LoopSocket {
    private TcpListener(EventLoop loop, int fd) {
        super(loop, fd);
    }

    /** Listens on {@code address} (port 0: an ephemeral port, see {@link #localAddress()}). */
    public static TcpListener bind(Uring uring, InetSocketAddress address, int backlog) throws IOException {
        return bind(uring, address, backlog, false);
    }

    /**
     * Listens on {@code address}; with {@code reusePort}, several listeners (one per loop, say) may share the port
     * and the kernel spreads connections between them.
     */
    public static TcpListener bind(Uring uring, InetSocketAddress address, int backlog, boolean reusePort)
            throws IOException {
        return new TcpListener(uring.loop(), listen(address, backlog, reusePort));
    }

    /** socket + SO_REUSEADDR (+ SO_REUSEPORT) + bind + listen: the listening fd. */
    static int listen(InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
        int fd = Sockets.socket(SocketAddresses.family(address), Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NetErrors.of("socket", fd);
        }
        try (Arena arena = Arena.ofConfined()) {
            SocketOptions.reuseAddress(fd, true);
            if (reusePort) {
                SocketOptions.reusePort(fd, true);
            }
            MemorySegment sa = arena.allocate(SocketAddresses.SOCKADDR_IN6_SIZE, 8);
            int len = SocketAddresses.write(address, sa);
            int ret = Sockets.bind(fd, sa.asSlice(0, len));
            if (ret < 0) {
                throw NetErrors.of("bind " + address, ret);
            }
            ret = Sockets.listen(fd, backlog);
            if (ret < 0) {
                throw NetErrors.of("listen", ret);
            }
            return fd;
        } catch (IOException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    /** Waits for a connection. After {@link #close()}: {@code SocketException("Socket closed")}. */
    public TcpSocket accept() throws IOException {
        return new TcpSocket(loop, call(NetOps.accept(fd), "accept"));
    }

    /** Accepts without blocking the caller. */
    public CompletableFuture<TcpSocket> acceptAsync() {
        return async(NetOps.accept(fd), "accept").thenApply(result -> new TcpSocket(loop, result));
    }
}
