package io.uring4j.portable;

import io.uring4j.ring.OpFlags;
import io.uring4j.ring.Opcode;
import io.uring4j.ring.SqeFlags;
import io.uring4j.sys.Errno;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The opcodes the portable engine implements, and their execution. Everything else completes with -EINVAL, as
 * on a kernel that predates the opcode, and {@code REGISTER_PROBE} reports exactly {@link #supports}.
 */
final class Ops {
    static final int SUPPORTED_SQE_FLAGS = SqeFlags.FIXED_FILE | SqeFlags.IO_DRAIN | SqeFlags.IO_LINK
            | SqeFlags.IO_HARDLINK | SqeFlags.ASYNC | SqeFlags.BUFFER_SELECT | SqeFlags.CQE_SKIP_SUCCESS;
    /** The highest opcode we implement: probe's last_op, as a kernel of that vintage would report. */
    static final int LAST_OP = Opcode.LISTEN;
    private static final int MAX_IOVECS = 1024;

    /** O_DIRECT, as open(2) and F_GETFL have it. */
    private static final int O_DIRECT = 0x4000;

    private final PortableRing ring;
    private final SocketOps sockets;
    /** {@link #workClass}: unhashed work for the bounded workers, and work for the unbound ones. */
    static final long BOUND = 0;
    static final long UNBOUND = -1;
    private static final int UNKNOWN_FLAGS = Integer.MIN_VALUE;
    private static final long UNKNOWN_KIND = Long.MIN_VALUE;

    /**
     * The thread consuming an SQ batch, and what it learnt last about one fd ({@link #fileFlags},
     * {@link #workClass}).
     */
    private Thread batchThread;
    private int batchFd = -1;
    private int batchFlags;
    private long batchKind;

    Ops(PortableRing ring) {
        this.ring = ring;
        this.sockets = new SocketOps(ring);
    }

    static boolean supports(int opcode) {
        return switch (opcode) {
            case Opcode.NOP, Opcode.READV, Opcode.WRITEV, Opcode.FSYNC, Opcode.READ_FIXED, Opcode.WRITE_FIXED,
                 Opcode.TIMEOUT, Opcode.TIMEOUT_REMOVE, Opcode.ASYNC_CANCEL, Opcode.LINK_TIMEOUT, Opcode.OPENAT,
                 Opcode.CLOSE, Opcode.STATX, Opcode.READ, Opcode.WRITE, Opcode.FADVISE, Opcode.POLL_ADD,
                 Opcode.POLL_REMOVE, Opcode.FALLOCATE, Opcode.FTRUNCATE, Opcode.PROVIDE_BUFFERS,
                 Opcode.REMOVE_BUFFERS, Opcode.MSG_RING, Opcode.FILES_UPDATE, Opcode.FIXED_FD_INSTALL -> true;
            default -> isSocket(opcode) || PathOps.isPath(opcode) || Splice.isSplice(opcode);
        };
    }

    /** {@code struct io_uring_probe}: last_op, ops_len, then {op, resv, flags = SUPPORTED, resv2} per opcode. */
    static int probe(long arg, int nr) {
        if (arg == 0 || nr < 0) {
            return -Errno.EINVAL;
        }
        for (long at = arg; at < arg + 16 + 8L * nr; at++) {
            if (PortableRing.USER.get(JAVA_BYTE, at) != 0) {
                return -Errno.EINVAL;     // the kernel insists on a zeroed probe
            }
        }
        int len = Math.min(nr, LAST_OP + 1);
        PortableRing.USER.set(JAVA_BYTE, arg, (byte) LAST_OP);
        PortableRing.USER.set(JAVA_BYTE, arg + 1, (byte) len);
        for (int op = 0; op < len; op++) {
            long at = arg + 16 + 8L * op;
            PortableRing.USER.set(JAVA_BYTE, at, (byte) op);
            PortableRing.USER.set(JAVA_SHORT, at + 2, (short) (supports(op) ? 1 : 0));
        }
        return 0;
    }

    /** The socket opcodes ({@link SocketOps}): none of them blocks, so they run inline and wait on the poller. */
    static boolean isSocket(int opcode) {
        return switch (opcode) {
            case Opcode.SOCKET, Opcode.CONNECT, Opcode.ACCEPT, Opcode.SEND, Opcode.RECV, Opcode.SENDMSG,
                 Opcode.RECVMSG, Opcode.SHUTDOWN, Opcode.SEND_ZC, Opcode.SENDMSG_ZC, Opcode.BIND, Opcode.LISTEN -> true;
            default -> false;
        };
    }

    /** SEND_ZC and SENDMSG_ZC: sent by copying, they complete twice, as the kernel's (a result, a notification). */
    static boolean isZeroCopy(int opcode) {
        return opcode == Opcode.SEND_ZC || opcode == Opcode.SENDMSG_ZC;
    }

    /** Work that may block in a system call: it runs on the io-wq, never in enter. */
    static boolean blocks(int opcode) {
        return switch (opcode) {
            case Opcode.READV, Opcode.WRITEV, Opcode.FSYNC, Opcode.READ_FIXED, Opcode.WRITE_FIXED, Opcode.STATX,
                 Opcode.READ, Opcode.WRITE, Opcode.FADVISE, Opcode.FALLOCATE, Opcode.FTRUNCATE -> true;
            default -> PathOps.isPath(opcode) || Splice.isSplice(opcode);
        };
    }

    /**
     * Blocking work other than reads and writes, which the kernel does in one issue — on its io-wq, where it
     * forces most of it, or inline — with no nonblocking attempt that could leave it waiting: a splice from an
     * empty pipe blocks inside that issue.
     */
    static boolean doneInFirstIssue(int opcode) {
        return blocks(opcode) && !isReadWrite(opcode);
    }

    /** Whether a result short of {@link Request#wanted} fails a link (reads, writes, transfers), as in the kernel. */
    static boolean failsShort(int opcode) {
        return isReadWrite(opcode) || isSocket(opcode) || Splice.isSplice(opcode);
    }

    /** Reads and writes. */
    static boolean isReadWrite(int opcode) {
        return switch (opcode) {
            case Opcode.READV, Opcode.WRITEV, Opcode.READ_FIXED, Opcode.WRITE_FIXED, Opcode.READ, Opcode.WRITE -> true;
            default -> false;
        };
    }

    /** Checks made when the SQE is read (the kernel's prep): a failure here fails the whole chain. */
    static int prep(Request r, int ioprio) {
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {
            switch (r.opcode) {
                case Opcode.RECV, Opcode.READ, Opcode.RECVMSG -> { }
                case Opcode.READV -> {
                    return selectOneIovec(r);
                }
                default -> {
                    return -Errno.EINVAL;   // provided buffers are implemented for RECV, RECVMSG, READ and READV
                }
            }
        }
        if (r.opcode == Opcode.PROVIDE_BUFFERS) {
            return BufRings.prepProvide(r);
        }
        if (r.opcode == Opcode.REMOVE_BUFFERS) {
            return BufRings.prepRemove(r);
        }
        if (r.opcode == Opcode.MSG_RING) {
            return MsgRing.prep(r);
        }
        if (isSocket(r.opcode)) {
            return SocketOps.prep(r);
        }
        if (PathOps.isPath(r.opcode)) {
            return PathOps.prep(r);
        }
        if (Splice.isSplice(r.opcode)) {
            return Splice.prep(r);
        }
        if (r.opcode == Opcode.CLOSE) {
            return r.off != 0 || r.addr != 0 || r.len != 0 || r.opFlags != 0 || r.bufIndex != 0 ? -Errno.EINVAL
                    : (r.sqeFlags & SqeFlags.FIXED_FILE) != 0 ? -Errno.EBADF
                    : r.fileIndex != 0 && r.fd != 0 ? -Errno.EINVAL : 0;
        }
        if (r.opcode == Opcode.FILES_UPDATE) {
            return (r.sqeFlags & SqeFlags.FIXED_FILE) != 0 || r.opFlags != 0 || r.fileIndex != 0 || r.len == 0
                    ? -Errno.EINVAL : 0;
        }
        if (r.opcode == Opcode.FIXED_FD_INSTALL) {
            // addr3 must be zero too: checked in the SQE, as it is not copied
            return r.off != 0 || r.addr != 0 || r.len != 0 || r.bufIndex != 0 || r.fileIndex != 0 ? -Errno.EINVAL
                    : (r.sqeFlags & SqeFlags.FIXED_FILE) == 0 ? -Errno.EBADF
                    : (r.opFlags & ~OpFlags.FileIndex.INSTALL_NO_CLOEXEC) != 0 ? -Errno.EINVAL : 0;
        }
        if (r.opcode == Opcode.FALLOCATE) {
            // mode in len, length in addr; the rest must be zero
            return r.bufIndex != 0 || r.opFlags != 0 || r.fileIndex != 0 ? -Errno.EINVAL : 0;
        }
        if (r.opcode == Opcode.FTRUNCATE) {
            // the length in off; the rest must be zero (addr3 too: checked in the SQE, as it is not copied)
            return r.opFlags != 0 || r.addr != 0 || r.len != 0 || r.bufIndex != 0 || r.fileIndex != 0
                    ? -Errno.EINVAL : 0;
        }
        if (isReadWrite(r.opcode)) {
            if ((ioprio >>> 13) > 3) {
                return -Errno.EINVAL;       // an invalid I/O priority class
            }
            return r.opcode == Opcode.READV || r.opcode == Opcode.WRITEV ? copyIovecs(r) : 0;
        }
        if (r.opcode == Opcode.TIMEOUT || r.opcode == Opcode.LINK_TIMEOUT) {
            // Other clocks, multishot and ETIME_SUCCESS are not implemented: refused as by an older kernel.
            boolean valid = ioprio == 0 && r.bufIndex == 0 && r.fileIndex == 0 && r.len == 1
                    && (r.opFlags & ~OpFlags.Timeout.ABS) == 0;
            return valid ? 0 : -Errno.EINVAL;
        }
        if (r.opcode == Opcode.POLL_ADD) {
            // Level-triggered multishot is not implemented; the update flags belong to POLL_REMOVE.
            return (r.len & ~OpFlags.Poll.ADD_MULTI) != 0 || r.addr != 0 || r.off != 0 ? -Errno.EINVAL : 0;
        }
        if (r.opcode == Opcode.POLL_REMOVE) {
            return r.len != 0 ? -Errno.EINVAL : 0;      // poll updates are not implemented
        }
        if (r.opcode == Opcode.TIMEOUT_REMOVE) {
            int flags = r.opFlags;
            boolean update = (flags & (OpFlags.Timeout.UPDATE | OpFlags.Timeout.LINK_TIMEOUT_UPDATE)) != 0;
            boolean valid = (flags & ~(OpFlags.Timeout.UPDATE | OpFlags.Timeout.LINK_TIMEOUT_UPDATE
                    | OpFlags.Timeout.ABS)) == 0 && (update || flags == 0);
            return valid ? 0 : -Errno.EINVAL;
        }
        return 0;
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
            r.iov = java.lang.foreign.Arena.ofAuto().allocate(Math.max(bytes, 64), 8);
        }
        if (bytes > 0) {
            if (r.addr == 0) {
                return -Errno.EFAULT;
            }
            java.lang.foreign.MemorySegment.copy(PortableRing.USER, r.addr, r.iov, 0, bytes);
        }
        return 0;
    }

    /**
     * Runs {@code r}: its result, {@link PortableRing#PENDING} when the timer or the poller will complete it, or
     * {@link PortableRing#NEEDS_WORKER} when it must go on on the io-wq.
     */
    int execute(Request r, boolean onWorker) {
        if (isSocket(r.opcode)) {
            return sockets.execute(r, onWorker);
        }
        if (PathOps.isPath(r.opcode)) {
            return PathOps.execute(ring, r);
        }
        return switch (r.opcode) {
            case Opcode.NOP -> (r.opFlags & ~OpFlags.Nop.INJECT_RESULT) != 0 ? -Errno.EINVAL
                    : (r.opFlags & OpFlags.Nop.INJECT_RESULT) != 0 ? r.len : 0;
            case Opcode.READ, Opcode.WRITE, Opcode.READ_FIXED, Opcode.WRITE_FIXED -> readWrite(r);
            case Opcode.READV, Opcode.WRITEV -> (r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0 ? readWrite(r) : vectored(r);
            case Opcode.PROVIDE_BUFFERS -> ring.bufRings.provide(r);
            case Opcode.REMOVE_BUFFERS -> ring.bufRings.remove(r);
            case Opcode.MSG_RING -> MsgRing.execute(ring, r);
            case Opcode.FSYNC -> {
                int fd = ring.files.fd(r);
                yield fd < 0 ? fd : (r.opFlags & ~OpFlags.Fsync.DATASYNC) != 0 ? -Errno.EINVAL
                        : Sys.fsync(fd, r.opFlags != 0);
            }
            case Opcode.CLOSE -> r.fileIndex != 0 ? ring.files.closeSlot(r.fileIndex - 1) : Sys.close(r.fd);
            case Opcode.FILES_UPDATE -> (int) r.off == FileTable.FILE_INDEX_ALLOC
                    ? ring.files.updateFilesAlloc(r.addr, r.len)
                    : ring.files.updateFiles((int) r.off, r.addr, r.len);
            case Opcode.FIXED_FD_INSTALL -> {
                // The slot's file as a new fd of the application's: close-on-exec unless asked otherwise.
                int fd = ring.files.fd(r);
                yield fd < 0 ? fd : Sys.fcntl(fd,
                        (r.opFlags & OpFlags.FileIndex.INSTALL_NO_CLOEXEC) != 0 ? Sys.F_DUPFD : Sys.F_DUPFD_CLOEXEC, 0);
            }
            case Opcode.STATX -> Sys.statx(r.fd, r.addr, r.opFlags, r.len, r.off);
            case Opcode.FADVISE -> {
                int fd = ring.files.fd(r);
                // The 64-bit length is in addr (fadvise64); older SQEs carry a 32-bit one in len.
                yield fd < 0 ? fd : Sys.fadvise(fd, r.off, r.addr != 0 ? r.addr : Integer.toUnsignedLong(r.len), r.opFlags);
            }
            case Opcode.FALLOCATE -> {
                int fd = ring.files.fd(r);
                yield fd < 0 ? fd : Sys.fallocate(fd, r.len, r.off, r.addr);
            }
            case Opcode.FTRUNCATE -> {
                int fd = ring.files.fd(r);
                yield fd < 0 ? fd : Sys.ftruncate(fd, r.off);
            }
            case Opcode.SPLICE, Opcode.TEE -> Splice.execute(ring, r);
            case Opcode.TIMEOUT -> Cancels.timeout(ring, r);
            case Opcode.TIMEOUT_REMOVE -> Cancels.timeoutRemove(ring, r);
            case Opcode.ASYNC_CANCEL -> Cancels.cancel(ring, r, -1);
            case Opcode.POLL_ADD -> {
                int fd = ring.files.fd(r);
                yield fd < 0 ? fd
                        : Readiness.poll(ring, r, fd, r.opFlags & 0xffff, (r.len & OpFlags.Poll.ADD_MULTI) != 0);
            }
            case Opcode.POLL_REMOVE -> Cancels.cancel(ring, r, Opcode.POLL_ADD);
            default -> -Errno.EINVAL;
        };
    }

    /**
     * The kernel's first issue of a read or write, made in enter. O_DIRECT I/O starts on native AIO
     * ({@link DirectIo}) and completes later ({@link PortableRing#PENDING}). A buffered read copies what the
     * file has cached (or a pipe holds) right here instead of on an io-wq worker; a pipe, socket or eventfd with
     * nothing to read is armed on the poller. {@link PortableRing#NEEDS_WORKER} when a regular file would block
     * (EAGAIN), for a positional read that came up short (the worker reads it all again: harmless at an
     * offset), for buffered writes, and for anything AIO cannot take. It costs one fcntl(F_GETFL) per run of
     * requests on one fd in an SQ batch ({@link #fileFlags}): an fd number says nothing lasting about its file
     * (it may be closed and reused).
     */
    int tryInline(Request r) {
        boolean plain = r.opcode == Opcode.READ || r.opcode == Opcode.READ_FIXED;
        if (!isReadWrite(r.opcode) || (r.sqeFlags & SqeFlags.ASYNC) != 0) {
            return PortableRing.NEEDS_WORKER;
        }
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0) {       // READ or one-iovec READV
            int fd = ring.files.fd(r);
            if (fd < 0) {
                return fd;
            }
            int flags = fileFlags(fd);
            return flags < 0 || (flags & O_DIRECT) != 0 ? PortableRing.NEEDS_WORKER : readSelect(r, fd, true);
        }
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return fd;
        }
        int fileFlags = fileFlags(fd);
        if (fileFlags >= 0 && (fileFlags & O_DIRECT) != 0) {
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
            int armed = ring.await(r, fd, OpFlags.Poll.POLLIN);
            return armed == -Errno.EPERM ? PortableRing.NEEDS_WORKER : armed;
        }
        if (res == -Errno.EOPNOTSUPP || res == -Errno.ESPIPE || res >= 0 && res < wanted && off != -1) {
            return PortableRing.NEEDS_WORKER;
        }
        r.wanted = (int) Math.min(wanted, Integer.MAX_VALUE);      // a short stream read fails a link too
        return (int) res;
    }

    /**
     * F_GETFL of {@code fd}; within one SQ batch on the thread consuming it, asked once per run of requests on
     * the same fd (64 reads of one file cost one fcntl, not 64) — as current as the kernel's own fd lookup at
     * submission, since the batch is consumed in one go.
     */
    private int fileFlags(int fd) {
        boolean batch = batchHolds(fd);
        if (batch && batchFlags != UNKNOWN_FLAGS) {
            return batchFlags;
        }
        int flags = Sys.fcntl(fd, Sys.F_GETFL, 0);
        if (batch) {
            batchFlags = flags;
        }
        return flags;
    }

    /**
     * Which io-wq workers run {@code r}, as the kernel's io_prep_async_work decides: {@link #UNBOUND} for a
     * read, write, splice or socket op on a file that is neither regular nor a block device (it may wait forever);
     * for a buffered write to a regular file, a positive hash of its inode, which serializes the writes to that
     * file (not a splice into it: measured, the kernel lets writes pass a splice blocked on its pipe); else
     * {@link #BOUND}. O_DIRECT writes are not hashed: ext4 and xfs take them in
     * parallel (FOP_DIO_PARALLEL_WRITE). One statx per run of requests on one fd in an SQ batch.
     */
    long workClass(Request r) {
        boolean hashed = switch (r.opcode) {
            case Opcode.WRITE, Opcode.WRITEV, Opcode.WRITE_FIXED -> true;
            default -> false;
        };
        if (!hashed && !isReadWrite(r.opcode) && !Splice.isSplice(r.opcode) && !isSocket(r.opcode)
                && r.opcode != Opcode.POLL_ADD) {
            return BOUND;
        }
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return BOUND;               // the worker reports the error
        }
        boolean batch = batchHolds(fd);
        long kind = batch && batchKind != UNKNOWN_KIND ? batchKind : Sys.fileKind(fd);
        if (batch) {
            batchKind = kind;
        }
        if (kind == Sys.OTHER_FILE) {
            return UNBOUND;
        }
        if (kind <= 0 || !hashed) {
            return BOUND;
        }
        int flags = fileFlags(fd);
        return flags >= 0 && (flags & O_DIRECT) != 0 ? BOUND : kind;
    }

    /** Whether the per-batch cache may answer for {@code fd} on this thread; it switches to {@code fd} if so. */
    private boolean batchHolds(int fd) {
        if (Thread.currentThread() != batchThread) {
            return false;
        }
        if (fd != batchFd) {
            batchFd = fd;
            batchFlags = UNKNOWN_FLAGS;
            batchKind = UNKNOWN_KIND;
        }
        return true;
    }

    /** The calling thread starts consuming an SQ batch ({@link #fileFlags} may remember). */
    void beginBatch() {
        batchFd = -1;
        batchThread = Thread.currentThread();
    }

    void endBatch() {
        batchThread = null;
        batchFd = -1;
    }

    private int readWrite(Request r) {
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return fd;
        }
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
                r.cqeFlags = io.uring4j.ring.CqeFlags.F_BUFFER | (bid << io.uring4j.ring.CqeFlags.BUFFER_SHIFT);
                return (int) res;
            }
            if (!inline || res != -Errno.EAGAIN) {
                return (int) res;
            }
        }
        int armed = ring.await(r, fd, OpFlags.Poll.POLLIN);        // outside the group's monitor
        return armed == -Errno.EPERM ? PortableRing.NEEDS_WORKER : armed;
    }

    private int vectored(Request r) {
        int fd = ring.files.fd(r);
        if (fd < 0) {
            return fd;
        }
        r.wanted = (int) Math.min(iovecTotal(r), Integer.MAX_VALUE);
        return (int) Readiness.transfer(ring, r, fd, r.opcode == Opcode.WRITEV, r.iov.address(), r.len, r.off,
                r.opFlags);
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
