package io.uring4j.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The BSD socket calls (socket, bind, listen, connect, accept4, ...) and the few structures they take
 * ({@code struct sockaddr_in}, {@code struct iovec}, {@code struct msghdr}), for setting up sockets around
 * io_uring requests and for the network layer built on the ring.
 *
 * <p>Results follow the {@code -errno} convention of {@link LibC}: {@code >= 0} on success. None of the handles
 * is {@code critical}: accept4 and connect block on blocking sockets.
 *
 * <p>Addresses are native segments; a {@code sockaddr} argument's length is its {@code byteSize()}. Only IPv4
 * has helpers ({@link #loopback(Arena, int)}), which is what the tests and loopback servers need.
 */
public final class Sockets {
    // ---- address families, socket types, protocols ------------------------------------------------------

    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    /** Reliable, connected, message boundaries kept (AF_UNIX): a datagram socket that also signals EOF. */
    public static final int SOCK_SEQPACKET = 5;
    /** OR'ed into a socket type: the new socket is non-blocking. */
    public static final int SOCK_NONBLOCK = LibC.O_NONBLOCK;
    /** OR'ed into a socket type (or accept4 flags): close-on-exec. */
    public static final int SOCK_CLOEXEC = LibC.O_CLOEXEC;

    public static final int IPPROTO_IP = 0;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;

    // ---- socket options -------------------------------------------------------------------------------

    public static final int SOL_SOCKET = 1;
    public static final int SO_REUSEADDR = 2;
    public static final int SO_TYPE = 3;
    /** The socket's address family (AF_INET, AF_INET6, AF_UNIX): read-only. */
    public static final int SO_DOMAIN = 39;
    public static final int SO_ERROR = 4;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_KEEPALIVE = 9;
    /** {@code struct linger {int l_onoff; int l_linger;}}: with onoff 1 and linger 0, close sends RST. */
    public static final int SO_LINGER = 13;
    public static final int SO_REUSEPORT = 15;
    /** Lets send(MSG_ZEROCOPY) pin pages instead of copying. */
    public static final int SO_ZEROCOPY = 60;
    public static final int TCP_NODELAY = 1;
    /** Idle seconds before the first keep-alive probe. */
    public static final int TCP_KEEPIDLE = 4;
    /** Seconds between keep-alive probes. */
    public static final int TCP_KEEPINTVL = 5;
    /** Unanswered keep-alive probes before the connection is dropped. */
    public static final int TCP_KEEPCNT = 6;
    /** Acknowledge at once rather than delayed (the kernel clears it again as it sees fit). */
    public static final int TCP_QUICKACK = 12;

    // ---- send/recv flags ------------------------------------------------------------------------------

    public static final int MSG_PEEK = 0x2;
    /** recvmsg output: the datagram was longer than the buffer. */
    public static final int MSG_TRUNC = 0x20;
    public static final int MSG_DONTWAIT = 0x40;
    public static final int MSG_WAITALL = 0x100;
    /** No SIGPIPE when the peer has gone; the call fails with EPIPE instead. */
    public static final int MSG_NOSIGNAL = 0x4000;
    public static final int MSG_ZEROCOPY = 0x4000000;

    // ---- shutdown(how) --------------------------------------------------------------------------------

    public static final int SHUT_RD = 0;
    public static final int SHUT_WR = 1;
    public static final int SHUT_RDWR = 2;

    // ---- structures -----------------------------------------------------------------------------------

    /**
     * {@code struct sockaddr_in} (16 bytes): sin_family u16 (host order) @0, sin_port u16 (network order) @2,
     * sin_addr u32 (network order) @4, zero padding @8.
     */
    public static final long SOCKADDR_IN_SIZE = 16;
    /** {@code struct sockaddr_storage}: large enough for any address family. */
    public static final long SOCKADDR_STORAGE_SIZE = 128;
    /** {@code struct iovec} (16 bytes): iov_base @0, iov_len @8. */
    public static final long IOVEC_SIZE = 16;
    /**
     * {@code struct msghdr} (56 bytes): msg_name @0, msg_namelen u32 @8, msg_iov @16, msg_iovlen @24,
     * msg_control @32, msg_controllen @40, msg_flags s32 @48.
     */
    public static final long MSGHDR_SIZE = 56;
    public static final long MSGHDR_NAMELEN = 8;
    public static final long MSGHDR_FLAGS = 48;

    /** 127.0.0.1 as a host-order int. */
    public static final int INADDR_LOOPBACK = 0x7f00_0001;

    /** Ports and IPv4 addresses are stored in network byte order (big-endian). */
    private static final ValueLayout.OfShort NET_U16 = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt NET_U32 = JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /*
     * All but fcntl (variadic) linked with one shape, Native.LONGS, so the linker generates one stub for them.
     * Segments go by address; each call fences the segments it was given, so that none is freed meanwhile.
     */
    private static final MethodHandle SOCKET = longs("socket");
    private static final MethodHandle SOCKETPAIR = longs("socketpair");
    private static final MethodHandle BIND = longs("bind");
    private static final MethodHandle LISTEN = longs("listen");
    private static final MethodHandle CONNECT = longs("connect");
    private static final MethodHandle ACCEPT4 = longs("accept4");
    private static final MethodHandle GETSOCKNAME = longs("getsockname");
    private static final MethodHandle GETPEERNAME = longs("getpeername");
    private static final MethodHandle SETSOCKOPT = longs("setsockopt");
    private static final MethodHandle GETSOCKOPT = longs("getsockopt");
    private static final MethodHandle SHUTDOWN = longs("shutdown");
    private static final MethodHandle RECV = longs("recv");
    private static final MethodHandle SEND = longs("send");
    private static final MethodHandle RECVMSG = longs("recvmsg");
    private static final MethodHandle SENDMSG = longs("sendmsg");
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;

    /** Variadic, so of a shape of its own: linked on first use (a stub costs a starting runtime milliseconds). */
    private static final class Fcntl {
        static final MethodHandle FCNTL = Native.libcWithErrno("fcntl",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT),
                java.lang.foreign.Linker.Option.firstVariadicArg(2));
    }

    private Sockets() {
    }

    private static MethodHandle longs(String name) {
        return Native.libcWithErrno(name, Native.LONGS);
    }

    // ---- calls ----------------------------------------------------------------------------------------

    /** {@code socket(domain, type, protocol)}: the new fd, or {@code -errno}. */
    public static int socket(int domain, int type, int protocol) {
        return Native.callInt(SOCKET, domain, type, protocol, 0, 0, 0);
    }

    /**
     * {@code socketpair(domain, type, protocol, fds)}: fills {@code fds[0]} and {@code fds[1]}; 0 or {@code -errno}.
     */
    public static int socketpair(int domain, int type, int protocol, int[] fds) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pair = arena.allocate(JAVA_INT, 2);
            int ret = Native.callInt(SOCKETPAIR, domain, type, protocol, pair.address(), 0, 0);
            if (ret == 0) {
                fds[0] = pair.getAtIndex(JAVA_INT, 0);
                fds[1] = pair.getAtIndex(JAVA_INT, 1);
            }
            return ret;
        }
    }

    /** {@code bind(fd, addr, addr.byteSize())}: 0 or {@code -errno}. */
    public static int bind(int fd, MemorySegment addr) {
        try {
            return Native.callInt(BIND, fd, addr.address(), socklen(addr), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /** {@code listen(fd, backlog)}: 0 or {@code -errno}. */
    public static int listen(int fd, int backlog) {
        return Native.callInt(LISTEN, fd, backlog, 0, 0, 0, 0);
    }

    /** {@code connect(fd, addr, addr.byteSize())}: 0 or {@code -errno}. Blocks on a blocking socket. */
    public static int connect(int fd, MemorySegment addr) {
        try {
            return Native.callInt(CONNECT, fd, addr.address(), socklen(addr), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /**
     * {@code accept4(fd, addr, addrLen, flags)}: the connected fd, or {@code -errno}. {@code addr} and
     * {@code addrLen} may both be {@link MemorySegment#NULL}; otherwise {@code addrLen} is a socklen_t holding the
     * size of {@code addr} on entry and the peer address length on return. {@code flags}: SOCK_NONBLOCK,
     * SOCK_CLOEXEC.
     */
    public static int accept4(int fd, MemorySegment addr, MemorySegment addrLen, int flags) {
        try {
            return Native.callInt(ACCEPT4, fd, addr.address(), addrLen.address(), flags, 0, 0);
        } finally {
            Reference.reachabilityFence(addr);
            Reference.reachabilityFence(addrLen);
        }
    }

    /** {@code accept4(fd, NULL, NULL, flags)}. */
    public static int accept4(int fd, int flags) {
        return accept4(fd, MemorySegment.NULL, MemorySegment.NULL, flags);
    }

    /**
     * {@code getsockname(fd, addr, &len)} with {@code len = addr.byteSize()}: the length of the local address
     * (which may exceed {@code addr}'s size: then it was truncated), or {@code -errno}.
     */
    public static int getsockname(int fd, MemorySegment addr) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocateFrom(JAVA_INT, socklen(addr));
            int ret = Native.callInt(GETSOCKNAME, fd, addr.address(), len.address(), 0, 0, 0);
            return ret < 0 ? ret : len.get(JAVA_INT, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /**
     * {@code getpeername(fd, addr, &len)} with {@code len = addr.byteSize()}: the peer address's length, or
     * {@code -errno}.
     */
    public static int getpeername(int fd, MemorySegment addr) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocateFrom(JAVA_INT, socklen(addr));
            int ret = Native.callInt(GETPEERNAME, fd, addr.address(), len.address(), 0, 0, 0);
            return ret < 0 ? ret : len.get(JAVA_INT, 0);
        } finally {
            Reference.reachabilityFence(addr);
        }
    }

    /** {@code setsockopt(fd, level, name, &value, sizeof(int))}: 0 or {@code -errno}. */
    public static int setsockopt(int fd, int level, int name, int value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment optval = arena.allocateFrom(JAVA_INT, value);
            return Native.callInt(SETSOCKOPT, fd, level, name, optval.address(), 4, 0);
        }
    }

    /**
     * {@code setsockopt(fd, level, name, optval, optval.byteSize())} for struct-valued options: 0 or {@code -errno}.
     */
    public static int setsockopt(int fd, int level, int name, MemorySegment optval) {
        try {
            return Native.callInt(SETSOCKOPT, fd, level, name, optval.address(), socklen(optval), 0);
        } finally {
            Reference.reachabilityFence(optval);
        }
    }

    /**
     * {@code getsockopt(fd, level, name, optval, &len)} with {@code len = optval.byteSize()}: the option's length,
     * or {@code -errno}.
     */
    public static int getsockopt(int fd, int level, int name, MemorySegment optval) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment len = arena.allocateFrom(JAVA_INT, socklen(optval));
            int ret = Native.callInt(GETSOCKOPT, fd, level, name, optval.address(), len.address(), 0);
            return ret < 0 ? ret : len.get(JAVA_INT, 0);
        } finally {
            Reference.reachabilityFence(optval);
        }
    }

    /** {@code shutdown(fd, how)} with {@link #SHUT_RD}, {@link #SHUT_WR} or {@link #SHUT_RDWR}: 0 or {@code -errno}. */
    public static int shutdown(int fd, int how) {
        return Native.callInt(SHUTDOWN, fd, how, 0, 0, 0, 0);
    }

    /**
     * {@code recv(fd, buf, buf.byteSize(), flags)}: bytes received (0 at end of stream), or {@code -errno} —
     * {@code -EAGAIN} with {@link #MSG_DONTWAIT} when nothing is there. {@code buf} must be native.
     */
    public static int recv(int fd, MemorySegment buf, int flags) {
        try {
            return (int) Native.callLong(RECV, fd, buf.address(), buf.byteSize(), flags, 0, 0);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /** {@code send(fd, buf, buf.byteSize(), flags)}: bytes sent, or {@code -errno}. {@code buf} must be native. */
    public static int send(int fd, MemorySegment buf, int flags) {
        try {
            return (int) Native.callLong(SEND, fd, buf.address(), buf.byteSize(), flags, 0, 0);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * {@code recvmsg(fd, msghdr, flags)}: bytes received, or {@code -errno}; the kernel writes the source's length
     * and the message's flags into the msghdr ({@link #msgNameLength}, {@link #msgFlags}).
     */
    public static int recvmsg(int fd, MemorySegment msghdr, int flags) {
        try {
            return (int) Native.callLong(RECVMSG, fd, msghdr.address(), flags, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(msghdr);
        }
    }

    /** {@code sendmsg(fd, msghdr, flags)}: bytes sent, or {@code -errno}. */
    public static int sendmsg(int fd, MemorySegment msghdr, int flags) {
        try {
            return (int) Native.callLong(SENDMSG, fd, msghdr.address(), flags, 0, 0, 0);
        } finally {
            Reference.reachabilityFence(msghdr);
        }
    }

    /** Sets or clears {@code O_NONBLOCK} on {@code fd} (fcntl F_GETFL/F_SETFL): 0 or {@code -errno}. */
    public static int nonBlocking(int fd, boolean on) {
        MemorySegment state = Native.callState();
        try {
            int flags = (int) Native.result((int) Fcntl.FCNTL.invokeExact(state, fd, F_GETFL, 0), state);
            if (flags < 0) {
                return flags;
            }
            int wanted = on ? flags | SOCK_NONBLOCK : flags & ~SOCK_NONBLOCK;
            return wanted == flags ? 0
                    : (int) Native.result((int) Fcntl.FCNTL.invokeExact(state, fd, F_SETFL, wanted), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static int socklen(MemorySegment segment) {
        long size = segment.byteSize();
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("socket argument of " + size + " bytes exceeds socklen_t");
        }
        return (int) size;
    }

    // ---- IPv4 addresses -------------------------------------------------------------------------------

    /** A {@code struct sockaddr_in} for {@code 127.0.0.1:port} (port 0: let bind pick an ephemeral port). */
    public static MemorySegment loopback(Arena arena, int port) {
        return ipv4(arena, INADDR_LOOPBACK, port);
    }

    /** A {@code struct sockaddr_in} for the host-order IPv4 address {@code address} and {@code port}. */
    public static MemorySegment ipv4(Arena arena, int address, int port) {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        MemorySegment sa = arena.allocate(SOCKADDR_IN_SIZE, 4);      // zeroed: sin_zero stays 0
        sa.set(JAVA_SHORT, 0, (short) AF_INET);
        sa.set(NET_U16, 2, (short) port);
        sa.set(NET_U32, 4, address);
        return sa;
    }

    /** The address family of a {@code struct sockaddr} ({@code sa_family}, host order). */
    public static int family(MemorySegment sockaddr) {
        return sockaddr.get(JAVA_SHORT_UNALIGNED, 0) & 0xffff;
    }

    /** The port of a {@code struct sockaddr_in} (or sockaddr_in6: same offset), converted from network order. */
    public static int port(MemorySegment sockaddr) {
        return sockaddr.get(NET_U16, 2) & 0xffff;
    }

    /** The host-order IPv4 address of a {@code struct sockaddr_in} (0x7f000001 for 127.0.0.1). */
    public static int ipv4Address(MemorySegment sockaddrIn) {
        return sockaddrIn.get(NET_U32, 4);
    }

    /** The local port {@code fd} is bound to (after bind to port 0: the ephemeral port picked), or {@code -errno}. */
    public static int localPort(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SOCKADDR_STORAGE_SIZE, 8);
            int ret = getsockname(fd, sa);
            return ret < 0 ? ret : port(sa);
        }
    }

    // ---- iovec and msghdr -----------------------------------------------------------------------------

    /** An array of {@code struct iovec}, one per buffer (native segments, kept alive by the caller). */
    public static MemorySegment iovecs(Arena arena, MemorySegment... buffers) {
        MemorySegment iov = arena.allocate(IOVEC_SIZE * Math.max(1, buffers.length), 8);
        for (int i = 0; i < buffers.length; i++) {
            if (!buffers[i].isNative()) {
                throw new IllegalArgumentException("heap memory cannot be handed to the kernel: use a native segment");
            }
            iov.set(JAVA_LONG, IOVEC_SIZE * i, buffers[i].address());
            iov.set(JAVA_LONG, IOVEC_SIZE * i + 8, buffers[i].byteSize());
        }
        return iov;
    }

    /**
     * A {@code struct msghdr} over {@code buffers} (its iovec array is allocated in {@code arena} too), with
     * {@code name} as msg_name (a destination for sendmsg, room for the source for recvmsg) or
     * {@link MemorySegment#NULL}. No control data.
     */
    public static MemorySegment msghdr(Arena arena, MemorySegment name, MemorySegment... buffers) {
        MemorySegment msg = arena.allocate(MSGHDR_SIZE, 8);
        msg.set(JAVA_LONG, 0, name.address());
        msg.set(JAVA_INT, MSGHDR_NAMELEN, socklen(name));
        msg.set(JAVA_LONG, 16, iovecs(arena, buffers).address());
        msg.set(JAVA_LONG, 24, buffers.length);
        return msg;
    }

    /** {@code msg_namelen} of a msghdr: after recvmsg, the length of the source address. */
    public static int msgNameLength(MemorySegment msghdr) {
        return msghdr.get(JAVA_INT, MSGHDR_NAMELEN);
    }

    /** {@code msg_flags} of a msghdr: after recvmsg, MSG_TRUNC and friends. */
    public static int msgFlags(MemorySegment msghdr) {
        return msghdr.get(JAVA_INT, MSGHDR_FLAGS);
    }
}
