package io.uring4j.portable;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.RegisterArgLayout;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The opcodes the portable engine implements, one definition each — the kernel's {@code io_issue_defs}: whether
 * it works on a file, may block (so it runs on the io-wq), is first tried in enter without blocking, waits for
 * readiness on the poller (and for which events), takes a provided buffer, and its prep and issue functions.
 * Every other opcode completes with -EINVAL, as on a kernel that predates it, and {@code REGISTER_PROBE}
 * reports exactly this table.
 */
final class OpDefs {
    static final int SUPPORTED_SQE_FLAGS = SqeFlags.FIXED_FILE | SqeFlags.IO_DRAIN | SqeFlags.IO_LINK
            | SqeFlags.IO_HARDLINK | SqeFlags.ASYNC | SqeFlags.BUFFER_SELECT | SqeFlags.CQE_SKIP_SUCCESS;
    /** The highest opcode we implement: probe's last_op, as a kernel of that vintage would report. */
    static final int LAST_OP = Opcode.PIPE;

    /** The kernel's needs_file: the SQE's fd (or fixed slot) is looked up before issue; -EBADF if none. */
    private static final int NEEDS_FILE = 1;
    /** May block in a system call: runs on the io-wq, never on the thread in enter (nor its chain there). */
    private static final int MAY_BLOCK = 1 << 1;
    /**
     * A read or write: first issued in enter without blocking ({@link ReadWrite#tryInline}), as the kernel
     * issues it; other blocking work is done in one issue, which its LINK_TIMEOUT never bounds.
     */
    private static final int NOWAIT_FIRST = 1 << 2;
    /** A result short of {@link Request#wanted} fails a link (reads, writes, transfers), as in the kernel. */
    private static final int FAILS_SHORT = 1 << 3;
    /** IOSQE_BUFFER_SELECT is allowed: a provided buffer is picked at issue. */
    private static final int BUFFER_SELECT = 1 << 4;
    /** The kernel's hash_reg_file: buffered writes to one regular file are serialized on the io-wq. */
    private static final int HASH_REG_FILE = 1 << 5;
    /** The kernel's unbound_nonreg_file: on a pipe, socket or other non-regular file, unbound io-wq workers. */
    private static final int UNBOUND_NONREG_FILE = 1 << 6;
    /** A zero-copy send: its result is followed by a notification CQE (F_NOTIF), as the kernel's. */
    private static final int NOTIFIES = 1 << 7;

    private static final int RW = NEEDS_FILE | MAY_BLOCK | NOWAIT_FIRST | FAILS_SHORT | UNBOUND_NONREG_FILE;
    private static final int SOCKET = NEEDS_FILE | FAILS_SHORT | UNBOUND_NONREG_FILE;
    private static final int IN = OpFlags.Poll.POLLIN;
    private static final int OUT = OpFlags.Poll.POLLOUT;

    /** The kernel's prep: checks made when the SQE is read; a failure fails the whole chain. 0 or -errno. */
    @FunctionalInterface
    interface Prep {
        int prep(Request r);
    }

    /**
     * The kernel's issue: runs the request on {@code fd} (its file, looked up if the opcode needs one, else the
     * SQE's fd as it is). Its result, {@link PortableRing#PENDING} when the timer or the poller will complete it,
     * or {@link PortableRing#NEEDS_WORKER} when it must go on on the io-wq.
     */
    @FunctionalInterface
    interface Issue {
        int issue(PortableRing ring, Request r, int fd, boolean onWorker);
    }

    /** One opcode's definition; {@code pollEvents} is what it waits for on the poller (0: it never does). */
    record OpDef(int flags, int pollEvents, Prep prep, Issue issue) {
        boolean needsFile() {
            return (flags & NEEDS_FILE) != 0;
        }

        boolean mayBlock() {
            return (flags & MAY_BLOCK) != 0;
        }

        boolean nowaitFirst() {
            return (flags & NOWAIT_FIRST) != 0;
        }

        /** Blocking work the kernel does in one issue (not reads and writes): its LINK_TIMEOUT never bounds it. */
        boolean doneInFirstIssue() {
            return (flags & (MAY_BLOCK | NOWAIT_FIRST)) == MAY_BLOCK;
        }

