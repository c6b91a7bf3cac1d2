package io.uring4j.net;

import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.Channel;
import java.util.Set;

/**
 * {@link UringDatagramChannel}'s socket options, as the JDK's DatagramChannel takes them. On a dual-stack
 * (AF_INET6) socket the IP-level options are set for both IPv6 and IPv4-mapped traffic, and read from IPv6's.
 * Multicast group membership and IP_MULTICAST_IF are not offered.
 */
final class DatagramOptions {
    static final Set<SocketOption<?>> SUPPORTED = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT,
            StandardSocketOptions.SO_BROADCAST, StandardSocketOptions.IP_TOS, StandardSocketOptions.IP_MULTICAST_TTL,
            StandardSocketOptions.IP_MULTICAST_LOOP);

    private static final int SO_BROADCAST = 6;
    private static final int IP_TOS = 1;
    private static final int IP_MULTICAST_TTL = 33;
    private static final int IP_MULTICAST_LOOP = 34;
    private static final int IPPROTO_IPV6 = ChannelSockets.IPPROTO_IPV6;
    private static final int IPV6_MULTICAST_HOPS = 18;
    private static final int IPV6_MULTICAST_LOOP = 19;
    private static final int IPV6_TCLASS = 67;

    private DatagramOptions() {
    }

    static <T> void set(Channel channel, int fd, boolean inet6, SocketOption<T> name, T value) throws IOException {
        switch (name.name()) {
            case "SO_BROADCAST" -> {
                checked(name, value);
                ChannelSockets.ensureOpen(channel);
                SocketOptions.set(fd, Sockets.SOL_SOCKET, SO_BROADCAST, (Boolean) value ? 1 : 0, "SO_BROADCAST");
            }
            case "IP_TOS" -> ipLevel(channel, fd, inet6, IP_TOS, IPV6_TCLASS, byteValue(name, value), "IP_TOS");
            case "IP_MULTICAST_TTL" -> ipLevel(channel, fd, inet6, IP_MULTICAST_TTL, IPV6_MULTICAST_HOPS,
                    byteValue(name, value), "IP_MULTICAST_TTL");
            case "IP_MULTICAST_LOOP" -> {
                checked(name, value);
                ipLevel(channel, fd, inet6, IP_MULTICAST_LOOP, IPV6_MULTICAST_LOOP, (Boolean) value ? 1 : 0,
                        "IP_MULTICAST_LOOP");
            }
            default -> ChannelSockets.setOption(channel, fd, name, value, SUPPORTED);
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Channel channel, int fd, boolean inet6, SocketOption<T> name) throws IOException {
        if (!SUPPORTED.contains(name) || !name.name().startsWith("IP_") && !name.name().equals("SO_BROADCAST")) {
            return ChannelSockets.getOption(channel, fd, name, SUPPORTED);
        }
        ChannelSockets.ensureOpen(channel);
        Object value = switch (name.name()) {
            case "SO_BROADCAST" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, SO_BROADCAST) != 0;
            case "IP_TOS" -> inet6 ? SocketOptions.get(fd, IPPROTO_IPV6, IPV6_TCLASS)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_TOS);
            case "IP_MULTICAST_TTL" -> inet6 ? SocketOptions.get(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_MULTICAST_TTL);
            case "IP_MULTICAST_LOOP" -> (inet6 ? SocketOptions.get(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_MULTICAST_LOOP)) != 0;
            default -> throw new UnsupportedOperationException("'" + name + "' not supported");
        };
        return (T) value;
    }

    /** An option of IP's level: IPv4's, and IPv6's too on a dual-stack socket. */
    private static void ipLevel(Channel channel, int fd, boolean inet6, int v4, int v6, int value, String what)
            throws IOException {
        ChannelSockets.ensureOpen(channel);
        if (inet6) {
            SocketOptions.set(fd, IPPROTO_IPV6, v6, value, what);
        }
        SocketOptions.set(fd, Sockets.IPPROTO_IP, v4, value, what);
    }

    /** As the JDK's checks: the type first, then the range 0..255 of IP_TOS and IP_MULTICAST_TTL. */
    private static int byteValue(SocketOption<?> name, Object value) {
        checked(name, value);
        int v = (Integer) value;
        if (v < 0 || v > 255) {
            throw new IllegalArgumentException("Invalid " + name.name() + " value");
        }
        return v;
    }

    private static void checked(SocketOption<?> name, Object value) {
        if (value == null || !name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "'");
        }
    }
}
