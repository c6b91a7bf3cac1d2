package io.uring4j.portable;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * READ, WRITE, READV, WRITEV, READ_FIXED and WRITE_FIXED (the kernel's io_uring/rw.c): their prep, their first
 * issue in enter without blocking ({@link #tryInline}), and their issue on a worker or where readiness resumed
 * them.
 */
final class ReadWrite {
    private static final int MAX_IOVECS = 1024;

    private final PortableRing ring;

    ReadWrite(PortableRing ring) {
        this.ring = ring;
    }

    /** The prep of READ, WRITE and the fixed ones: a valid I/O priority class. */
    static int prep(Request r) {
        return (r.ioprio >>> 13) > 3 ? -Errno.EINVAL : 0;
    }

    /** READV and WRITEV: the iovecs are copied now; a buffer-select READV takes one iovec's length only. */
    static int prepVectored(Request r) {
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {
            return selectOneIovec(r);
        }
        int ret = prep(r);
        return ret < 0 ? ret : copyIovecs(r);
    }

    /**
     * READV with BUFFER_SELECT takes exactly one iovec, and only its length: the most to read into the selected
     * buffer (the kernel's io_iov_buffer_select_prep). It then runs as a READ of that length.
     */
    private static int selectOneIovec(Request r) {
        if (r.len != 1) {
            return -Errno.EINVAL;
        }
        if (r.addr == 0) {
            return -Errno.EFAULT;
        }
        long len = PortableRing.USER.get(JAVA_LONG, r.addr + 8);
        if (len < 0 || len > Integer.MAX_VALUE) {
            return -Errno.EINVAL;
        }
        r.len = (int) len;
        return 0;
    }

    /** The kernel imports iovecs at prep: the application may reuse them as soon as submit returns. */
    private static int copyIovecs(Request r) {
        if (r.len < 0 || r.len > MAX_IOVECS) {
            return -Errno.EINVAL;
        }
        long bytes = 16L * r.len;
        if (r.iov == null || r.iov.byteSize() < bytes) {
            r.iov = Arena.ofAuto().allocate(Math.max(bytes, 64), 8);
        }
        if (bytes > 0) {
            if (r.addr == 0) {
                return -Errno.EFAULT;
            }
            MemorySegment.copy(PortableRing.USER, r.addr, r.iov, 0, bytes);
        }
        return 0;
    }

    /**
     * The kernel's first issue of a read or write, made in enter. O_DIRECT I/O starts on native AIO
     * ({@link DirectIo}) and completes later ({@link PortableRing#PENDING}). A buffered read copies what the
     * file has cached (or a pipe holds) right here instead of on an io-wq worker; a pipe, socket or eventfd with
     * nothing to read is armed on the poller. {@link PortableRing#NEEDS_WORKER} when a regular file would block
     * (EAGAIN), for a positional read that came up short (the worker reads it all again: harmless at an
     * offset), for buffered writes, and for anything AIO cannot take. It costs one fcntl(F_GETFL) per run of
     * requests on one fd in an SQ batch ({@link FileFacts}).
     */
    int tryInline(Request r) {
        boolean plain = r.opcode == Opcode.READ || r.opcode == Opcode.READ_FIXED;
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {       // READ or one-iovec READV
            int fd = ring.files.fd(r);
            if (fd < 0) {
                return fd;
            }
            int flags = ring.fileFacts.flags(fd);
            return flags < 0 || (flags & FileFacts.O_DIRECT) != 0 ? PortableRing.NEEDS_WORKER : readSelect(r, fd, true);
        }
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return fd;
        }
        int fileFlags = ring.fileFacts.flags(fd);
        if (fileFlags >= 0 && (fileFlags & FileFacts.O_DIRECT) != 0) {
            if ((r.opcode == Opcode.READ_FIXED || r.opcode == Opcode.WRITE_FIXED)
                    && ring.buffers.check(r.bufIndex, r.addr, r.len) < 0) {
                return PortableRing.NEEDS_WORKER;           // the worker reports it
            }
            return ring.directIo.start(r, fd);
        }
        if (fileFlags < 0 || !plain && r.opcode != Opcode.READV) {
            return PortableRing.NEEDS_WORKER;
        }
        long wanted;
        long res;
        long off = r.off;
        if (plain) {
            if (r.opcode == Opcode.READ_FIXED && ring.buffers.check(r.bufIndex, r.addr, r.len) < 0) {
                return PortableRing.NEEDS_WORKER;           // the worker reports it
            }
            wanted = Integer.toUnsignedLong(r.len);
            long iov = Readiness.singleIovec(r.addr, wanted);
            res = Sys.readv(fd, iov, 1, off, Sys.RWF_NOWAIT);
            if (res == -Errno.ESPIPE && off != -1) {
                off = -1;           // a stream ignores the offset (as its read_iter does), and what was read is gone
                res = Sys.readv(fd, iov, 1, off, Sys.RWF_NOWAIT);
            }
        } else {
            wanted = iovecTotal(r);
            res = Sys.readv(fd, r.iov.address(), r.len, r.off, r.opFlags | Sys.RWF_NOWAIT);
        }
        if (res == -Errno.EAGAIN) {
            // A pipe, socket or eventfd waits on the poller from here; a regular file (which epoll refuses
            // with EPERM) reads its page-cache miss on a worker.
            int armed = ring.await(r, fd);
            return armed == -Errno.EPERM ? PortableRing.NEEDS_WORKER : armed;
        }
        if (res == -Errno.EOPNOTSUPP || res == -Errno.ESPIPE || res >= 0 && res < wanted && off != -1) {
            return PortableRing.NEEDS_WORKER;
        }
        r.wanted = (int) Math.min(wanted, Integer.MAX_VALUE);      // a short stream read fails a link too
        return (int) res;
    }

    /** READ, WRITE, READ_FIXED, WRITE_FIXED (and a buffer-select READV) on {@code fd}. */
    int issue(Request r, int fd) {
        boolean fixed = r.opcode == Opcode.READ_FIXED || r.opcode == Opcode.WRITE_FIXED;
        if (fixed) {
            int check = ring.buffers.check(r.bufIndex, r.addr, r.len);
            if (check < 0) {
                return check;
            }
        }
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {
            return readSelect(r, fd, false);
        }
        r.wanted = r.len;
        boolean write = r.opcode == Opcode.WRITE || r.opcode == Opcode.WRITE_FIXED;
        return (int) Readiness.transfer(ring, r, fd, write, r.addr, -1, r.off, 0);
    }

    /** READV and WRITEV on {@code fd}: the copied iovecs, or with BUFFER_SELECT one selected buffer. */
    int issueVectored(Request r, int fd) {
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {
            return issue(r, fd);
        }
        r.wanted = (int) Math.min(iovecTotal(r), Integer.MAX_VALUE);
        return (int) Readiness.transfer(ring, r, fd, r.opcode == Opcode.WRITEV, r.iov.address(), r.len, r.off,
                r.opFlags);
    }

    /**
     * READ (or one-iovec READV) into the next buffer of group {@code buf_group} (at most {@code len} bytes of
     * it): F_BUFFER and the id go with the result; a read that ends up waiting leaves the buffer in the group, as
     * in the kernel. {@code inline}: the first try in enter (or where readiness resumed it) without blocking, as
     * a plain read's; a pipe or socket then waits on the poller, a regular file's miss goes to a worker. Buffered
     * reads of one pipe thus run one after the other on one thread, in order, never side by side on workers.
     */
    private int readSelect(Request r, int fd, boolean inline) {
        BufRings.Group group = ring.bufRings.group(r.bufIndex);
        if (group == null) {
            return -Errno.ENOBUFS;
        }
        long res;
        synchronized (group) {
            if (!group.hasBuffer()) {
                return -Errno.ENOBUFS;
            }
            r.wanted = r.len == 0 ? group.len() : Math.min(r.len, group.len());
            int bid = group.bid();
            if (inline) {
                long iov = Readiness.singleIovec(group.addr(), Integer.toUnsignedLong(r.wanted));
                long off = r.off;
                res = Sys.readv(fd, iov, 1, off, Sys.RWF_NOWAIT);
                if (res == -Errno.ESPIPE && off != -1) {
                    off = -1;       // a stream ignores the offset
                    res = Sys.readv(fd, iov, 1, off, Sys.RWF_NOWAIT);
                }
                if (res == -Errno.EOPNOTSUPP || res >= 0 && res < r.wanted && off != -1) {
                    return PortableRing.NEEDS_WORKER;       // as for a plain read: a worker finishes it
                }
            } else {
                res = Readiness.transfer(ring, r, fd, false, group.addr(), -1, r.off, 0);
            }
            if (res >= 0) {
                group.consume();
                r.cqeFlags = CqeFlags.F_BUFFER | (bid << CqeFlags.BUFFER_SHIFT);
                return (int) res;
            }
            if (!inline || res != -Errno.EAGAIN) {
                return (int) res;
            }
        }
        int armed = ring.await(r, fd);        // outside the group's monitor
        return armed == -Errno.EPERM ? PortableRing.NEEDS_WORKER : armed;
    }

    /** The bytes a READV/WRITEV's copied iovecs cover. */
    static long iovecTotal(Request r) {
        long total = 0;
        for (int i = 0; i < r.len; i++) {
            total += r.iov.get(JAVA_LONG, 16L * i + 8);
        }
        return total;
    }
}
