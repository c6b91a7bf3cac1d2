package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What the drop-in channels share: their sockets are of the JDK's families — dual-stack AF_INET6 by default (IPv4
 * peers appear as IPv4-mapped addresses in the kernel and as {@link java.net.Inet4Address} in Java), AF_INET for
 * INET or without IPv6 — and the close that first cancels the requests in flight on the descriptor; their options
 * are {@link ChannelOptions}'.
 */
final class ChannelSockets {
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;

    /**
     * Whether the JDK has IPv6: not under {@code -Djava.net.preferIPv4Stack=true}, which it reads once, at start-up,
     * as this does. Without it the JDK's IP channels are AF_INET sockets, and an INET6 one is refused.
     */
    static final boolean IPV6 = !Boolean.getBoolean("java.net.preferIPv4Stack");

    /** The family of an IP channel opened without one, as the JDK's: INET6 (dual-stack), or INET without IPv6. */
    static final ProtocolFamily IP = IPV6 ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;

    /** The socket family of {@link #IP}'s channels, the asynchronous ones'. */
    static final int IP_DOMAIN = domain(IP);

    /**
     * Where a channel bound to nothing binds: 0.0.0.0, the wildcard of both IP families (an AF_INET6 socket binds
     * it as ::), as the JDK's; not {@code new InetSocketAddress(0)}, which is :: under java.net.preferIPv6Addresses.
     */
    static final InetSocketAddress WILDCARD = new InetSocketAddress(InetAddress.ofLiteral("0.0.0.0"), 0);

    private ChannelSockets() {
    }

    /** As the JDK's channels: INET6 is refused where IPv6 is not available. */
    static void requireAvailable(ProtocolFamily family) {
        if (family == StandardProtocolFamily.INET6 && !IPV6) {
            throw new UnsupportedOperationException("IPv6 not available");
        }
    }

    /** The socket family of a channel of {@code family}, as the JDK's: INET6 is dual-stack AF_INET6. */
    static int domain(ProtocolFamily family) {
        return family == StandardProtocolFamily.UNIX ? Sockets.AF_UNIX
                : family == StandardProtocolFamily.INET6 ? Sockets.AF_INET6 : Sockets.AF_INET;
    }

    /** A new stream socket of {@link #domain(ProtocolFamily)}: TCP, or AF_UNIX. */
    static int open(ProtocolFamily family) throws IOException {
        boolean unix = family == StandardProtocolFamily.UNIX;
        if (!unix && family != StandardProtocolFamily.INET && family != StandardProtocolFamily.INET6) {
            throw new UnsupportedOperationException("Protocol family not supported: " + family);
        }
        requireAvailable(family);
        int domain = domain(family);
        int fd = Sockets.socket(domain, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NetErrors.of("socket", fd);
        }
        if (domain == Sockets.AF_INET6) {
            try {
                SocketOptions.set(fd, IPPROTO_IPV6, IPV6_V6ONLY, 0, "IPV6_V6ONLY");
            } catch (IOException e) {
                LibC.close(fd);
                throw e;
            }
        }
        return fd;
    }

    /**
     * Writes the sockaddr for {@code address} into {@code into} (at least {@link SocketAddresses#SOCKADDR_UN_SIZE}
     * bytes) for a socket of {@code domain} and returns its length; the address type must match the socket's family.
     */
    static int sockaddr(SocketAddress address, int domain, MemorySegment into) {
        if (domain == Sockets.AF_UNIX) {
            if (!(address instanceof UnixDomainSocketAddress u)) {
                throw new UnsupportedAddressTypeException();
            }
            return SocketAddresses.writeUnix(u, into);
        }
        InetSocketAddress inet = check(address, domain);
        return domain == Sockets.AF_INET6 ? SocketAddresses.writeForV6Socket(inet, into)
                : SocketAddresses.write(inet, into);
    }

