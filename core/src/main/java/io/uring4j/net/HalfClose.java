package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/** A connected socket's shutdowns, as the JDK's channels keep them: each side once, and shut for good. */
final class HalfClose {
    private volatile boolean inputShut;
    private volatile boolean outputShut;
    /** Blocking sends under way: the ones that may wait on the loop for buffer space. */
    private final AtomicInteger sendsOnLoop = new AtomicInteger();

    boolean inputShut() {
        return inputShut;
    }

    boolean outputShut() {
        return outputShut;
    }

    /** shutdown(SHUT_RD) once; as the JDK's, a reset connection has nothing to shut (ENOTCONN is fine). */
    void shutdownInput(int fd) throws IOException {
        if (!inputShut) {
            shutdown(fd, Sockets.SHUT_RD);
            inputShut = true;
        }
    }

    /**
     * shutdown(SHUT_WR) once, then ends a send waiting for buffer space, as the JDK's shutdownOutput wakes its
     * writer. The kernel retries a TCP send at the shutdown (and fails it EPIPE), but nothing reports a full Unix
     * socket as writable after one, so an engine that waits with epoll (the portable one) would wait for the peer
     * to read. The cancel holds the fd (it names the fd by number) and takes a control slot, so it never waits
     * behind the send it cancels. Best effort — what it cannot cancel has ended or will fail. Only when a send may
     * be waiting on the loop ({@link #sendsOnLoop}): otherwise it would cost every shutdown a request and a wake-up
     * of the loop's thread (a send counted after the shutdown finds the output shut and fails at once).
     */
    void shutdownOutput(int fd, FdGuard guard, EventLoop loop) throws IOException {
        synchronized (this) {
            if (!outputShut) {
                shutdown(fd, Sockets.SHUT_WR);
                outputShut = true;
            }
        }
        if (sendsOnLoop.get() > 0) {
            guard.submitControl(loop, (sqe, scratch) -> sqe.prepRw(Opcode.ASYNC_CANCEL, fd, 0, Opcode.SEND, 0)
                    .opFlags(OpFlags.Cancel.FD | OpFlags.Cancel.OP | OpFlags.Cancel.ALL));
        }
    }

    /** A blocking send begins, which may wait on the loop; pair with {@link #sendEnded}. */
    void sendStarting() {
        sendsOnLoop.incrementAndGet();
    }

    void sendEnded() {
        sendsOnLoop.decrementAndGet();
    }

    /**
     * Whether the output is shut down, once a shutdown under way has finished: the send it fails (EPIPE) may end
     * before {@link #shutdownOutput} has set the flag.
     */
    synchronized boolean outputShutDown() {
        return outputShut;
    }

    private static void shutdown(int fd, int how) throws IOException {
        int ret = Sockets.shutdown(fd, how);
        if (ret < 0 && ret != -Errno.ENOTCONN) {
            throw NetErrors.of("shutdown", ret);
        }
    }
}
