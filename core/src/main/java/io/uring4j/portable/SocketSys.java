package io.uring4j.portable;

import io.uring4j.sys.ThreadScratch;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.portable.Sys.handle;
import static io.uring4j.sys.Native.callState;
import static io.uring4j.sys.Native.result;
import static io.uring4j.sys.Native.rethrow;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The socket system calls behind the portable engine's socket opcodes, on raw addresses from SQEs, in the
 * kernel's convention ({@code >= 0} or {@code -errno}). {@link Sys} has the plumbing.
 */
final class SocketSys {
    private static final MethodHandle SOCKET = handle("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle CONNECT = handle("connect", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle BIND = handle("bind", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle LISTEN = handle("listen", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle ACCEPT4 = handle("accept4", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SENDTO = handle("sendto", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT,
            JAVA_LONG, JAVA_INT);
    private static final MethodHandle RECV = handle("recv", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SENDMSG = handle("sendmsg", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle RECVMSG = handle("recvmsg", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SHUTDOWN = handle("shutdown", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle GETSOCKOPT = handle("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_LONG, JAVA_LONG);
    /** Per thread: a pollfd for {@link #readyNow}, and an int + socklen_t for {@link #option}. */
    private static final ThreadScratch SCRATCH = new ThreadScratch(16);

    private SocketSys() {
    }

    static int socket(int domain, int type, int protocol) {
        MemorySegment s = callState();
        try {
            return (int) result((int) SOCKET.invokeExact(s, domain, type, protocol), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int connect(int fd, long addr, int len) {
        MemorySegment s = callState();
        try {
            return (int) result((int) CONNECT.invokeExact(s, fd, addr, len), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int bind(int fd, long addr, int len) {
        MemorySegment s = callState();
        try {
            return (int) result((int) BIND.invokeExact(s, fd, addr, len), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int listen(int fd, int backlog) {
        MemorySegment s = callState();
        try {
            return (int) result((int) LISTEN.invokeExact(s, fd, backlog), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int accept4(int fd, long addr, long addrLen, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) ACCEPT4.invokeExact(s, fd, addr, addrLen, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sendto(2): {@code dest} 0 for a plain send. */
    static int send(int fd, long buf, long len, int flags, long dest, int destLen) {
        MemorySegment s = callState();
        try {
            return (int) result((long) SENDTO.invokeExact(s, fd, buf, len, flags, dest, destLen), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int recv(int fd, long buf, long len, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((long) RECV.invokeExact(s, fd, buf, len, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sendmsg(2) or recvmsg(2). */
    static int transferMsg(boolean send, int fd, long msghdr, int flags) {
        MemorySegment s = callState();
        try {
            long ret = send ? (long) SENDMSG.invokeExact(s, fd, msghdr, flags)
                    : (long) RECVMSG.invokeExact(s, fd, msghdr, flags);
            return (int) result(ret, s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int shutdown(int fd, int how) {
        MemorySegment s = callState();
        try {
            return (int) result((int) SHUTDOWN.invokeExact(s, fd, how), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** SO_ERROR: the outcome of a non-blocking connect, 0 or -errno (the kernel's sock_error()). */
    static int soError(int fd) {
        int error = option(fd, io.uring4j.sys.Sockets.SO_ERROR);
        return error < 0 ? error : -error;
    }

    /** Whether {@code fd} is a byte stream (SOCK_STREAM, SOCK_SEQPACKET): MSG_WAITALL retries only there. */
    static boolean isStream(int fd) {
        int type = option(fd, io.uring4j.sys.Sockets.SO_TYPE);
        return type == io.uring4j.sys.Sockets.SOCK_STREAM || type == io.uring4j.sys.Sockets.SOCK_SEQPACKET;
    }

    /** An int SOL_SOCKET option, or -errno. */
    private static int option(int fd, int name) {
        MemorySegment s = callState();
        MemorySegment scratch = SCRATCH.get();
        scratch.set(JAVA_INT, 0, 0);
        scratch.set(JAVA_INT, 4, 4);
        try {
            int ret = (int) result((int) GETSOCKOPT.invokeExact(s, fd, io.uring4j.sys.Sockets.SOL_SOCKET, name,
                    scratch.address(), scratch.address() + 4), s);
            return ret < 0 ? ret : scratch.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * The events of {@code events} that {@code fd} reports right now (poll with a zero timeout: the kernel's
     * vfs_poll before it arms a wait), POLLERR and POLLHUP included; 0 if none, or -errno.
     */
    static int readyNow(int fd, int events) {
        MemorySegment pfd = SCRATCH.get();
        pfd.set(JAVA_INT, 0, fd);
        pfd.set(JAVA_INT, 4, events & 0xffff);      // events, and revents zeroed
        int n = Sys.poll(pfd.address(), 1, 0);
        return n <= 0 ? n : pfd.get(JAVA_SHORT, 6) & 0xffff;
    }
}