    /** getsockname or getpeername as a Java address. */
    static SocketAddress name(int fd, boolean local) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            int len = local ? Sockets.getsockname(fd, sa) : Sockets.getpeername(fd, sa);
            if (len < 0) {
                throw NetErrors.of(local ? "getsockname" : "getpeername", len);
            }
            return SocketAddresses.readAny(sa, len);
        }
    }

    /** Where a connect to {@code address} goes: as in the JDK, a wildcard address is the loopback of its family. */
    static SocketAddress peer(SocketAddress address) {
        if (!(address instanceof InetSocketAddress inet) || inet.isUnresolved() || !inet.getAddress().isAnyLocalAddress()) {
            return address;
        }
        String loopback = inet.getAddress() instanceof Inet4Address ? "127.0.0.1" : "::1";
        return new InetSocketAddress(InetAddress.ofLiteral(loopback), inet.getPort());
    }

    /** An IP address an IP socket of {@code domain} can take: as the JDK's, an AF_INET one takes no IPv6 address. */
    static InetSocketAddress check(SocketAddress address, int domain) {
        InetSocketAddress inet = check(address);
        if (domain == Sockets.AF_INET && !(inet.getAddress() instanceof Inet4Address)) {
            throw new UnsupportedAddressTypeException();
        }
        return inet;
    }

    static InetSocketAddress check(SocketAddress address) {
        if (!(address instanceof InetSocketAddress inet)) {
            throw new UnsupportedAddressTypeException();
        }
        if (inet.isUnresolved()) {
            throw new java.nio.channels.UnresolvedAddressException();
        }
        return inet;
    }

    static void bind(int fd, SocketAddress local, int domain) throws IOException {
        if (local == null && domain == Sockets.AF_UNIX) {
            throw new UnsupportedOperationException("uring4j: a Unix-domain channel binds to an explicit path only");
        }
        SocketAddress address = local == null ? WILDCARD : local;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SocketAddresses.SOCKADDR_UN_SIZE, 8);
            int ret = Sockets.bind(fd, sa.asSlice(0, sockaddr(address, domain, sa)));
            if (ret < 0) {
                throw NetErrors.of("bind " + address, ret);
            }
        }
    }

    static void ensureOpen(java.nio.channels.Channel channel) throws java.nio.channels.ClosedChannelException {
        if (!channel.isOpen()) {
            throw new java.nio.channels.ClosedChannelException();
        }
    }

    /**
     * Closes a socket's fd through its guard: new requests are refused, those in flight are cancelled, and the fd
     * is closed once the last has ended — never under a request still naming it (its number could be reused).
     * Waits for that, except on the loop itself.
     */
    static void close(FdGuard guard, EventLoop loop) throws IOException {
        await(guard.close(), loop);
    }

    /** Waits for a guard's close to have closed the fd, except on the loop itself. */
    static void await(CompletableFuture<Void> closed, EventLoop loop) throws IOException {
        if (loop.inLoop()) {
            return;         // waiting would deadlock: the fd closes as its cancelled requests end, on this loop
        }
        try {
            closed.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    /**
     * A blocking request on {@code guard}'s fd, as {@link EventLoop#call(Op, FdGuard, boolean)}; with a positive
     * {@code timeoutMillis} (an adaptor's SO_TIMEOUT, a timed connect) bounded by a linked timeout, and then
     * failing as the JDK's adaptors do: SocketTimeoutException with {@code timedOut} ("Read timed out"). A request
     * the timeout cut short took nothing: the socket stays usable.
     */
    static int call(EventLoop loop, FdGuard guard, Op op, String what, int timeoutMillis, String timedOut)
            throws IOException {
        if (timeoutMillis <= 0) {
            return loop.call(op, guard, false);
        }
        ChainResult r = loop.chain(op).timeout(Duration.ofMillis(timeoutMillis)).guardedBy(guard).call();
        if (NetErrors.timedOut(r)) {
            throw new SocketTimeoutException(timedOut);
        }
        if (r.result(0) < 0) {
            throw new ErrnoException(what, r.result(0));
        }
        return r.result(0);
    }

    /** Whether a failed request ended because the channel was closed under it. */
    static boolean closedUnder(IOException e) {
        return e instanceof ErrnoException errno && (errno.errno() == Errno.ECANCELED || errno.errno() == Errno.EBADF);
    }

    /**
     * Whether the socket's receive queue holds bytes nobody has read: a close then resets the connection, as the
     * kernel's does. A peek, which takes nothing.
     */
    static boolean unreadInput(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            return Sockets.recv(fd, arena.allocate(1), Sockets.MSG_PEEK | Sockets.MSG_DONTWAIT) > 0;
        }
    }
}
