package io.uring4j.net;

import io.uring4j.sys.Sockets;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * {@link InetSocketAddress} to and from {@code struct sockaddr_in} / {@code sockaddr_in6}, written into memory the
 * caller provides — usually a request's 64-byte scratch, so an address costs no allocation of its own and lives
 * exactly as long as the request that hands it to the kernel.
 */
final class SocketAddresses {
    /** {@code sizeof(struct sockaddr_in6)}: family @0, port @2 (network order), flowinfo @4, addr @8, scope_id @24. */
    static final int SOCKADDR_IN6_SIZE = 28;
    private static final ValueLayout.OfShort NET_U16 = JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {
    }

    /** Writes {@code address} at the start of {@code into}; returns the sockaddr's length (16 or 28). */
    static int write(InetSocketAddress address, MemorySegment into) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        InetAddress ip = address.getAddress();
        byte[] raw = ip.getAddress();
        if (ip instanceof Inet4Address) {
            into.asSlice(0, Sockets.SOCKADDR_IN_SIZE).fill((byte) 0);
            into.set(JAVA_SHORT_UNALIGNED, 0, (short) Sockets.AF_INET);
            into.set(NET_U16, 2, (short) address.getPort());
            MemorySegment.copy(raw, 0, into, JAVA_BYTE, 4, 4);
            return (int) Sockets.SOCKADDR_IN_SIZE;
        }
        into.asSlice(0, SOCKADDR_IN6_SIZE).fill((byte) 0);
        into.set(JAVA_SHORT_UNALIGNED, 0, (short) Sockets.AF_INET6);
        into.set(NET_U16, 2, (short) address.getPort());
        MemorySegment.copy(raw, 0, into, JAVA_BYTE, 8, 16);
        into.set(JAVA_INT_UNALIGNED, 24, ((Inet6Address) ip).getScopeId());
        return SOCKADDR_IN6_SIZE;
    }

    /**
     * Writes {@code address} for an AF_INET6 socket: an IPv4 address becomes IPv4-mapped ({@code ::ffff:a.b.c.d}),
     * as the JDK's dual-stack sockets do, except 0.0.0.0, which becomes {@code ::} as in the JDK: a socket bound
     * to the wildcard takes IPv6 peers too (a mapped 0.0.0.0 would take IPv4 only). Returns the length (28).
     */
    static int writeForV6Socket(InetSocketAddress address, MemorySegment into) {
        if (address.getAddress() instanceof Inet6Address) {
            return write(address, into);
        }
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        into.asSlice(0, SOCKADDR_IN6_SIZE).fill((byte) 0);
        into.set(JAVA_SHORT_UNALIGNED, 0, (short) Sockets.AF_INET6);
        into.set(NET_U16, 2, (short) address.getPort());
        if (address.getAddress().isAnyLocalAddress()) {
            return SOCKADDR_IN6_SIZE;
        }
        into.set(JAVA_BYTE, 18, (byte) 0xff);
        into.set(JAVA_BYTE, 19, (byte) 0xff);
        MemorySegment.copy(address.getAddress().getAddress(), 0, into, JAVA_BYTE, 20, 4);
        return SOCKADDR_IN6_SIZE;
    }

    /** {@code sizeof(struct sockaddr_un)}: sun_family u16, then sun_path[108], NUL-terminated. */
    static final int SOCKADDR_UN_SIZE = 110;
    private static final int SUN_PATH_MAX = 108;

    /** Writes a {@code struct sockaddr_un} for {@code address}; returns its length (family + path + NUL). */
    static int writeUnix(UnixDomainSocketAddress address, MemorySegment into) {
        byte[] path = address.getPath().toString().getBytes(StandardCharsets.UTF_8);
        if (path.length == 0 || path.length >= SUN_PATH_MAX) {
            throw new IllegalArgumentException("Unix socket path must have 1 to " + (SUN_PATH_MAX - 1) + " bytes: " + address);
        }
        into.asSlice(0, SOCKADDR_UN_SIZE).fill((byte) 0);
        into.set(JAVA_SHORT_UNALIGNED, 0, (short) Sockets.AF_UNIX);
        MemorySegment.copy(path, 0, into, JAVA_BYTE, 2, path.length);
        return 2 + path.length + 1;
    }

    /** Reads any supported sockaddr of {@code length} bytes: an {@link InetSocketAddress} or a {@link UnixDomainSocketAddress}. */
    static SocketAddress readAny(MemorySegment sockaddr, int length) {
        if (Sockets.family(sockaddr) != Sockets.AF_UNIX) {
            return read(sockaddr);
        }
        int end = 2;
        while (end < length && sockaddr.get(JAVA_BYTE, end) != 0) {
            end++;
        }
        // An unnamed socket (the usual client) has an empty path, as the JDK reports it.
        return UnixDomainSocketAddress.of(new String(sockaddr.asSlice(2, end - 2).toArray(JAVA_BYTE), StandardCharsets.UTF_8));
    }

    /** The address family {@code address} needs: AF_INET or AF_INET6. */
    static int family(InetSocketAddress address) {
        return address.getAddress() instanceof Inet4Address ? Sockets.AF_INET : Sockets.AF_INET6;
    }

    /**
     * Reads a sockaddr_in or sockaddr_in6; {@code null} for another family (a Unix socket's peer, say). As the JDK
     * decodes them: an IPv4-mapped address (an IPv4 endpoint of a dual-stack socket) is an {@link Inet4Address},
     * and a scope id of 0 is no scope (not {@code %0}).
     */
    static InetSocketAddress read(MemorySegment sockaddr) {
        int family = Sockets.family(sockaddr);
        int port = Sockets.port(sockaddr);
        try {
            if (family == Sockets.AF_INET) {
                return new InetSocketAddress(InetAddress.getByAddress(sockaddr.asSlice(4, 4).toArray(JAVA_BYTE)), port);
            }
            if (family == Sockets.AF_INET6) {
                byte[] raw = sockaddr.asSlice(8, 16).toArray(JAVA_BYTE);
                int scope = sockaddr.get(JAVA_INT_UNALIGNED, 24);
                InetAddress ip = InetAddress.getByAddress(raw);           // unmaps ::ffff:a.b.c.d
                if (scope != 0 && ip instanceof Inet6Address) {
                    ip = Inet6Address.getByAddress(null, raw, scope);
                }
                return new InetSocketAddress(ip, port);
            }
            return null;
        } catch (UnknownHostException impossible) {     // only thrown for a wrong-length array
            throw new IllegalStateException(impossible);
        }
    }
}
