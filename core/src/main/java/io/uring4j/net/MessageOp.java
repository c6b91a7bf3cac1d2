package io.uring4j.net;

import io.uring4j.ring.Sqe;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A sendmsg or recvmsg of one buffer with an address — a datagram — as an {@link Op} for any of the runtime's
 * styles. The msghdr, its iovec and the sockaddr are memory this op owns (they do not fit a request's 64-byte
 * scratch, and a receive's sender must outlive the request slot), so they stay valid until the request's final
 * CQE whatever the caller does meanwhile, and the sender can be read after the completion, from any thread that
 * saw it.
 *
 * <p>An op may be submitted again once it has completed (one request at a time): each submit rewrites the
 * msghdr, so a callback-style receiver needs one op per socket, not one per datagram.
 */
public final class MessageOp implements Op {
    private static final long IOVEC = Sockets.MSGHDR_SIZE;
    private static final long NAME = IOVEC + Sockets.IOVEC_SIZE;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    private static final long MSG_CONTROL = 32;

    private final boolean send;
    private final int fd;
    private final MemorySegment buffer;
    private final MemorySegment memory;
    /** The bytes of {@link #buffer} the message covers. */
    private long length;
    /** The sockaddr's length: the destination's for a send (0: the connected peer), the room for a receive. */
    private int nameLength;

    /** See {@link NetOps#sendmsg} and {@link NetOps#recvmsg}. */
    MessageOp(boolean send, int fd, MemorySegment buffer, InetSocketAddress destination) {
        NetOps.requireNative(buffer);
        this.send = send;
        this.fd = fd;
        this.buffer = buffer;
        this.memory = Arena.ofAuto().allocate(NAME + SocketAddresses.SOCKADDR_IN6_SIZE, 8);
        this.length = buffer.byteSize();
        if (!send) {
            nameLength = SocketAddresses.SOCKADDR_IN6_SIZE;
        } else if (destination == null) {
            nameLength = 0;
        } else {
            nameLength = SocketAddresses.write(destination, memory.asSlice(NAME));
        }
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        if (send) {
            sqe.prepSendmsg(fd, header(), Sockets.MSG_NOSIGNAL);
        } else {
            sqe.prepRecvmsg(fd, header(), 0);
        }
    }

    /**
     * Aims the op's next message, for a channel that reuses one op per direction: the first {@code length} bytes
     * of its buffer, to the sockaddr of {@code nameLength} bytes its owner wrote at {@link #name()} (0: the
     * connected peer; a receive's room for the source).
     */
    MessageOp aim(long length, int nameLength) {
        this.length = length;
        this.nameLength = nameLength;
        return this;
    }

    /** Where the message's sockaddr is: the destination of a send, the source of a received datagram. */
    MemorySegment name() {
        return memory.asSlice(NAME, SocketAddresses.SOCKADDR_IN6_SIZE);
    }

    /** The msghdr, written afresh: what a request's SQE names, or a recvmsg/sendmsg system call's argument. */
    MemorySegment header() {
        memory.set(JAVA_LONG, 0, nameLength == 0 ? 0 : memory.address() + NAME);
        memory.set(JAVA_LONG, Sockets.MSGHDR_NAMELEN, nameLength);        // with the padding after it
        memory.set(JAVA_LONG, MSG_IOV, memory.address() + IOVEC);
        memory.set(JAVA_LONG, MSG_IOVLEN, 1);
        memory.set(JAVA_LONG, MSG_CONTROL, 0);
        memory.set(JAVA_LONG, MSG_CONTROL + 8, 0);
        memory.set(JAVA_LONG, Sockets.MSGHDR_FLAGS, 0);                    // the kernel writes the receive's flags here
        memory.set(JAVA_LONG, IOVEC, buffer.address());
        memory.set(JAVA_LONG, IOVEC + 8, length);
        return memory;
    }

    /** After a completed receive: who sent the datagram ({@code null} if the kernel gave no address). */
    public InetSocketAddress sender() {
        return Sockets.msgNameLength(memory) == 0 ? null : SocketAddresses.read(memory.asSlice(NAME));
    }

    /** After a completed receive: the kernel's {@code msg_flags} ({@link Sockets#MSG_TRUNC}, ...). */
    public int messageFlags() {
        return Sockets.msgFlags(memory);
    }

    /** After a completed receive: whether the datagram was longer than the buffer (its tail is lost). */
    public boolean truncated() {
        return (messageFlags() & Sockets.MSG_TRUNC) != 0;
    }

    /** After a receive that completed with {@code length} bytes: the datagram's facts. */
    public Datagram datagram(int length) {
        return new Datagram(length, sender(), truncated());
    }
}