        boolean failsShort() {
            return (flags & FAILS_SHORT) != 0;
        }

        boolean bufferSelect() {
            return (flags & BUFFER_SELECT) != 0;
        }

        boolean hashRegFile() {
            return (flags & HASH_REG_FILE) != 0;
        }

        boolean unboundNonregFile() {
            return (flags & UNBOUND_NONREG_FILE) != 0;
        }

        boolean notifies() {
            return (flags & NOTIFIES) != 0;
        }
    }

    private static final OpDef[] DEFS = new OpDef[LAST_OP + 1];

    static {
        def(Opcode.NOP, 0, 0, OpDefs::noPrep, (ring, r, fd, w) -> (r.opFlags & ~OpFlags.Nop.INJECT_RESULT) != 0
                ? -Errno.EINVAL : (r.opFlags & OpFlags.Nop.INJECT_RESULT) != 0 ? r.len : 0);
        // Reads and writes: io_uring/rw.c.
        def(Opcode.READ, RW | BUFFER_SELECT, IN, ReadWrite::prep, (ring, r, fd, w) -> ring.rw.issue(r, fd));
        def(Opcode.WRITE, RW | HASH_REG_FILE, OUT, ReadWrite::prep, (ring, r, fd, w) -> ring.rw.issue(r, fd));
        def(Opcode.READ_FIXED, RW, IN, ReadWrite::prep, (ring, r, fd, w) -> ring.rw.issue(r, fd));
        def(Opcode.WRITE_FIXED, RW | HASH_REG_FILE, OUT, ReadWrite::prep, (ring, r, fd, w) -> ring.rw.issue(r, fd));
        def(Opcode.READV, RW | BUFFER_SELECT, IN, ReadWrite::prepVectored,
                (ring, r, fd, w) -> ring.rw.issueVectored(r, fd));
        def(Opcode.WRITEV, RW | HASH_REG_FILE, OUT, ReadWrite::prepVectored,
                (ring, r, fd, w) -> ring.rw.issueVectored(r, fd));
        // Other file operations, all on the io-wq.
        def(Opcode.FSYNC, NEEDS_FILE | MAY_BLOCK, 0, OpDefs::noPrep, (ring, r, fd, w) ->
                (r.opFlags & ~OpFlags.Fsync.DATASYNC) != 0 ? -Errno.EINVAL : Sys.fsync(fd, r.opFlags != 0));
        def(Opcode.STATX, MAY_BLOCK, 0, OpDefs::noPrep,
                (ring, r, fd, w) -> Sys.statx(r.fd, r.addr, r.opFlags, r.len, r.off));
        // The 64-bit length is in addr (fadvise64); older SQEs carry a 32-bit one in len.
        def(Opcode.FADVISE, NEEDS_FILE | MAY_BLOCK, 0, OpDefs::noPrep, (ring, r, fd, w) ->
                Sys.fadvise(fd, r.off, r.addr != 0 ? r.addr : Integer.toUnsignedLong(r.len), r.opFlags));
        def(Opcode.FALLOCATE, NEEDS_FILE | MAY_BLOCK, 0, OpDefs::prepFallocate,
                (ring, r, fd, w) -> Sys.fallocate(fd, r.len, r.off, r.addr));
        def(Opcode.FTRUNCATE, NEEDS_FILE | MAY_BLOCK, 0, OpDefs::prepFtruncate,
                (ring, r, fd, w) -> Sys.ftruncate(fd, r.off));
        def(Opcode.SPLICE, NEEDS_FILE | MAY_BLOCK | FAILS_SHORT | UNBOUND_NONREG_FILE, 0, Splice::prep,
                (ring, r, fd, w) -> Splice.issue(ring, r, fd));
        def(Opcode.TEE, NEEDS_FILE | MAY_BLOCK | FAILS_SHORT | UNBOUND_NONREG_FILE, 0, Splice::prep,
                (ring, r, fd, w) -> Splice.issue(ring, r, fd));
        // Paths (io_uring/openclose.c, fs.c): a path walk may wait for the disk.
        def(Opcode.OPENAT, MAY_BLOCK, 0, PathOps::prep, (ring, r, fd, w) -> PathOps.openat(ring, r));
        def(Opcode.OPENAT2, MAY_BLOCK, 0, PathOps::prep, (ring, r, fd, w) -> PathOps.openat2(ring, r));
        def(Opcode.RENAMEAT, MAY_BLOCK, 0, PathOps::prep,
                (ring, r, fd, w) -> Sys.renameat2(r.fd, r.addr, r.len, r.off, r.opFlags));
        def(Opcode.UNLINKAT, MAY_BLOCK, 0, PathOps::prep, (ring, r, fd, w) -> Sys.unlinkat(r.fd, r.addr, r.opFlags));
        def(Opcode.MKDIRAT, MAY_BLOCK, 0, PathOps::prep, (ring, r, fd, w) -> Sys.mkdirat(r.fd, r.addr, r.len));
        def(Opcode.SYMLINKAT, MAY_BLOCK, 0, PathOps::prep, (ring, r, fd, w) -> Sys.symlinkat(r.addr, r.fd, r.off));
        def(Opcode.LINKAT, MAY_BLOCK, 0, PathOps::prep,
                (ring, r, fd, w) -> Sys.linkat(r.fd, r.addr, r.len, r.off, r.opFlags));
        // The file table.
        def(Opcode.CLOSE, 0, 0, OpDefs::prepClose, (ring, r, fd, w) ->
                r.fileIndex != 0 ? ring.files.closeSlot(r.fileIndex - 1) : Sys.close(r.fd));
        def(Opcode.FILES_UPDATE, 0, 0, OpDefs::prepFilesUpdate, (ring, r, fd, w) ->
                (int) r.off == FileTable.FILE_INDEX_ALLOC ? ring.files.updateFilesAlloc(r.addr, r.len)
                        : ring.files.updateFiles((int) r.off, r.addr, r.len));
        // The slot's file as a new fd of the application's: close-on-exec unless asked otherwise.
        def(Opcode.PIPE, 0, 0, Pipes::prep, (ring, r, fd, w) -> Pipes.issue(ring, r));
        def(Opcode.FIXED_FD_INSTALL, NEEDS_FILE, 0, OpDefs::prepFixedFdInstall, (ring, r, fd, w) -> Sys.fcntl(fd,
                (r.opFlags & OpFlags.FileIndex.INSTALL_NO_CLOEXEC) != 0 ? Sys.F_DUPFD : Sys.F_DUPFD_CLOEXEC, 0));
        // Provided buffers, messages between rings.
        def(Opcode.PROVIDE_BUFFERS, 0, 0, BufRings::prepProvide, (ring, r, fd, w) -> ring.bufRings.provide(r));
        def(Opcode.REMOVE_BUFFERS, 0, 0, BufRings::prepRemove, (ring, r, fd, w) -> ring.bufRings.remove(r));
        def(Opcode.MSG_RING, NEEDS_FILE, 0, MsgRing::prep, (ring, r, fd, w) -> MsgRing.issue(ring, r, fd));
        // Requests on requests: timeouts, cancels, polls (Cancels, Timer, Readiness).
        def(Opcode.TIMEOUT, 0, 0, OpDefs::prepTimeout, (ring, r, fd, w) -> Cancels.timeout(ring, r));
        // Never issued: it guards the request before it in the chain (Links).
        def(Opcode.LINK_TIMEOUT, 0, 0, OpDefs::prepTimeout, (ring, r, fd, w) -> -Errno.EINVAL);
        def(Opcode.TIMEOUT_REMOVE, 0, 0, OpDefs::prepTimeoutRemove, (ring, r, fd, w) -> Cancels.timeoutRemove(ring, r));
        def(Opcode.ASYNC_CANCEL, 0, 0, OpDefs::noPrep, (ring, r, fd, w) -> Cancels.cancel(ring, r, -1));
        def(Opcode.POLL_ADD, NEEDS_FILE | UNBOUND_NONREG_FILE, 0, OpDefs::prepPollAdd, (ring, r, fd, w) ->
                Readiness.poll(ring, r, fd, r.opFlags & 0xffff, (r.len & OpFlags.Poll.ADD_MULTI) != 0));
        def(Opcode.POLL_REMOVE, 0, 0, OpDefs::prepPollRemove,
                (ring, r, fd, w) -> Cancels.cancel(ring, r, Opcode.POLL_ADD));
        // Sockets (io_uring/net.c): none blocks; they wait for readiness on the poller (SocketOps).
        def(Opcode.SOCKET, FAILS_SHORT | UNBOUND_NONREG_FILE, 0, SocketOps::prep, (ring, r, fd, w) ->
                ring.files.installed(SocketSys.socket(r.fd, (int) r.off, r.len), r.fileIndex));
        def(Opcode.CONNECT, SOCKET, OUT, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.connect(r, fd));
        def(Opcode.ACCEPT, SOCKET, IN, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.accept(r, fd, w));
        def(Opcode.SEND, SOCKET, OUT, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.sendRecv(r, fd, true));
        def(Opcode.SEND_ZC, SOCKET | NOTIFIES, OUT, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.sendZc(r, fd));
        def(Opcode.SENDMSG, SOCKET, OUT, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.message(r, fd, true));
        def(Opcode.SENDMSG_ZC, SOCKET | NOTIFIES, OUT, SocketOps::prep,
                (ring, r, fd, w) -> ring.sockets.message(r, fd, true));
        def(Opcode.RECV, SOCKET | BUFFER_SELECT, IN, SocketOps::prep, (ring, r, fd, w) -> ring.sockets.recv(r, fd));
        def(Opcode.RECVMSG, SOCKET | BUFFER_SELECT, IN, SocketOps::prep,
                (ring, r, fd, w) -> ring.sockets.recvmsg(r, fd));
        def(Opcode.SHUTDOWN, SOCKET, 0, SocketOps::prep, (ring, r, fd, w) -> SocketSys.shutdown(fd, r.len));
        def(Opcode.BIND, SOCKET, 0, SocketOps::prep,
                (ring, r, fd, w) -> SocketSys.bind(fd, r.iov.address(), (int) r.off));
        def(Opcode.LISTEN, SOCKET, 0, SocketOps::prep, (ring, r, fd, w) -> SocketSys.listen(fd, r.len));
    }

