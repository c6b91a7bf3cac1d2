package io.uring4j.portable;

import io.uring4j.ring.OpFlags;
import io.uring4j.ring.SqeFlags;
import io.uring4j.sys.Errno;

/**
 * MSG_RING between portable rings (the kernel's io_uring/msg_ring.c): a data message posts a CQE of the
 * sender's choosing (user_data from {@code off}, res from {@code len}, flags from {@code file_index} with
 * FLAGS_PASS) on the target ring and completes the sender's with 0. Passing a registered file (MSG_SEND_FD) is
 * refused with EINVAL, as by a kernel that had only data messages. A target that is not a ring is EBADFD.
 */
final class MsgRing {
    private MsgRing() {
    }

    /** {@code buf_index} and {@code personality} must be zero; {@code msg_ring_flags} only CQE_SKIP, FLAGS_PASS. */
    static int prep(Request r) {
        int known = OpFlags.MsgRing.CQE_SKIP | OpFlags.MsgRing.FLAGS_PASS;
        return r.bufIndex != 0 || (r.opFlags & ~known) != 0 ? -Errno.EINVAL : 0;
    }

    /** {@code addr} is the command; {@link Request#progress} holds {@code addr3}, the source slot of SEND_FD. */
    static int execute(PortableRing ring, Request r) {
        int fd = (r.sqeFlags & SqeFlags.FIXED_FILE) != 0 ? ring.registered.fd(r) : r.fd;
        if (fd < 0) {
            return -Errno.EBADF;
        }
        PortableRing target = PortableEngine.instance().ring(fd);
        if (target == null) {
            boolean open = fd < PortableEngine.FD_BASE && Sys.fcntl(fd, Sys.F_GETFL, 0) >= 0;
            return open ? -Errno.EBADFD : -Errno.EBADF;
        }
        if (r.addr != OpFlags.MsgRing.DATA) {
            return -Errno.EINVAL;
        }
        if (r.progress != 0 || (r.opFlags & ~OpFlags.MsgRing.FLAGS_PASS) != 0) {
            return -Errno.EINVAL;           // a source fd or CQE_SKIP belong to SEND_FD
        }
        boolean pass = (r.opFlags & OpFlags.MsgRing.FLAGS_PASS) != 0;
        if (!pass && r.fileIndex != 0) {
            return -Errno.EINVAL;
        }
        return target.postMessage(r.off, r.len, pass ? r.fileIndex : 0);
    }
}
