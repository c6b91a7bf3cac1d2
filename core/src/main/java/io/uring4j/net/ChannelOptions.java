package io.uring4j.net;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.Channel;
import java.nio.file.FileSystems;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The socket options of the drop-in channels, the JDK's sets for each kind of channel: the standard ones and
 * {@link ExtendedSocketOptions}' that Linux has (keep-alive timing, quick ACKs, the receiving queue's NAPI id, IPv4's
 * don't-fragment, a Unix-domain peer's credentials), each a setsockopt or getsockopt on the caller's thread. As the
 * JDK's: the arguments are checked before whether the channel is open; the options of IP's level on a dual-stack socket
 * are set for IPv6 and for IPv4-mapped traffic alike, and read from IPv6's (the socket's family is asked, so an
 * inherited AF_INET one works); a value the kernel refuses is a SocketException with its words ("Invalid argument").
 */
final class ChannelOptions {
    private static final Set<SocketOption<?>> KEEP_ALIVE_TIMING = Set.of(ExtendedSocketOptions.TCP_KEEPIDLE,
            ExtendedSocketOptions.TCP_KEEPINTERVAL, ExtendedSocketOptions.TCP_KEEPCOUNT);
    /** A connected TCP channel's: the JDK's SocketChannel's, but its internal SO_OOBINLINE. */
    static final Set<SocketOption<?>> TCP = union(Set.of(StandardSocketOptions.TCP_NODELAY,
            StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT, StandardSocketOptions.SO_LINGER,
            StandardSocketOptions.IP_TOS, ExtendedSocketOptions.TCP_QUICKACK,
            ExtendedSocketOptions.SO_INCOMING_NAPI_ID), KEEP_ALIVE_TIMING);
    /** A TCP listener's (and the accepted sockets inherit the keep-alive timing and quick ACKs). */
    static final Set<SocketOption<?>> TCP_SERVER = union(Set.of(StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT, ExtendedSocketOptions.TCP_QUICKACK,
            ExtendedSocketOptions.SO_INCOMING_NAPI_ID), KEEP_ALIVE_TIMING);
    /** An asynchronous TCP channel's: the JDK's has neither SO_LINGER nor IP_TOS. */
    static final Set<SocketOption<?>> ASYNC_TCP = union(Set.of(StandardSocketOptions.TCP_NODELAY,
            StandardSocketOptions.SO_KEEPALIVE, StandardSocketOptions.SO_SNDBUF, StandardSocketOptions.SO_RCVBUF,
            StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT, ExtendedSocketOptions.TCP_QUICKACK,
            ExtendedSocketOptions.SO_INCOMING_NAPI_ID), KEEP_ALIVE_TIMING);
    /** A connected Unix-domain channel's, its peer's credentials included. */
    static final Set<SocketOption<?>> UNIX = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_LINGER, ExtendedSocketOptions.SO_PEERCRED);
    static final Set<SocketOption<?>> UNIX_SERVER = Set.of(StandardSocketOptions.SO_RCVBUF);

    private static final int IP_TOS = 1;
    private static final int IP_MTU_DISCOVER = 10;
    private static final int IPV6_MTU_DISCOVER = 23;
    private static final int IPV6_TCLASS = 67;
    /** {@code IP_PMTUDISC_DO} and {@code IP_PMTUDISC_DONT}, IPv6's too: what IP_DONTFRAGMENT sets, as the JDK's. */
    private static final int PMTUDISC_DO = 2;
    private static final int PMTUDISC_DONT = 0;
    private static final int SO_INCOMING_NAPI_ID = 56;
    private static final int SO_PEERCRED = 17;
    /** {@code struct ucred}: pid, uid, gid. */
    private static final long UCRED_SIZE = 12;
    private static final long UCRED_UID = 4;
    private static final long UCRED_GID = 8;

    private ChannelOptions() {
    }

    private static Set<SocketOption<?>> union(Set<SocketOption<?>> some, Set<SocketOption<?>> more) {
        Set<SocketOption<?>> all = new HashSet<>(some);
        all.addAll(more);
        return Set.copyOf(all);
    }

    /**
     * Sets an option of {@code channel}'s socket if {@code supported} has it; the checks in the JDK's order:
     * supported, the value's type, open, then the option's own.
     */
    static <T> void set(Channel channel, int fd, SocketOption<T> name, T value, Set<SocketOption<?>> supported)
            throws IOException {
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        if (value == null || !name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "'");        // the JDK's words
        }
        ChannelSockets.ensureOpen(channel);
        switch (name.name()) {
            case "TCP_NODELAY" -> SocketOptions.noDelay(fd, (Boolean) value);
            case "SO_KEEPALIVE" -> SocketOptions.keepAlive(fd, (Boolean) value);
            case "SO_SNDBUF" -> SocketOptions.set(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF, bufferSize(value),
                    "SO_SNDBUF");
            case "SO_RCVBUF" -> SocketOptions.set(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF, bufferSize(value),
                    "SO_RCVBUF");
            case "SO_REUSEADDR" -> SocketOptions.reuseAddress(fd, (Boolean) value);
            case "SO_REUSEPORT" -> SocketOptions.reusePort(fd, (Boolean) value);
            case "SO_LINGER" -> SocketOptions.linger(fd, Math.min((Integer) value, 65_535));    // the JDK's cap
            case "IP_TOS" -> ipLevel(fd, dualStack(fd), IP_TOS, IPV6_TCLASS, tos(value), "IP_TOS");
            case "IP_DONTFRAGMENT" -> ipLevel(fd, dualStack(fd), IP_MTU_DISCOVER, IPV6_MTU_DISCOVER,
                    (Boolean) value ? PMTUDISC_DO : PMTUDISC_DONT, "IP_DONTFRAGMENT");
            case "TCP_KEEPIDLE" -> extended(fd, Sockets.TCP_KEEPIDLE, (Integer) value, name);
            case "TCP_KEEPINTERVAL" -> extended(fd, Sockets.TCP_KEEPINTVL, (Integer) value, name);
            case "TCP_KEEPCOUNT" -> extended(fd, Sockets.TCP_KEEPCNT, (Integer) value, name);
            case "TCP_QUICKACK" -> extended(fd, Sockets.TCP_QUICKACK, (Boolean) value ? 1 : 0, name);
            case "SO_INCOMING_NAPI_ID" -> throw new SocketException("Attempt to set read only option " + name);
            case "SO_PEERCRED" -> throw new SocketException("SO_PEERCRED cannot be set");
            default -> throw new UnsupportedOperationException("'" + name + "' not supported");
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Channel channel, int fd, SocketOption<T> name, Set<SocketOption<?>> supported)
            throws IOException {
        if (!supported.contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        ChannelSockets.ensureOpen(channel);
        Object value = switch (name.name()) {
            case "TCP_NODELAY" -> SocketOptions.get(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY) != 0;
            case "SO_KEEPALIVE" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_KEEPALIVE) != 0;
            // Halved, as the JDK reports them on Linux: what was set, not the kernel's doubled bookkeeping size.
            case "SO_SNDBUF" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF) / 2;
            case "SO_RCVBUF" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF) / 2;
            case "SO_REUSEADDR" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEADDR) != 0;
            case "SO_REUSEPORT" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_REUSEPORT) != 0;
            case "SO_LINGER" -> SocketOptions.linger(fd);
            case "IP_TOS" -> dualStack(fd) ? SocketOptions.get(fd, ChannelSockets.IPPROTO_IPV6, IPV6_TCLASS)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_TOS);
            case "IP_DONTFRAGMENT" -> (dualStack(fd)
                    ? SocketOptions.get(fd, ChannelSockets.IPPROTO_IPV6, IPV6_MTU_DISCOVER)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_MTU_DISCOVER)) == PMTUDISC_DO;
            case "TCP_KEEPIDLE" -> SocketOptions.get(fd, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPIDLE);
            case "TCP_KEEPINTERVAL" -> SocketOptions.get(fd, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPINTVL);
            case "TCP_KEEPCOUNT" -> SocketOptions.get(fd, Sockets.IPPROTO_TCP, Sockets.TCP_KEEPCNT);
            case "TCP_QUICKACK" -> SocketOptions.get(fd, Sockets.IPPROTO_TCP, Sockets.TCP_QUICKACK) != 0;
            case "SO_INCOMING_NAPI_ID" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, SO_INCOMING_NAPI_ID);
            case "SO_PEERCRED" -> peerCredentials(fd);
            default -> throw new UnsupportedOperationException("'" + name + "' not supported");
        };
        return (T) value;
    }

    /**
     * SO_PEERCRED: who the peer process runs as, by the names the user database gives its ids (the ids themselves
     * where it has none), as the JDK's principals; "Invalid argument" while there is no peer, as the JDK's.
     */
    private static UnixDomainPrincipal peerCredentials(int fd) throws IOException {
        int uid;
        int gid;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ucred = arena.allocate(UCRED_SIZE, 4);
            int ret = Sockets.getsockopt(fd, Sockets.SOL_SOCKET, SO_PEERCRED, ucred);
            if (ret < 0) {
                throw NetErrors.of("getsockopt(SO_PEERCRED)", ret);
            }
            uid = ucred.get(JAVA_INT, UCRED_UID);
            gid = ucred.get(JAVA_INT, UCRED_GID);
        }
        if (uid == -1) {
            throw new SocketException(Errno.describe(Errno.EINVAL));
        }
        String user = Objects.requireNonNullElse(LibC.userName(uid), Integer.toUnsignedString(uid));
        String group = Objects.requireNonNullElse(LibC.groupName(gid), Integer.toUnsignedString(gid));
        UserPrincipalLookupService names = FileSystems.getDefault().getUserPrincipalLookupService();
        return new UnixDomainPrincipal(names.lookupPrincipalByName(user), names.lookupPrincipalByGroupName(group));
    }

    /**
     * Whether the socket is AF_INET6, asked of the kernel: a channel of INET, or an inherited one
     * ({@link InheritedChannels}), may be AF_INET.
     */
    private static boolean dualStack(int fd) throws IOException {
        return SocketOptions.get(fd, Sockets.SOL_SOCKET, Sockets.SO_DOMAIN) == Sockets.AF_INET6;
    }

    /** An option of IP's level: IPv4's, and IPv6's too on a dual-stack socket. */
    static void ipLevel(int fd, boolean inet6, int v4, int v6, int value, String what) throws IOException {
        if (inet6) {
            SocketOptions.set(fd, ChannelSockets.IPPROTO_IPV6, v6, value, what);
        }
        SocketOptions.set(fd, Sockets.IPPROTO_IP, v4, value, what);
    }

    /** A TCP-level extended option: a value the kernel refuses is the JDK's SocketException ("Invalid argument"). */
    private static void extended(int fd, int option, int value, SocketOption<?> name) throws IOException {
        int ret = Sockets.setsockopt(fd, Sockets.IPPROTO_TCP, option, value);
        if (ret < 0) {
            throw NetErrors.refusedOption("setsockopt(" + name.name() + ", " + value + ")", ret);
        }
    }

    /** As the JDK's check: 0 is allowed (the kernel's minimum), a negative size is not. */
    private static int bufferSize(Object value) {
        int bytes = (Integer) value;
        if (bytes < 0) {
            throw new IllegalArgumentException("Invalid send/receive buffer size");
        }
        return bytes;
    }

    private static int tos(Object value) {
        int tos = (Integer) value;
        if (tos < 0 || tos > 255) {
            throw new IllegalArgumentException("Invalid IP_TOS value");
        }
        return tos;
    }
}