    private OpDefs() {
    }

    private static void def(int opcode, int flags, int pollEvents, Prep prep, Issue issue) {
        DEFS[opcode] = new OpDef(flags, pollEvents, prep, issue);
    }

    /** The definition of {@code opcode}, or null if we do not implement it. */
    static OpDef of(int opcode) {
        return opcode >= 0 && opcode < DEFS.length ? DEFS[opcode] : null;
    }

    /** The prep of {@code r}, whose opcode we implement: a provided buffer only where it may take one, first. */
    static int prep(Request r) {
        OpDef def = DEFS[r.opcode];
        if ((r.sqeFlags & SqeFlags.BUFFER_SELECT) != 0 && !def.bufferSelect()) {
            return -Errno.EINVAL;
        }
        return def.prep.prep(r);
    }

    /** Issues {@code r}: looks up its file if its opcode needs one ({@link FileTable#fd}), then runs it. */
    static int issue(PortableRing ring, Request r, boolean onWorker) {
        OpDef def = DEFS[r.opcode];
        int fd = r.fd;
        if (def.needsFile()) {
            fd = ring.files.fd(r);
            if (fd < 0) {
                return fd;
            }
        }
        return def.issue.issue(ring, r, fd, onWorker);
    }

    /** {@code struct io_uring_probe}: last_op, ops_len, then {op, resv, flags = SUPPORTED, resv2} per opcode. */
    static int probe(long arg, int nr) {
        if (arg == 0 || nr < 0) {
            return -Errno.EINVAL;
        }
        for (long at = arg; at < arg + RegisterArgLayout.PROBE_HEADER + RegisterArgLayout.PROBE_OP_SIZE * nr; at++) {
            if (PortableRing.USER.get(JAVA_BYTE, at) != 0) {
                return -Errno.EINVAL;     // the kernel insists on a zeroed probe
            }
        }
        int len = Math.min(nr, LAST_OP + 1);
        PortableRing.USER.set(JAVA_BYTE, arg + RegisterArgLayout.PROBE_LAST_OP, (byte) LAST_OP);
        PortableRing.USER.set(JAVA_BYTE, arg + RegisterArgLayout.PROBE_OPS_LEN, (byte) len);
        for (int op = 0; op < len; op++) {
            long at = arg + RegisterArgLayout.PROBE_HEADER + RegisterArgLayout.PROBE_OP_SIZE * op;
            PortableRing.USER.set(JAVA_BYTE, at + RegisterArgLayout.PROBE_OP_OP, (byte) op);
            PortableRing.USER.set(JAVA_SHORT, at + RegisterArgLayout.PROBE_OP_FLAGS,
                    (short) (of(op) != null ? RegisterArgLayout.PROBE_OP_SUPPORTED : 0));
        }
        return 0;
    }

