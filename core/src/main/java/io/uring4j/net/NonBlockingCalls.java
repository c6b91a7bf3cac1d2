package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ClosedChannelException;

/**
 * The calls of the drop-in channels in non-blocking mode: plain non-blocking system calls on the socket or pipe (a ring
 * round trip would only add latency to a call that never waits). Each holds the fd for its duration (a close
 * meanwhile waits for it). One that finds the socket not ready says so to the channel's {@link Readiness} and
 * marks the reports its selector has not reaped yet as stale ({@link UringSelectionKey#stale}): both the
 * readiness word and the selector's CQE position are read before the call, so a report of anything after it
 * counts.
 */
final class NonBlockingCalls {
    /** The call would have blocked: nothing was done. */
    static final int WOULD_BLOCK = Integer.MIN_VALUE;
    /**
     * What "would block" also disproves: a pending error or a hang-up would have been the call's answer instead
     * (a fresh unconnected socket polls as hung up, and must not stay so once it connects).
     */
    private static final int NOT_FAILED = OpFlags.Poll.POLLERR | OpFlags.Poll.POLLHUP;

    private NonBlockingCalls() {
    }

    /** recv without waiting: bytes received (0: end of stream), {@link #WOULD_BLOCK}, or {@code -errno}. */
    static int recv(SelectorLink link, MemorySegment into) throws ClosedChannelException {
        return attempt(link, RECV, into, Errno.EAGAIN, 0, OpFlags.Poll.POLLIN);
    }

    /**
     * send without waiting (nor SIGPIPE): bytes sent, {@link #WOULD_BLOCK}, or {@code -errno}. A short send means
     * the socket buffer is full: the socket is no longer writable.
     */
    static int send(SelectorLink link, MemorySegment from) throws ClosedChannelException {
        return attempt(link, SEND, from, Errno.EAGAIN, from.byteSize(), OpFlags.Poll.POLLOUT);
    }

    /** accept4 on a non-blocking listener: the new (blocking) fd, {@link #WOULD_BLOCK}, or {@code -errno}. */
    static int accept(SelectorLink link) throws ClosedChannelException {
        return attempt(link, ACCEPT, null, Errno.EAGAIN, 0, OpFlags.Poll.POLLIN);
    }

    /**
     * connect on a non-blocking socket: 0 (connected), {@link #WOULD_BLOCK} (in progress) or {@code -errno}. In
     * progress, the socket is not writable (an unconnected one polls as writable and hung up until then).
     */
    static int connect(SelectorLink link, MemorySegment sockaddr) throws ClosedChannelException {
        return attempt(link, CONNECT, sockaddr, Errno.EINPROGRESS, 0, OpFlags.Poll.POLLOUT);
    }

    /** recvmsg of one datagram without waiting: its length, {@link #WOULD_BLOCK}, or {@code -errno}. */
    static int recvmsg(SelectorLink link, MemorySegment msghdr) throws ClosedChannelException {
        return attempt(link, RECVMSG, msghdr, Errno.EAGAIN, 0, OpFlags.Poll.POLLIN);
    }

    /** sendmsg of one datagram without waiting (nor SIGPIPE): its length, {@link #WOULD_BLOCK}, or {@code -errno}. */
    static int sendmsg(SelectorLink link, MemorySegment msghdr) throws ClosedChannelException {
        return attempt(link, SENDMSG, msghdr, Errno.EAGAIN, 0, OpFlags.Poll.POLLOUT);
    }

    /** read of a non-blocking pipe: bytes read (0: end of stream), {@link #WOULD_BLOCK}, or {@code -errno}. */
    static int read(SelectorLink link, MemorySegment into) throws ClosedChannelException {
        return attempt(link, READ, into, Errno.EAGAIN, 0, OpFlags.Poll.POLLIN);
    }

    /**
     * write of a non-blocking pipe: bytes written (fewer than all: the pipe is full), {@link #WOULD_BLOCK}, or
     * {@code -errno}.
     */
    static int write(SelectorLink link, MemorySegment from) throws ClosedChannelException {
        return attempt(link, WRITE, from, Errno.EAGAIN, from.byteSize(), OpFlags.Poll.POLLOUT);
    }

    /** A system call on a socket with one memory argument; none of them captures anything, so none allocates. */
    @FunctionalInterface
    private interface SocketCall {
        int on(int fd, MemorySegment memory);
    }

    private static final SocketCall RECV = (fd, into) -> Sockets.recv(fd, into, Sockets.MSG_DONTWAIT);
    private static final SocketCall SEND =
            (fd, from) -> Sockets.send(fd, from, Sockets.MSG_DONTWAIT | Sockets.MSG_NOSIGNAL);
    private static final SocketCall ACCEPT = (fd, unused) -> Sockets.accept4(fd, Sockets.SOCK_CLOEXEC);
    private static final SocketCall CONNECT = Sockets::connect;
    private static final SocketCall RECVMSG = (fd, msghdr) -> Sockets.recvmsg(fd, msghdr, Sockets.MSG_DONTWAIT);
    private static final SocketCall SENDMSG =
            (fd, msghdr) -> Sockets.sendmsg(fd, msghdr, Sockets.MSG_DONTWAIT | Sockets.MSG_NOSIGNAL);
    // A pipe's O_NONBLOCK is set while its channel is in non-blocking mode: a pipe takes no MSG_DONTWAIT.
    private static final SocketCall READ = (fd, into) -> (int) LibC.read(fd, into);
    private static final SocketCall WRITE = (fd, from) -> (int) LibC.write(fd, from);

    /**
     * One call on the socket, holding its fd: its result — or, when it fails with {@code notReadyErrno} or moves
     * fewer than {@code wanted} bytes (a short send), that said to the channel's readiness and its key, and
     * {@link #WOULD_BLOCK} in place of the error (a short send keeps its count).
     */
    private static int attempt(SelectorLink link, SocketCall call, MemorySegment memory, int notReadyErrno,
                               long wanted, int events) throws ClosedChannelException {
        long epoch = link.readiness.snapshot();
        UringSelectionKey key = link.primary();
        long position = key == null ? 0 : key.position();
        int fd = link.guard.acquire();
        int n;
        try {
            n = call.on(fd, memory);
        } finally {
            link.guard.release();
        }
        if (n != -notReadyErrno && (n < 0 || n >= wanted)) {
            return n;
        }
        int wouldBlock = notReady(link, epoch, key, position, events);
        return n < 0 ? wouldBlock : n;
    }

    /**
     * Where a connect in progress stands: 0 connected, {@link #WOULD_BLOCK} still in progress, or the connect's
     * {@code -errno} (SO_ERROR).
     */
    static int connectState(SelectorLink link) throws IOException {
        int failed = link.takeConnectFailure();
        if (failed != 0) {
            return failed;
        }
        long epoch = link.readiness.snapshot();
        UringSelectionKey key = link.primary();
        long position = key == null ? 0 : key.position();
        int fd = link.guard.acquire();
        try (Arena arena = Arena.ofConfined()) {
            int error = SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_ERROR);
            if (error != 0) {
                return -error;
            }
            int peer = Sockets.getpeername(fd, arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8));
            if (peer == -Errno.ENOTCONN) {
                return notReady(link, epoch, key, position, OpFlags.Poll.POLLOUT);
            }
            return Math.min(peer, 0);
        } finally {
            link.guard.release();
        }
    }

    private static int notReady(SelectorLink link, long epoch, UringSelectionKey key, long position, int events) {
        link.readiness.clear(epoch, events | NOT_FAILED);
        if (key != null) {
            key.stale(events, position);
        }
        return WOULD_BLOCK;
    }
}
