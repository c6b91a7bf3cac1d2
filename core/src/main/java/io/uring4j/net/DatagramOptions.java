package io.uring4j.net;

import io.uring4j.sys.Sockets;
import jdk.net.ExtendedSocketOptions;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.Channel;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@link UringDatagramChannel}'s socket options, as the JDK's DatagramChannel takes them: the multicast ones and
 * SO_BROADCAST here, the rest as every channel's ({@link ChannelOptions}). On a dual-stack (AF_INET6) socket the
 * IP-level options are set for both IPv6 and IPv4-mapped traffic, and read from IPv6's: IP_MULTICAST_IF names the
 * interface by index there (IPv4's option takes a {@code struct ip_mreqn}), and by its IPv4 address on an IPv4
 * socket, as the JDK's.
 */
final class DatagramOptions {
    static final Set<SocketOption<?>> SUPPORTED = Set.of(StandardSocketOptions.SO_SNDBUF,
            StandardSocketOptions.SO_RCVBUF, StandardSocketOptions.SO_REUSEADDR, StandardSocketOptions.SO_REUSEPORT,
            StandardSocketOptions.SO_BROADCAST, StandardSocketOptions.IP_TOS, StandardSocketOptions.IP_MULTICAST_TTL,
            StandardSocketOptions.IP_MULTICAST_LOOP, StandardSocketOptions.IP_MULTICAST_IF,
            ExtendedSocketOptions.IP_DONTFRAGMENT, ExtendedSocketOptions.SO_INCOMING_NAPI_ID);

    private static final int SO_BROADCAST = 6;
    private static final int IP_MULTICAST_IF = 32;
    /** {@code struct ip_mreqn}: multiaddr, address, then the interface index at 8. */
    private static final long IP_MREQN_SIZE = 12;
    private static final long IP_MREQN_IFINDEX = 8;
    private static final int IP_MULTICAST_TTL = 33;
    private static final int IP_MULTICAST_LOOP = 34;
    private static final int IPPROTO_IPV6 = ChannelSockets.IPPROTO_IPV6;
    private static final int IPV6_MULTICAST_IF = 17;
    private static final int IPV6_MULTICAST_HOPS = 18;
    private static final int IPV6_MULTICAST_LOOP = 19;

    private DatagramOptions() {
    }

    static <T> void set(Channel channel, int fd, boolean inet6, SocketOption<T> name, T value) throws IOException {
        switch (name.name()) {
            case "SO_BROADCAST" -> {
                checked(name, value);
                ChannelSockets.ensureOpen(channel);
                SocketOptions.set(fd, Sockets.SOL_SOCKET, SO_BROADCAST, (Boolean) value ? 1 : 0, "SO_BROADCAST");
            }
            case "IP_MULTICAST_TTL" -> ipLevel(channel, fd, inet6, IP_MULTICAST_TTL, IPV6_MULTICAST_HOPS,
                    byteValue(name, value), "IP_MULTICAST_TTL");
            case "IP_MULTICAST_LOOP" -> {
                checked(name, value);
                ipLevel(channel, fd, inet6, IP_MULTICAST_LOOP, IPV6_MULTICAST_LOOP, (Boolean) value ? 1 : 0,
                        "IP_MULTICAST_LOOP");
            }
            case "IP_MULTICAST_IF" -> {
                checked(name, value);
                ChannelSockets.ensureOpen(channel);
                multicastInterface(fd, inet6, (NetworkInterface) value);
            }
            default -> ChannelOptions.set(channel, fd, name, value, SUPPORTED);
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T get(Channel channel, int fd, boolean inet6, SocketOption<T> name) throws IOException {
        boolean own = name.name().startsWith("IP_MULTICAST_") || name.name().equals("SO_BROADCAST");
        if (!SUPPORTED.contains(name) || !own) {
            return ChannelOptions.get(channel, fd, name, SUPPORTED);
        }
        ChannelSockets.ensureOpen(channel);
        Object value = switch (name.name()) {
            case "SO_BROADCAST" -> SocketOptions.get(fd, Sockets.SOL_SOCKET, SO_BROADCAST) != 0;
            case "IP_MULTICAST_TTL" -> inet6 ? SocketOptions.get(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_MULTICAST_TTL);
            case "IP_MULTICAST_LOOP" -> (inet6 ? SocketOptions.get(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP)
                    : SocketOptions.get(fd, Sockets.IPPROTO_IP, IP_MULTICAST_LOOP)) != 0;
            case "IP_MULTICAST_IF" -> multicastInterface(fd, inet6);
            default -> throw new UnsupportedOperationException("'" + name + "' not supported");
        };
        return (T) value;
    }

    /**
     * Where multicast datagrams go out: on a dual-stack socket IPv6's interface index, and IPv4's for IPv4 groups;
     * on an IPv4 socket the interface's IPv4 address.
     */
    private static void multicastInterface(int fd, boolean inet6, NetworkInterface interf) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            if (inet6) {
                int index = interf.getIndex();
                if (index == -1) {
                    throw new IOException("Network interface cannot be identified");
                }
                SocketOptions.set(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, index, "IPV6_MULTICAST_IF");
                MemorySegment mreqn = arena.allocate(IP_MREQN_SIZE, 4);
                mreqn.set(JAVA_INT, IP_MREQN_IFINDEX, index);
                setStruct(fd, mreqn);
                return;
            }
            Inet4Address address = interf.inetAddresses().filter(Inet4Address.class::isInstance)
                    .map(Inet4Address.class::cast).findFirst()
                    .orElseThrow(() -> new IOException("Network interface not configured for IPv4"));
            MemorySegment inAddr = arena.allocate(4, 4);
            MemorySegment.copy(address.getAddress(), 0, inAddr, JAVA_BYTE, 0, 4);
            setStruct(fd, inAddr);
        }
    }

    private static void setStruct(int fd, MemorySegment value) throws IOException {
        int ret = Sockets.setsockopt(fd, Sockets.IPPROTO_IP, IP_MULTICAST_IF, value);
        if (ret < 0) {
            throw NetErrors.of("setsockopt(IP_MULTICAST_IF)", ret);
        }
    }

    /** The interface set, or null for the kernel's choice, as the JDK's answers. */
    private static NetworkInterface multicastInterface(int fd, boolean inet6) throws IOException {
        if (inet6) {
            int index = SocketOptions.get(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF);
            if (index == 0) {
                return null;
            }
            NetworkInterface interf = NetworkInterface.getByIndex(index);
            if (interf == null) {
                throw new IOException("Unable to map index to interface");
            }
            return interf;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment inAddr = arena.allocate(4, 4);
            int len = Sockets.getsockopt(fd, Sockets.IPPROTO_IP, IP_MULTICAST_IF, inAddr);
            if (len < 0) {
                throw NetErrors.of("getsockopt(IP_MULTICAST_IF)", len);
            }
            byte[] raw = inAddr.toArray(JAVA_BYTE);
            if (inAddr.get(JAVA_INT, 0) == 0) {
                return null;
            }
            NetworkInterface interf = NetworkInterface.getByInetAddress(InetAddress.getByAddress(raw));
            if (interf == null) {
                throw new IOException("Unable to map address to interface");
            }
            return interf;
        }
    }

    /** An option of IP's level, once the channel is found open: IPv4's, and IPv6's too on a dual-stack socket. */
    private static void ipLevel(Channel channel, int fd, boolean inet6, int v4, int v6, int value, String what)
            throws IOException {
        ChannelSockets.ensureOpen(channel);
        ChannelOptions.ipLevel(fd, inet6, v4, v6, value, what);
    }

    /** As the JDK's checks: the type first, then the range 0..255 of IP_MULTICAST_TTL. */
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