    // ---- the preps of the opcodes without a family of their own ------------------------------------------

    private static int noPrep(Request r) {
        return 0;
    }

    private static int prepClose(Request r) {
        return r.off != 0 || r.addr != 0 || r.len != 0 || r.opFlags != 0 || r.bufIndex != 0 ? -Errno.EINVAL
                : (r.sqeFlags & SqeFlags.FIXED_FILE) != 0 ? -Errno.EBADF
                : r.fileIndex != 0 && r.fd != 0 ? -Errno.EINVAL : 0;
    }

    private static int prepFilesUpdate(Request r) {
        return (r.sqeFlags & SqeFlags.FIXED_FILE) != 0 || r.opFlags != 0 || r.fileIndex != 0 || r.len == 0
                ? -Errno.EINVAL : 0;
    }

    private static int prepFixedFdInstall(Request r) {
        // addr3 must be zero too: checked in the SQE, as it is not copied
        return r.off != 0 || r.addr != 0 || r.len != 0 || r.bufIndex != 0 || r.fileIndex != 0 ? -Errno.EINVAL
                : (r.sqeFlags & SqeFlags.FIXED_FILE) == 0 ? -Errno.EBADF
                : (r.opFlags & ~OpFlags.FileIndex.INSTALL_NO_CLOEXEC) != 0 ? -Errno.EINVAL : 0;
    }

