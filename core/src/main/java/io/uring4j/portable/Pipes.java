package io.uring4j.portable;

import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * IORING_OP_PIPE (the kernel's io_uring/openclose.c, 6.16): pipe2 into the application's int[2], or into two
 * direct descriptors — chosen slots {@code file_index - 1} and the next, or two allocated ones — whose slot
 * numbers then go into the int[2]. A failure to place the second end takes the first out again.
 */
final class Pipes {
    /** What pipe_flags may hold: O_NOTIFICATION_PIPE is O_EXCL's value. */
    private static final int FLAGS = LibC.O_CLOEXEC | LibC.O_NONBLOCK | LibC.O_DIRECT | LibC.O_EXCL;

    private Pipes() {
    }

    /** fd, off and addr3 (checked in the SQE) must be zero; a direct descriptor has no close-on-exec. */
    static int prep(Request r) {
        return r.fd != 0 || r.off != 0 || (r.opFlags & ~FLAGS) != 0
                || (r.fileIndex != 0 && (r.opFlags & LibC.O_CLOEXEC) != 0) ? -Errno.EINVAL : 0;
    }

    static int issue(PortableRing ring, Request r) {
        boolean direct = r.fileIndex != 0;
        // The engine's own fds behind slots stay out of the application's children.
        int ret = Sys.pipe2(r.addr, r.opFlags | (direct ? LibC.O_CLOEXEC : 0));
        if (ret < 0 || !direct) {
            return ret;
        }
        int readFd = PortableRing.USER.get(JAVA_INT, r.addr);
        int writeFd = PortableRing.USER.get(JAVA_INT, r.addr + 4);
        boolean alloc = r.fileIndex == FileTable.FILE_INDEX_ALLOC;
        int first = ring.files.install(readFd, r.fileIndex);
        if (first < 0) {
            Sys.close(writeFd);         // install closed the read end
            return first;
        }
        int readSlot = alloc ? first : r.fileIndex - 1;
        int second = ring.files.install(writeFd, alloc ? FileTable.FILE_INDEX_ALLOC : r.fileIndex + 1);
        if (second < 0) {
            ring.files.closeSlot(readSlot);
            return second;
        }
        // The address was just written by pipe2: it is the application's and writable.
        PortableRing.USER.set(JAVA_INT, r.addr, readSlot);
        PortableRing.USER.set(JAVA_INT, r.addr + 4, alloc ? second : readSlot + 1);
        return 0;
    }
}
