package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.Channel;
import java.nio.channels.spi.SelectorProvider;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@link System#inheritedChannel()} under the selector flag: the socket a launcher left on standard input (inetd,
 * systemd's {@code StandardInput=socket}) as the channel the JDK's would make, of uring4j's kind — a
 * ServerSocketChannel for a stream socket without a peer, a SocketChannel for one with a peer, a DatagramChannel
 * for a datagram socket; null when standard input is no socket. As the JDK's: it is looked for once per process;
 * the channel works on a duplicate of descriptor 0, so that streams on standard input and the channel do not close
 * each other; and closing the channel points descriptors 0, 1 and 2 at {@code /dev/null} (opened beforehand, so
 * that the close cannot run out of descriptors), so that the socket really closes.
 */
final class InheritedChannels {
    private static boolean looked;
    private static Channel channel;
    private static int devNull = -1;

    private InheritedChannels() {
    }

    /** The inherited channel, of {@code provider}; the same one on every call. */
    static synchronized Channel get(SelectorProvider provider) throws IOException {
        if (devNull < 0) {
            devNull = LibC.open("/dev/null", LibC.O_RDWR | LibC.O_CLOEXEC, 0);
            if (devNull < 0) {
                throw NetErrors.of("open /dev/null", devNull);
            }
        }
        if (!looked) {
            channel = create(provider);
            looked = true;
        }
        return channel;
    }

    private static Channel create(SelectorProvider provider) throws IOException {
        int fd = LibC.dup(0);
        if (fd < 0) {
            return null;                     // no standard input at all
        }
        try {
            int type = intOption(fd, Sockets.SO_TYPE);
            if (type != Sockets.SOCK_STREAM && type != Sockets.SOCK_DGRAM) {
                LibC.close(fd);              // not a socket (ENOTSOCK), or one of another kind
                return null;
            }
            int domain = intOption(fd, Sockets.SO_DOMAIN);
            boolean inet = domain == Sockets.AF_INET || domain == Sockets.AF_INET6;
            if (!inet && !(domain == Sockets.AF_UNIX && type == Sockets.SOCK_STREAM)) {
                LibC.close(fd);              // no channel of ours (nor the JDK's) is of that family and type
                return null;
            }
            Uring uring = Uring.shared();
            SocketAddress peer = peer(fd);
            if (type == Sockets.SOCK_DGRAM) {
                return UringDatagramChannel.inherited(provider, uring, fd, domain == Sockets.AF_INET6,
                        (InetSocketAddress) peer, InheritedChannels::detachStandardStreams);
            }
            return peer == null
                    ? UringServerSocketChannel.inherited(provider, uring, fd, domain,
                            InheritedChannels::detachStandardStreams)
                    : UringSocketChannel.inherited(provider, uring, fd, domain, peer,
                            InheritedChannels::detachStandardStreams);
        } catch (IOException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    /** An int socket option, or -1 where there is none (the descriptor is no socket: ENOTSOCK). */
    private static int intOption(int fd, int option) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(Integer.BYTES, Integer.BYTES);
            int ret = Sockets.getsockopt(fd, Sockets.SOL_SOCKET, option, value);
            if (ret == -Errno.ENOTSOCK) {
                return -1;
            }
            if (ret < 0) {
                throw NetErrors.of("getsockopt of inherited descriptor 0", ret);
            }
            return value.get(JAVA_INT, 0);
        }
    }

    /** The socket's peer, or null if it has none (ENOTCONN: a listener, or an unconnected datagram socket). */
    private static SocketAddress peer(int fd) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = arena.allocate(Sockets.SOCKADDR_STORAGE_SIZE, 8);
            int len = Sockets.getpeername(fd, sockaddr);
            if (len == -Errno.ENOTCONN) {
                return null;
            }
            if (len < 0) {
                throw NetErrors.of("getpeername of inherited descriptor 0", len);
            }
            return SocketAddresses.readAny(sockaddr, len);
        }
    }

    /** Points 0, 1 and 2 at /dev/null, as the JDK's inherited channels do when closed. */
    private static void detachStandardStreams() {
        for (int fd = 0; fd <= 2; fd++) {
            LibC.dup2(devNull, fd);
        }
    }
}
