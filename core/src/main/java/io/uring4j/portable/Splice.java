package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;

/**
 * SPLICE and TEE, as the kernel runs them: always on the io-wq (the kernel forces them async), with the input
 * fd in {@code splice_fd_in} — a registered file with SPLICE_F_FD_IN_FIXED — and the output in the SQE's fd.
 * An offset of -1 means "no offset" (a pipe, or the file position). A short transfer fails a link, as in the
 * kernel. A splice from an empty pipe blocks its worker until data comes, as it blocks an io-wq worker there.
 */
final class Splice {
    /** splice_flags: the input fd is a registered file's index. */
    static final int FD_IN_FIXED = 1 << 31;
    /** SPLICE_F_MOVE | NONBLOCK | MORE | GIFT: what splice(2) and tee(2) take. */
    private static final int SPLICE_F_ALL = 0xf;

    private Splice() {
    }

    /** The kernel's prep: unknown flags, and offsets on a TEE, are EINVAL. */
    static int prep(Request r) {
        if ((r.opFlags & ~(FD_IN_FIXED | SPLICE_F_ALL)) != 0 || r.bufIndex != 0) {
            return -Errno.EINVAL;
        }
        if (r.opcode == Opcode.TEE && (r.addr != 0 || r.off != 0)) {
            return -Errno.EINVAL;
        }
        r.wanted = r.len;
        return 0;
    }

    /** On an io-wq worker, into {@code out} (the request's file): the bytes moved, or -errno. */
    static int issue(PortableRing ring, Request r, int out) {
        int in = (r.opFlags & FD_IN_FIXED) != 0 ? ring.files.file(r.fileIndex)
                : r.fileIndex < 0 ? -Errno.EBADF : r.fileIndex;
        if (in < 0) {
            return in;
        }
        int flags = r.opFlags & SPLICE_F_ALL;
        if (r.len == 0) {
            return 0;
        }
        long len = Integer.toUnsignedLong(r.len);
        return r.opcode == Opcode.TEE ? Sys.tee(in, out, len, flags) : Sys.splice(in, r.addr, out, r.off, len, flags);
    }
}
