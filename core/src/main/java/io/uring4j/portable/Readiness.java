package io.uring4j.portable;

import io.uring4j.ring.Opcode;
import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Reads and writes on a worker, made cancellable the way the kernel makes them so: try without blocking
 * (RWF_NOWAIT), and if the file is not ready, wait for readiness — here with poll(2) on the file and on the
 * worker's own eventfd, which cancel (or an expiring LINK_TIMEOUT) writes to. A blocked pipe or socket read can
 * so be cancelled; a regular file is always "ready", and its read simply blocks in the page cache as usual.
 *
 * <p>Per worker thread: a 16-byte iovec, two pollfds and the wake eventfd, made once, so a request allocates
 * nothing.
 */
final class Readiness {
    private static final ThreadLocal<Readiness> PER_THREAD = ThreadLocal.withInitial(Readiness::new);

    private final MemorySegment iov;
    private final MemorySegment pollfds;
    private final MemorySegment counter;
    private final int wakeFd;

    private Readiness() {
        Arena arena = Arena.ofAuto();
        iov = arena.allocate(16, 8);
        pollfds = arena.allocate(16, 8);
        counter = arena.allocate(8, 8);
        wakeFd = Sys.eventfd(0, Sys.EFD_CLOEXEC_NONBLOCK);
    }

    /** The worker thread leaves: closes its wake eventfd. */
    static void release() {
        Readiness t = PER_THREAD.get();
        PER_THREAD.remove();
        if (t.wakeFd >= 0) {
            Sys.close(t.wakeFd);
        }
    }

    /**
     * {@code count} iovecs at {@code iovecs} (or, with {@code count == -1}, the single buffer {@code addr, len}),
     * read or written at {@code off} (-1: the file position; 0 on a pipe or socket means the same, as in the
     * kernel). Returns the result or -errno; -ECANCELED if cancelled while waiting.
     */
    static long transfer(PortableRing ring, Request r, int fd, boolean write, long iovecs, int count, long off,
                         int rwFlags) {
        Readiness t = PER_THREAD.get();
        if (count == -1) {
            t.iov.set(JAVA_LONG, 0, iovecs);
            t.iov.set(JAVA_LONG, 8, Integer.toUnsignedLong(r.len));
            iovecs = t.iov.address();
            count = 1;
        }
        long res = call(fd, write, iovecs, count, off, rwFlags | Sys.RWF_NOWAIT);
        if (res == -Errno.ESPIPE && off == 0) {
            off = -1;                               // a stream: the offset means nothing
            res = call(fd, write, iovecs, count, off, rwFlags | Sys.RWF_NOWAIT);
        }
        if (res != -Errno.EAGAIN && res != -Errno.EOPNOTSUPP) {
            return res;
        }
        if (t.wakeFd >= 0) {
            ring.wq.enterUnbounded();
            int ready;
            try {
                ready = t.await(ring, r, fd, write ? Sys.POLLOUT : Sys.POLLIN);
            } finally {
                ring.wq.exitUnbounded();
            }
            if (ready < 0) {
                return ready;       // cancelled (or poll failed)
            }
        }
        return call(fd, write, iovecs, count, off, rwFlags);
    }

    private static long call(int fd, boolean write, long iovecs, int count, long off, int flags) {
        return write ? Sys.writev(fd, iovecs, count, off, flags) : Sys.readv(fd, iovecs, count, off, flags);
    }

    /**
     * POLL_ADD, single-shot: waits on a worker until {@code fd} reports one of {@code events} (or an error or
     * hang-up, which poll reports unasked, as the kernel's does). Returns the revents mask or -ECANCELED.
     */
    static int poll(PortableRing ring, Request r, int fd, int events) {
        Readiness t = PER_THREAD.get();
        if (t.wakeFd < 0) {
            return -Errno.ENOMEM;
        }
        ring.wq.enterUnbounded();
        try {
            return t.await(ring, r, fd, (short) events);
        } finally {
            ring.wq.exitUnbounded();
        }
    }

    /** Waits until {@code fd} is ready: its revents (> 0), or -ECANCELED once cancel asked for {@code r}. */
    private int await(PortableRing ring, Request r, int fd, short events) {
        ring.lock.lock();
        try {
            if (r.cancelRequested) {
                return -Errno.ECANCELED;
            }
            r.wakeFd = wakeFd;
        } finally {
            ring.lock.unlock();
        }
        try {
            pollfds.set(JAVA_INT, 0, fd);
            pollfds.set(JAVA_SHORT, 4, events);
            pollfds.set(JAVA_INT, 8, wakeFd);
            pollfds.set(JAVA_SHORT, 12, Sys.POLLIN);
            while (true) {
                pollfds.set(JAVA_SHORT, 6, (short) 0);
                pollfds.set(JAVA_SHORT, 14, (short) 0);
                int n = Sys.poll(pollfds.address(), 2, -1);
                if (n < 0 && n != -Errno.EINTR) {
                    return n;
                }
                if (pollfds.get(JAVA_SHORT, 14) != 0) {
                    Sys.read(wakeFd, counter.address(), 8);     // consume the wake-up
                }
                ring.lock.lock();
                try {
                    if (r.cancelRequested) {
                        r.wakeFd = -1;
                        return -Errno.ECANCELED;
                    }
                    int revents = pollfds.get(JAVA_SHORT, 6) & 0xffff;
                    if (revents != 0) {
                        r.wakeFd = -1;
                        return revents;
                    }
                } finally {
                    ring.lock.unlock();
                }
            }
        } finally {
            if (r.wakeFd >= 0) {
                ring.lock.lock();
                r.wakeFd = -1;
                ring.lock.unlock();
            }
        }
    }

    /**
     * Asks a RUNNING request to stop (under the ring lock): true if it was waiting for readiness and will now
     * finish with -ECANCELED; false if it is inside a system call, which runs out — but should it come to
     * wait for readiness after all, it stops there.
     */
    static boolean interrupt(Request r, MemorySegment one) {
        if (r.cancelRequested) {
            return false;
        }
        r.cancelRequested = true;
        if (r.wakeFd < 0) {
            return r.opcode == Opcode.POLL_ADD;    // a poll always waits, so it will see the flag
        }
        Sys.write(r.wakeFd, one.address(), 8);
        return true;
    }
}
