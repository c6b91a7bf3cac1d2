package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A connected TCP socket whose reads and writes are io_uring requests, in the blocking style (the caller parks;
 * a virtual thread unmounts) and the future style. Every request goes to one event loop, chosen when the socket
 * is created.
 *
 * <p>Errors are the JDK's exceptions ({@link java.net.ConnectException}, {@code SocketException("Connection
 * reset")}, {@link java.net.SocketTimeoutException}) with the errno as the cause. {@link #close()} from another
 * thread cancels the requests in flight on this socket; they end with {@code SocketException("Socket closed")}.
 */
public final class TcpSocket extends LoopSocket {
    TcpSocket(EventLoop loop, int fd) {
        super(loop, fd);
    }

    /** Connects to {@code address}, waiting as long as the kernel does (about two minutes for a silent host). */
    public static TcpSocket connect(Uring uring, InetSocketAddress address) throws IOException {
        return connect(uring, address, null);
    }

    /**
     * Connects to {@code address}; with a {@code timeout}, the connect is linked to a link timeout, so the kernel
     * itself cancels it when time is up ({@link java.net.SocketTimeoutException}).
     */
    public static TcpSocket connect(Uring uring, InetSocketAddress address, Duration timeout) throws IOException {
        EventLoop loop = uring.loop();
        int fd = newSocket(address);
        try {
            int result;
            if (timeout == null) {
                result = resultOf(loop, NetOps.connect(fd, address));
            } else {
                ChainResult r = loop.chain(NetOps.connect(fd, address)).timeout(timeout).call();
                result = r.result(0);
                if (NetErrors.timedOut(r)) {
                    throw NetErrors.connectTimedOut(timeout.toMillis());
                }
            }
            if (result < 0) {
                throw NetErrors.of("connect " + address, result);
            }
            return new TcpSocket(loop, fd);
        } catch (IOException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    /** Connects without blocking the caller; the future fails with the same exceptions as {@link #connect}. */
    public static CompletableFuture<TcpSocket> connectAsync(Uring uring, InetSocketAddress address) {
        EventLoop loop = uring.loop();
        int fd;
        try {
            fd = newSocket(address);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<TcpSocket> socket = new CompletableFuture<>();
        loop.submit(NetOps.connect(fd, address), new io.uring4j.runtime.CompletionHandler() {
            @Override
            public void complete(int result, int flags) {
                if (result < 0) {
                    LibC.close(fd);
                    socket.completeExceptionally(NetErrors.of("connect " + address, result));
                } else {
                    socket.complete(new TcpSocket(loop, fd));
                }
            }

            @Override
            public void failed(Throwable cause) {
                LibC.close(fd);
                socket.completeExceptionally(cause);
            }
        });
        return socket;
    }

    /** A blocking call's result with failures as {@code -errno}, the form a chain step reports. */
    static int resultOf(EventLoop loop, Op op) throws IOException {
        try {
            return loop.call(op);
        } catch (ErrnoException e) {
            return -e.errno();
        }
    }

    private static int newSocket(InetSocketAddress address) throws IOException {
        int fd = Sockets.socket(SocketAddresses.family(address), Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NetErrors.of("socket", fd);
        }
        return fd;
    }

    /** Reads into {@code buffer} (native memory): the byte count, or -1 at end of stream. Blocks until data. */
    public int read(MemorySegment buffer) throws IOException {
        if (buffer.byteSize() == 0) {
            return 0;
        }
        int n = call(NetOps.recv(fd, buffer), "recv");
        return n == 0 ? -1 : n;
    }

    /** {@link #read} without blocking: the byte count, or -1 at end of stream. */
    public CompletableFuture<Integer> readAsync(MemorySegment buffer) {
        return async(NetOps.recv(fd, buffer), "recv").thenApply(n -> n == 0 ? -1 : n);
    }

    /** Writes all of {@code buffer} (native memory), looping over short sends. */
    public void write(MemorySegment buffer) throws IOException {
        writeAll(buffer, false);
    }

    /** One send of {@code buffer}: the future completes with the bytes the kernel took (maybe fewer). */
    public CompletableFuture<Integer> writeAsync(MemorySegment buffer) {
        return async(NetOps.send(fd, buffer), "send");
    }

    /**
     * {@link #write} with zero-copy sends ({@link NetOps#sendZc}; kernel 6.0, else {@code SEND_ZC: EINVAL}): each
     * returns once the kernel's notification says the buffer is no longer read, so {@code buffer} may be reused
     * as soon as this returns. For large buffers (hundreds of KiB and up) on real NICs.
     */
    public void writeZeroCopy(MemorySegment buffer) throws IOException {
        writeAll(buffer, true);
    }

    private void writeAll(MemorySegment buffer, boolean zeroCopy) throws IOException {
        for (long done = 0; done < buffer.byteSize(); ) {
            MemorySegment rest = buffer.asSlice(done);
            done += zeroCopy ? call(NetOps.sendZc(fd, rest), "send_zc") : call(NetOps.send(fd, rest), "send");
        }
    }

    /** One zero-copy send of {@code buffer}: completes, with the bytes sent, after the kernel's notification. */
    public CompletableFuture<Integer> writeZeroCopyAsync(MemorySegment buffer) {
        return async(NetOps.sendZc(fd, buffer), "send_zc");
    }

    /** Half-close: the peer reads end of stream; this side can still read. */
    public void shutdownOutput() throws IOException {
        call(NetOps.shutdown(fd, Sockets.SHUT_WR), "shutdown");
    }

    /** Further reads see end of stream. */
    public void shutdownInput() throws IOException {
        call(NetOps.shutdown(fd, Sockets.SHUT_RD), "shutdown");
    }

    public void setNoDelay(boolean on) throws IOException {
        SocketOptions.noDelay(fd, on);
    }

    public void setKeepAlive(boolean on) throws IOException {
        SocketOptions.keepAlive(fd, on);
    }

    public InetSocketAddress remoteAddress() throws IOException {
        return name(fd, false);
    }

    static InetSocketAddress name(int fd, boolean local) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            int ret = local ? Sockets.getsockname(fd, sa) : Sockets.getpeername(fd, sa);
            if (ret < 0) {
                throw NetErrors.of(local ? "getsockname" : "getpeername", ret);
            }
            return SocketAddresses.read(sa);
        }
    }
}
