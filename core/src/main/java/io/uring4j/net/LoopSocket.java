package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * What the blocking- and future-style sockets share ({@link TcpSocket}, {@link TcpListener}, {@link UdpSocket}):
 * one descriptor whose requests all go to one loop, their errnos turned into the JDK's exceptions, and the close
 * that first cancels what is in flight on the descriptor.
 */
abstract class LoopSocket implements AutoCloseable {
    final EventLoop loop;
    final int fd;
    /**
     * Every request is a user of the fd from its preparation to its end, so close never closes it under one, and
     * never waits for one still waiting for a slot.
     */
    private final FdGuard guard;
    private volatile boolean closed;

    LoopSocket(EventLoop loop, int fd) {
        this.loop = loop;
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
    }

    /** Runs {@code op} blocking; {@code what} names it in errors ("recv", "sendmsg to /127.0.0.1:9"). */
    final int call(Op op, String what) throws IOException {
        try {
            return loop.call(op, guard, false);
        } catch (ErrnoException e) {
            throw translate(what, e.errno());
        } catch (ClosedChannelException | RejectedExecutionException e) {
            throw (SocketException) NetErrors.closed().initCause(e);
        }
    }

    /**
     * {@link #call} bounded by {@code timeout}: a LINK_TIMEOUT linked to {@code op}, so the kernel itself cancels
     * it when time is up ({@link SocketTimeoutException}); the op keeps its memory until its own CQE regardless.
     */
    final int call(Op op, Duration timeout, String what) throws IOException {
        ChainResult r;
        try {
            r = loop.chain(op).timeout(timeout).guardedBy(guard).call();
        } catch (ClosedChannelException | RejectedExecutionException e) {
            throw (SocketException) NetErrors.closed().initCause(e);
        }
        int result = r.result(0);
        if (result >= 0) {
            return result;
        }
        if (NetErrors.timedOut(r)) {
            throw new SocketTimeoutException(what + " timed out after " + timeout.toMillis() + " ms");
        }
        throw translate(what, -result);
    }

    /** Submits {@code op}; the future fails with the exceptions {@link #call} throws. */
    final CompletableFuture<Integer> async(Op op, String what) {
        if (guard.isClosing()) {
            return CompletableFuture.failedFuture(NetErrors.closed());
        }
        return loop.submitAsync(op, guard).handle((n, t) -> {
            if (t == null) {
                return n;
            }
            Throwable cause = t instanceof CompletionException ? t.getCause() : t;
            throw new CompletionException(switch (cause) {
                case ErrnoException e -> translate(what, e.errno());
                case ClosedChannelException closed -> NetErrors.closed().initCause(closed);
                default -> cause;
            });
        });
    }

    /**
     * A request cut short by close — this socket's, or the runtime's, which cancels everything — is "Socket
     * closed", with the op and errno kept as the cause; anything else is {@link NetErrors#of}.
     */
    private IOException translate(String what, int errno) {
        if (errno == Errno.ECANCELED || closed && errno == Errno.EBADF) {
            return (IOException) NetErrors.closed().initCause(new ErrnoException(what, errno));
        }
        return NetErrors.of(what, -errno);
    }

    /** SO_SNDBUF, in bytes (the kernel doubles it for its bookkeeping). */
    public void setSendBufferSize(int bytes) throws IOException {
        SocketOptions.sendBufferSize(fd, bytes);
    }

    /** SO_RCVBUF, in bytes: for UDP, the datagrams that can wait before the kernel drops new ones. */
    public void setReceiveBufferSize(int bytes) throws IOException {
        SocketOptions.receiveBufferSize(fd, bytes);
    }

    public InetSocketAddress localAddress() throws IOException {
        return TcpSocket.name(fd, true);
    }

    /** The descriptor, for options the class does not wrap ({@link SocketOptions#set}). */
    public int fd() {
        return fd;
    }

    public boolean isOpen() {
        return !closed;
    }

    /**
     * Cancels what is in flight on this socket (those calls throw "Socket closed"), then closes it. Idempotent;
     * works with the caller's interrupt status set, and after the runtime has closed (whose close already
     * cancelled everything).
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        ChannelSockets.close(guard, loop);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd " + fd + (closed ? ", closed" : "") + "]";
    }
}
