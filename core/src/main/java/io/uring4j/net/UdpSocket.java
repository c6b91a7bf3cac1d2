package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A UDP socket whose sends and receives are io_uring SENDMSG/RECVMSG requests, in the blocking style (the caller
 * parks; a virtual thread unmounts) and the future style; {@link NetOps#sendmsg}/{@link NetOps#recvmsg} are the
 * same requests for the callback style. Every request goes to one event loop, chosen when the socket is opened.
 *
 * <p>socket, bind and connect are system calls: none of them blocks for a datagram socket. An AF_INET6 socket
 * can send to IPv4 destinations too (Linux takes a sockaddr_in on it); IPv4 senders are reported as IPv4 addresses.
 * {@link #close()} from another thread ends a blocked receive with {@code SocketException("Socket closed")},
 * whose cause names the request and its errno.
 */
public final class UdpSocket extends LoopSocket {
    private UdpSocket(EventLoop loop, int fd) {
        super(loop, fd);
    }

    /** An unbound socket of {@code family} (INET or INET6); its first send binds it to an ephemeral port. */
    public static UdpSocket open(Uring uring, StandardProtocolFamily family) throws IOException {
        int domain = switch (family) {
            case INET -> Sockets.AF_INET;
            case INET6 -> Sockets.AF_INET6;
            case UNIX -> throw new UnsupportedOperationException("uring4j: UdpSocket is for INET and INET6");
        };
        int fd = Sockets.socket(domain, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw NetErrors.of("socket", fd);
        }
        return new UdpSocket(uring.loop(), fd);
    }

    /** A socket bound to {@code local} (port 0: an ephemeral port, see {@link #localAddress()}). */
    public static UdpSocket bind(Uring uring, InetSocketAddress local) throws IOException {
        UdpSocket socket = open(uring, SocketAddresses.family(local) == Sockets.AF_INET
                ? StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SocketAddresses.SOCKADDR_IN6_SIZE, 8);
            int ret = Sockets.bind(socket.fd, sa.asSlice(0, SocketAddresses.write(local, sa)));
            if (ret < 0) {
                throw NetErrors.of("bind " + local, ret);
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            LibC.close(socket.fd);
            throw e;
        }
    }

    /** Fixes the peer: {@link #send(MemorySegment)} goes there, and only its datagrams are received. */
    public void connect(InetSocketAddress peer) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sa = arena.allocate(SocketAddresses.SOCKADDR_IN6_SIZE, 8);
            int ret = Sockets.connect(fd, sa.asSlice(0, SocketAddresses.write(peer, sa)));
            if (ret < 0) {
                throw NetErrors.of("connect " + peer, ret);
            }
        }
    }

    /** Sends all of {@code data} (native memory) as one datagram to {@code destination}; returns its length. */
    public int send(MemorySegment data, InetSocketAddress destination) throws IOException {
        return call(NetOps.sendmsg(fd, data, destination), sendName(destination));
    }

    /** Sends all of {@code data} as one datagram to the connected peer. */
    public int send(MemorySegment data) throws IOException {
        return send(data, null);
    }

    /** {@link #send(MemorySegment, InetSocketAddress)} without blocking. */
    public CompletableFuture<Integer> sendAsync(MemorySegment data, InetSocketAddress destination) {
        return async(NetOps.sendmsg(fd, data, destination), sendName(destination));
    }

    private static String sendName(InetSocketAddress destination) {
        return destination == null ? "sendmsg" : "sendmsg to " + destination;
    }

    /** Waits for one datagram and reads it into {@code buffer} (native memory). */
    public Datagram receive(MemorySegment buffer) throws IOException {
        MessageOp op = NetOps.recvmsg(fd, buffer);
        return op.datagram(call(op, "recvmsg"));
    }

    /**
     * {@link #receive}, waiting at most {@code timeout} (the kernel cancels the receive itself, through a linked
     * LINK_TIMEOUT): {@link java.net.SocketTimeoutException} if no datagram came, as with the JDK's SO_TIMEOUT.
     */
    public Datagram receive(MemorySegment buffer, Duration timeout) throws IOException {
        MessageOp op = NetOps.recvmsg(fd, buffer);
        return op.datagram(call(op, timeout, "recvmsg"));
    }

    /** {@link #receive} without blocking. */
    public CompletableFuture<Datagram> receiveAsync(MemorySegment buffer) {
        MessageOp op = NetOps.recvmsg(fd, buffer);
        return async(op, "recvmsg").thenApply(op::datagram);
    }
}