    /** Mode in len, length in addr; the rest must be zero. */
    private static int prepFallocate(Request r) {
        return r.bufIndex != 0 || r.opFlags != 0 || r.fileIndex != 0 ? -Errno.EINVAL : 0;
    }

    /** The length in off; the rest must be zero (addr3 too: checked in the SQE, as it is not copied). */
    private static int prepFtruncate(Request r) {
        return r.opFlags != 0 || r.addr != 0 || r.len != 0 || r.bufIndex != 0 || r.fileIndex != 0 ? -Errno.EINVAL : 0;
    }

    /** Other clocks, multishot and ETIME_SUCCESS are not implemented: refused as by an older kernel. */
    private static int prepTimeout(Request r) {
        boolean valid = r.ioprio == 0 && r.bufIndex == 0 && r.fileIndex == 0 && r.len == 1
                && (r.opFlags & ~OpFlags.Timeout.ABS) == 0;
        return valid ? 0 : -Errno.EINVAL;
    }

    private static int prepTimeoutRemove(Request r) {
        int flags = r.opFlags;
        boolean update = (flags & (OpFlags.Timeout.UPDATE | OpFlags.Timeout.LINK_TIMEOUT_UPDATE)) != 0;
        boolean valid = (flags & ~(OpFlags.Timeout.UPDATE | OpFlags.Timeout.LINK_TIMEOUT_UPDATE
                | OpFlags.Timeout.ABS)) == 0 && (update || flags == 0);
        return valid ? 0 : -Errno.EINVAL;
    }

    /** Level-triggered multishot is not implemented; the update flags belong to POLL_REMOVE. */
    private static int prepPollAdd(Request r) {
        return (r.len & ~OpFlags.Poll.ADD_MULTI) != 0 || r.addr != 0 || r.off != 0 ? -Errno.EINVAL : 0;
    }

    /** Poll updates are not implemented. */
    private static int prepPollRemove(Request r) {
        return r.len != 0 ? -Errno.EINVAL : 0;
    }
}
