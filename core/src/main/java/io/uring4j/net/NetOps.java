package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Sockets;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * Socket requests as {@link Op}s for any of the runtime's styles ({@code loop.submit}, {@code submitAsync},
 * {@code call}). Addresses are written into the request's own scratch memory, so they live exactly as long as
 * the request. Buffers are native memory the caller keeps alive until the completion.
 *
 * <p>bind, listen, setsockopt and getsockname stay plain system calls (see {@link TcpListener}): they never
 * block, and a ring round trip would only add latency.
 */
public final class NetOps {
    private NetOps() {
    }

    /** socket(domain, type | SOCK_CLOEXEC, protocol); the result is the fd. */
    public static Op socket(int domain, int type, int protocol) {
        return (sqe, scratch) -> sqe.prepSocket(domain, type | Sockets.SOCK_CLOEXEC, protocol);
    }

    /** accept4 without the peer's address (ask the socket for it); the result is the connected fd. */
    public static Op accept(int listenFd) {
        return (sqe, scratch) -> sqe.prepAccept(listenFd, MemorySegment.NULL, MemorySegment.NULL, Sockets.SOCK_CLOEXEC);
    }

    /** Multishot accept: one completion with F_MORE per connection, each result an fd. */
    public static Op acceptMultishot(int listenFd) {
        return (sqe, scratch) -> sqe.prepMultishotAccept(listenFd, MemorySegment.NULL, MemorySegment.NULL,
                Sockets.SOCK_CLOEXEC);
    }

    /**
     * accept4 straight into the loop's registered file table ({@link io.uring4j.runtime.UringBuilder#directDescriptors}):
     * the result is the slot the kernel picked, a direct descriptor for {@link #recvDirect}, {@link #sendDirect}
     * and {@link io.uring4j.runtime.Op#closeDirect} on the same loop — no fd in the process's table, no fd
     * lookup per request. ENFILE when the table is full.
     */
    public static Op acceptDirect(int listenFd) {
        return (sqe, scratch) -> sqe.prepAcceptDirect(listenFd, MemorySegment.NULL, MemorySegment.NULL, 0,
                OpFlags.FileIndex.ALLOC);
    }

    /** {@link #acceptDirect}, multishot: one completion with F_MORE per connection, each result a slot. */
    public static Op acceptDirectMultishot(int listenFd) {
        return (sqe, scratch) -> sqe.prepMultishotAcceptDirect(listenFd, MemorySegment.NULL, MemorySegment.NULL, 0);
    }

    /** connect to {@code address}; the sockaddr is written into the request's scratch. */
    public static Op connect(int fd, InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address: " + address);
        }
        return (sqe, scratch) -> {
            int len = SocketAddresses.write(address, scratch);
            sqe.prepConnect(fd, scratch.asSlice(0, len));
        };
    }

    /** send of all of {@code buffer} with MSG_NOSIGNAL (a vanished peer is EPIPE, never SIGPIPE). */
    public static Op send(int fd, MemorySegment buffer) {
        requireNative(buffer);
        return (sqe, scratch) -> sqe.prepSend(fd, buffer, Sockets.MSG_NOSIGNAL);
    }

    /**
     * Zero-copy send of all of {@code buffer} (SEND_ZC, 6.0; MSG_NOSIGNAL): the kernel sends from the pages
     * instead of copying them. Two CQEs: the byte count with F_MORE, then F_NOTIF once {@code buffer} is no longer
     * read; futures and blocking calls report the count at the notification (callbacks see both). Worth it for
     * large writes only — the notification costs a completion, and loopback copies anyway.
     */
    public static Op sendZc(int fd, MemorySegment buffer) {
        requireNative(buffer);
        return (sqe, scratch) -> sqe.prepSendZc(fd, buffer, Sockets.MSG_NOSIGNAL, 0);
    }

    /** send of {@code length} bytes at the raw native address {@code address}; for reusable, allocation-free ops. */
    static void prepSend(io.uring4j.ring.Sqe sqe, int fd, long address, int length) {
        sqe.prepRw(Opcode.SEND, fd, address, length, 0).opFlags(Sockets.MSG_NOSIGNAL);
    }

    /** recv into {@code buffer}; the result is the byte count, 0 at end of stream. */
    public static Op recv(int fd, MemorySegment buffer) {
        requireNative(buffer);
        return (sqe, scratch) -> sqe.prepRecv(fd, buffer, 0);
    }

    /** recv on direct descriptor {@code slot} (IOSQE_FIXED_FILE) into {@code buffer}; 0 at end of stream. */
    public static Op recvDirect(int slot, MemorySegment buffer) {
        requireNative(buffer);
        return (sqe, scratch) -> sqe.prepRecv(slot, buffer, 0).addFlags(SqeFlags.FIXED_FILE);
    }

    /** send of all of {@code buffer} on direct descriptor {@code slot} (IOSQE_FIXED_FILE), with MSG_NOSIGNAL. */
    public static Op sendDirect(int slot, MemorySegment buffer) {
        requireNative(buffer);
        return (sqe, scratch) -> sqe.prepSend(slot, buffer, Sockets.MSG_NOSIGNAL).addFlags(SqeFlags.FIXED_FILE);
    }

    /** Multishot recv into buffers picked from provided-buffer group {@code group}. */
    public static Op recvMultishot(int fd, int group) {
        return (sqe, scratch) -> sqe.prepRecvMultishot(fd, 0).bufferSelect(group);
    }

    /**
     * sendmsg of all of {@code buffer} as one datagram to {@code destination} ({@code null}: the connected peer);
     * the result is the byte count. The msghdr and sockaddr are the op's own memory.
     */
    public static MessageOp sendmsg(int fd, MemorySegment buffer, InetSocketAddress destination) {
        return new MessageOp(true, fd, buffer, destination);
    }

    /**
     * recvmsg of one datagram into {@code buffer}; the result is the byte count, and once it has completed the op
     * tells the sender and whether the datagram was truncated ({@link MessageOp#datagram}).
     */
    public static MessageOp recvmsg(int fd, MemorySegment buffer) {
        return new MessageOp(false, fd, buffer, null);
    }

    /** shutdown(fd, how): {@link Sockets#SHUT_RD}, {@link Sockets#SHUT_WR} or {@link Sockets#SHUT_RDWR}. */
    public static Op shutdown(int fd, int how) {
        return (sqe, scratch) -> sqe.prepShutdown(fd, how);
    }

    static void requireNative(MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException("heap memory cannot be handed to the kernel: use a native segment");
        }
    }
}
