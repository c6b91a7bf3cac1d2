package io.uring4j.portable;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Requests that wait for a file to become ready, the way the kernel runs them: try without blocking, and if
 * the file is not ready, arm a wait on the ring's {@link Poller} and let the thread go; the poller runs the
 * request again once the file is ready. Reads and writes try with RWF_NOWAIT; POLL_ADD checks once and arms.
 */
final class Readiness {
    /** A file that epoll refuses (EPERM) is always ready: a regular file, whose read simply blocks as usual. */
    private static final int ALWAYS_READY = -Errno.EPERM;
    /** poll(2)'s answer for an fd that is not open; the kernel's POLL_ADD fails with EBADF. */
    private static final int POLLNVAL = 0x20;
    /**
     * Per thread: the iovec a plain READ or WRITE becomes, so a request allocates nothing. Not a
     * {@code ThreadScratch}: {@link #transfer} uses it again after arming, which takes the ring's lock and may park.
     */
    private static final ThreadLocal<MemorySegment> IOV =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(16, 8));

    private Readiness() {
    }

    /**
     * {@code count} iovecs at {@code iovecs} (or, with {@code count == -1}, the single buffer at {@code iovecs}
     * of {@link Request#wanted} bytes), read or written at {@code off} (-1: the file position; on a pipe or
     * socket any offset means the same: the kernel ignores it). Returns the result, -errno, or
     * {@link PortableRing#PENDING} once armed on the poller. Runs on a worker: a file that does not support
     * RWF_NOWAIT gets a blocking call once it is ready.
     */
    static long transfer(PortableRing ring, Request r, int fd, boolean write, long iovecs, int count, long off,
                         int rwFlags) {
        if (count == -1) {
            iovecs = singleIovec(iovecs, Integer.toUnsignedLong(r.wanted));
            count = 1;
        }
        long res = call(fd, write, iovecs, count, off, rwFlags | Sys.RWF_NOWAIT);
        if (res == -Errno.ESPIPE) {
            off = -1;                               // a stream: the kernel ignores any offset
            res = call(fd, write, iovecs, count, off, rwFlags | Sys.RWF_NOWAIT);
        }
        boolean blockingOnly = res == -Errno.EOPNOTSUPP;
        if (!write && off != -1 && res >= 0 && res < Integer.toUnsignedLong(r.wanted)) {
            // A positional read (of a file: a stream took the ESPIPE path) that found only part of its range ready,
            // e.g. holes, whose pages only a blocking read makes: the kernel's io-wq reads on, blocking, up to the
            // end of the file. This runs on a worker, as the read of a regular file always does here.
            return call(fd, false, iovecs, count, off, rwFlags);
        }
        if (res != -Errno.EAGAIN && !blockingOnly) {
            return res;
        }
        if (blockingOnly && r.revents != 0) {
            return call(fd, write, iovecs, count, off, rwFlags);     // ready now: its blocking call
        }
        int armed = ring.await(r, fd);
        return armed == ALWAYS_READY ? call(fd, write, iovecs, count, off, rwFlags) : armed;
    }

    /** The calling thread's one iovec, set to {@code len} bytes at {@code addr}: its address. */
    static long singleIovec(long addr, long len) {
        MemorySegment iov = IOV.get();
        iov.set(JAVA_LONG, 0, addr);
        iov.set(JAVA_LONG, 8, len);
        return iov.address();
    }

    private static long call(int fd, boolean write, long iovecs, int count, long off, int flags) {
        return write ? Sys.writev(fd, iovecs, count, off, flags) : Sys.readv(fd, iovecs, count, off, flags);
    }

    /**
     * POLL_ADD: the revents once {@code fd} reports one of {@code events} (or an error or hang-up, which poll
     * reports unasked, as the kernel's does) — at once if it does now, else when the poller sees it. A multishot
     * poll stays armed and posts one CQE with F_MORE per wake-up until it is cancelled.
     */
    static int poll(PortableRing ring, Request r, int fd, int events, boolean multishot) {
        int mask = events | OpFlags.Poll.POLLERR | OpFlags.Poll.POLLHUP;
        if (r.revents != 0) {
            return r.revents & mask;
        }
        if (multishot) {
            return ring.awaitMultishot(r, fd, events);
        }
        int now = SocketSys.readyNow(fd, events);
        if (now != 0) {
            return now < 0 ? now : (now & POLLNVAL) != 0 ? -Errno.EBADF : now & mask;
        }
        int armed = ring.await(r, fd, events);
        return armed == ALWAYS_READY ? SocketSys.readyNow(fd, events) & mask : armed;
    }
}
