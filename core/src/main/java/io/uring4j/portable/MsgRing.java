package io.uring4j.portable;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

/**
 * MSG_RING between portable rings (the kernel's io_uring/msg_ring.c): a data message posts a CQE of the
 * sender's choosing (user_data from {@code off}, res from {@code len}, flags from {@code file_index} with
 * FLAGS_PASS) on the target ring and completes the sender's with 0; MSG_SEND_FD passes a registered file into
 * the target's file table. A target that is not a ring, or an R_DISABLED one, is EBADFD.
 */
final class MsgRing {
    private MsgRing() {
    }

    /** {@code buf_index} and {@code personality} must be zero; {@code msg_ring_flags} only CQE_SKIP, FLAGS_PASS. */
    static int prep(Request r) {
        int known = OpFlags.MsgRing.CQE_SKIP | OpFlags.MsgRing.FLAGS_PASS;
        return r.bufIndex != 0 || (r.opFlags & ~known) != 0 ? -Errno.EINVAL : 0;
    }

    /**
     * {@code addr} is the command, {@code fd} the target ring's (looked up, as a file); {@link Request#progress}
     * holds {@code addr3}, the source slot of SEND_FD.
     */
    static int issue(PortableRing ring, Request r, int fd) {
        PortableRing target = PortableEngine.instance().ring(fd);
        if (target == null) {
            boolean open = fd < PortableEngine.FD_BASE && Sys.fcntl(fd, Sys.F_GETFL, 0) >= 0;
            return open ? -Errno.EBADFD : -Errno.EBADF;
        }
        if (r.addr == OpFlags.MsgRing.SEND_FD) {
            return sendFd(ring, target, r);
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
        if (target.disabled()) {
            return -Errno.EBADFD;
        }
        return target.cq.postMessage(r.off, r.len, pass ? r.fileIndex : 0);
    }

    /**
     * MSG_SEND_FD: the file in our slot {@code addr3} goes into the target's table at {@code file_index} (a slot,
     * or FILE_INDEX_ALLOC), as a duplicate the target owns; the target gets a CQE with {@code off} as user_data
     * and the install's result (0, or the slot allocated) unless CQE_SKIP. Our result is that same value.
     */
    private static int sendFd(PortableRing ring, PortableRing target, Request r) {
        if (r.len != 0 || target == ring) {
            return -Errno.EINVAL;
        }
        if (target.disabled()) {
            return -Errno.EBADFD;
        }
        int dup = ring.files.dupFile(r.progress);
        int ret = dup < 0 ? dup : target.files.install(dup, r.fileIndex);
        if (ret < 0 || (r.opFlags & OpFlags.MsgRing.CQE_SKIP) != 0) {
            return ret;
        }
        // The kernel answers -EOVERFLOW when it cannot post; ours cannot fail but on a closed ring.
        return target.cq.postMessage(r.off, ret, 0) < 0 ? -Errno.EOVERFLOW : ret;
    }
}
