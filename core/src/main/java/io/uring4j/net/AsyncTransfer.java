package io.uring4j.net;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.Timespec;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One direction of an asynchronous socket channel — its reads or its writes — as a reusable RECVMSG or SENDMSG
 * op over the caller's buffers: one request per operation, scattering and gathering included. Direct buffers are
 * read into and written from in place; heap buffers (whose memory the GC moves) through native staging, copied at
 * the start of a write and at the completion of a read. A channel has at most one operation per direction in
 * flight, so one transfer serves them all in turn; {@link #stage} may be called again only after the previous
 * request's final CQE.
 *
 * <p>Before it becomes a request, an operation is tried in place ({@link #attempt}), as the JDK's
 * channels try theirs: one non-blocking system call that, when the socket is ready, completes the operation on
 * the calling thread — no request, no hand-over to the loop and back.
 *
 * <p>Memory: the msghdr, the iovecs and the staging belong to this op, which the runtime keeps referenced until
 * the request's final CQE — after a timeout, a cancel or a close too — and so do the caller's buffers (their
 * memory stays reachable). All of it is GC-managed: nothing is freed while the kernel may still use it.
 */
final class AsyncTransfer implements Op {
    /** The most heap bytes one operation stages: a larger heap buffer is read or written in part, as is allowed. */
    static final int STAGING_MAX = 64 * 1024;
    /** IOV_MAX: the JDK's gathering writes take as many buffers at most. */
    static final int IOV_MAX = 1024;
    private static final long MSG_IOV = 16;
    private static final long MSG_IOVLEN = 24;
    /** What {@link #attempt} returns when the operation must wait: it goes to the ring as a request. */
    static final int WOULD_BLOCK = Integer.MIN_VALUE;

    private final int fd;
    private final boolean read;
    private MemorySegment message = MemorySegment.NULL;
    /** A request's link timeout, when it has one: one operation at a time, so one per direction. */
    private MemorySegment timespec;
    private MemorySegment staging = MemorySegment.NULL;
    /** The caller's buffers while an operation is in flight (kept reachable until its final CQE). */
    private ByteBuffer[] buffers;
    /** Per iovec: the index of its buffer, where it is staged (-1: a direct buffer, used in place), and its length. */
    private int[] bufferIndex = new int[1];
    private int[] stagedAt = new int[1];
    private int[] lengths = new int[1];
    private int iovecs;
    /** The memory of the first iovec: all of an operation on one buffer, for {@link #attempt}. */
    private MemorySegment first;

    AsyncTransfer(int fd, boolean read) {
        this.fd = fd;
        this.read = read;
    }

    /**
     * Sets up an operation on {@code buffers[offset, offset + length)} between their positions and limits; heap bytes
     * to write are copied now. Returns the bytes asked for: 0 when there is no room or nothing to write.
     */
    long stage(ByteBuffer[] buffers, int offset, int length) {
        int heapBytes = 0;
        for (int i = offset; i < offset + length; i++) {
            if (!buffers[i].isDirect()) {
                heapBytes = (int) Math.min(STAGING_MAX, (long) heapBytes + buffers[i].remaining());
            }
        }
        if (staging.byteSize() < heapBytes) {
            staging = Arena.ofAuto().allocate(Math.max(256, Integer.highestOneBit(heapBytes - 1) << 1), 8);
        }
        int n = Math.min(length, IOV_MAX);
        if (bufferIndex.length < n) {
            bufferIndex = new int[n];
            stagedAt = new int[n];
            lengths = new int[n];
        }
        long iovBytes = Sockets.MSGHDR_SIZE + Sockets.IOVEC_SIZE * n;
        if (message.byteSize() < iovBytes) {
            message = Arena.ofAuto().allocate(iovBytes, 8);
        }
        long total = 0;
        int staged = 0;
        int iov = 0;
        for (int i = offset; i < offset + length && iov < IOV_MAX; i++) {
            ByteBuffer b = buffers[i];
            int rem = b.remaining();
            if (rem == 0) {
                continue;
            }
            MemorySegment data;
            int len;
            if (b.isDirect()) {
                data = MemorySegment.ofBuffer(b);
                len = rem;
                stagedAt[iov] = -1;
            } else {
                len = Math.min(rem, STAGING_MAX - staged);
                if (len == 0) {
                    break;                  // the staging is full: this operation transfers what came before
                }
                if (!read) {
                    MemorySegment.copy(MemorySegment.ofBuffer(b), 0, staging, staged, len);
                }
                data = staging.asSlice(staged, len);
                stagedAt[iov] = staged;
                staged += len;
            }
            if (iov == 0) {
                first = data;
            }
            long at = Sockets.MSGHDR_SIZE + Sockets.IOVEC_SIZE * iov;
            message.set(JAVA_LONG, at, data.address());
            message.set(JAVA_LONG, at + 8, len);
            bufferIndex[iov] = i;
            lengths[iov] = len;
            total += len;
            iov++;
        }
        message.asSlice(0, Sockets.MSGHDR_SIZE).fill((byte) 0);     // no name, no control data, no flags
        message.set(JAVA_LONG, MSG_IOV, message.address() + Sockets.MSGHDR_SIZE);
        message.set(JAVA_LONG, MSG_IOVLEN, iov);
        this.iovecs = iov;
        this.buffers = total == 0 ? null : buffers;
        return total;
    }

    /**
     * Tries the staged operation now, on the calling thread, with one non-blocking recv or send (recvmsg or
     * sendmsg over several buffers): the bytes transferred (0: end of stream, for a read) or {@code -errno};
     * {@link #WOULD_BLOCK} when the socket is not ready, or when the channel is closing (the request then fails as
     * a close makes it fail). The fd is held for the call, so a concurrent close cannot
     * hand its number to another socket under it.
     */
    int attempt(FdGuard guard) {
        try {
            guard.acquire();
        } catch (ClosedChannelException closing) {
            return WOULD_BLOCK;
        }
        int n;
        try {
            if (iovecs == 1) {
                n = read ? Sockets.recv(fd, first, Sockets.MSG_DONTWAIT)
                        : Sockets.send(fd, first, Sockets.MSG_DONTWAIT | Sockets.MSG_NOSIGNAL);
            } else {
                n = read ? Sockets.recvmsg(fd, message, Sockets.MSG_DONTWAIT)
                        : Sockets.sendmsg(fd, message, Sockets.MSG_DONTWAIT | Sockets.MSG_NOSIGNAL);
            }
        } finally {
            guard.release();
        }
        return n == -Errno.EAGAIN ? WOULD_BLOCK : n;
    }

    /** The timespec memory for this direction's link timeouts, as long as the transfer lives. */
    MemorySegment timespec() {
        if (timespec == null) {
            timespec = Arena.ofAuto().allocate(Timespec.SIZE, 8);
        }
        return timespec;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        if (read) {
            sqe.prepRecvmsg(fd, message, 0);
        } else {
            sqe.prepSendmsg(fd, message, Sockets.MSG_NOSIGNAL);    // a vanished peer is EPIPE, never SIGPIPE
        }
    }

    /**
     * After the request's final CQE with {@code n >= 0} bytes: copies what a read staged into its heap buffers and
     * moves the buffers' positions past the bytes transferred, in order.
     */
    void finish(long n) {
        long left = n;
        for (int k = 0; k < iovecs && left > 0; k++) {
            ByteBuffer b = buffers[bufferIndex[k]];
            int part = (int) Math.min(lengths[k], left);
            if (read && stagedAt[k] >= 0) {
                MemorySegment.copy(staging, stagedAt[k], MemorySegment.ofBuffer(b), 0, part);
            }
            b.position(b.position() + part);
            left -= part;
        }
        release();
    }

    /** The operation is over: the caller's buffers are no longer held. */
    void release() {
        buffers = null;
        first = null;
    }

    /** An operation's result as the API types it: Long for a vectored operation, Integer otherwise. */
    @SuppressWarnings("unchecked")
    static <V extends Number> V count(boolean vectored, long n) {
        return (V) (vectored ? (Number) n : (Number) (int) n);
    }
}
