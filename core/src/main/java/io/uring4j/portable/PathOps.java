package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The opcodes that take paths: OPENAT, OPENAT2, RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT, LINKAT, with the SQE
 * encoding and prep checks of the kernel's io_uring/openclose.c and fs.c (their issue: {@link OpDefs}). A path
 * walk may wait for the disk, so they all run on the io-wq. Paths are read when the request runs; OPENAT2's
 * {@code struct open_how} is copied at prep, as the kernel copies it.
 */
final class PathOps {
    /** {@code struct open_how}: flags, mode, resolve (OPEN_HOW_SIZE_VER0). */
    private static final int OPEN_HOW_BYTES = 24;
    private static final int AT_REMOVEDIR = 0x200;

    private PathOps() {
    }

    /**
     * The kernel's prep: fields an opcode does not use must be zero (-EINVAL), and a path is never a registered
     * file (-EBADF). {@code splice_fd_in} is {@link Request#fileIndex}, {@code addr2} {@link Request#off}.
     */
    static int prep(Request r) {
        boolean unusedSet = r.bufIndex != 0 || switch (r.opcode) {
            case Opcode.OPENAT, Opcode.OPENAT2 -> false;          // file_index is the direct slot
            case Opcode.UNLINKAT -> r.off != 0 || r.len != 0 || r.fileIndex != 0;
            case Opcode.MKDIRAT -> r.off != 0 || r.opFlags != 0 || r.fileIndex != 0;
            case Opcode.SYMLINKAT -> r.len != 0 || r.opFlags != 0 || r.fileIndex != 0;
            default -> r.fileIndex != 0;                          // RENAMEAT, LINKAT
        };
        if (r.opcode == Opcode.OPENAT2) {
            int copied = copyOpenHow(r);           // the kernel copies it before its other checks
            if (copied < 0) {
                return copied;
            }
        }
        if (unusedSet) {
            return -Errno.EINVAL;
        }
        if ((r.sqeFlags & SqeFlags.FIXED_FILE) != 0) {
            return -Errno.EBADF;
        }
        if (r.fileIndex != 0 && (r.opcode == Opcode.OPENAT || r.opcode == Opcode.OPENAT2)) {
            return directOpen(r);
        }
        return r.opcode == Opcode.UNLINKAT && (r.opFlags & ~AT_REMOVEDIR) != 0 ? -Errno.EINVAL : 0;
    }

    /**
     * A direct open: a descriptor has no close-on-exec flag of its own to ask for (-EINVAL, as in the kernel);
     * the fd behind our slot gets one, so that it stays the engine's.
     */
    private static int directOpen(Request r) {
        if (r.opcode == Opcode.OPENAT) {
            if ((r.opFlags & LibC.O_CLOEXEC) != 0) {
                return -Errno.EINVAL;
            }
            r.opFlags |= LibC.O_CLOEXEC;
            return 0;
        }
        long flags = r.iov.get(JAVA_LONG, 0);
        if ((flags & LibC.O_CLOEXEC) != 0) {
            return -Errno.EINVAL;
        }
        r.iov.set(JAVA_LONG, 0, flags | LibC.O_CLOEXEC);
        return 0;
    }

    /**
     * OPENAT2's {@code open_how} ({@code len} bytes at {@code addr2}) into the request, as copy_struct_from_user:
     * fewer than 24 bytes is -EINVAL, and a larger struct (a newer ABI) must have only zeros beyond what we know
     * (-E2BIG).
     */
    private static int copyOpenHow(Request r) {
        long size = Integer.toUnsignedLong(r.len);
        if (size < OPEN_HOW_BYTES) {
            return -Errno.EINVAL;
        }
        if (r.off == 0) {
            return -Errno.EFAULT;
        }
        for (long i = OPEN_HOW_BYTES; i < size; i++) {
            if (PortableRing.USER.get(JAVA_BYTE, r.off + i) != 0) {
                return -Errno.E2BIG;
            }
        }
        if (r.iov == null) {
            r.iov = Arena.ofAuto().allocate(64, 8);
        }
        MemorySegment.copy(PortableRing.USER, r.off, r.iov, 0, OPEN_HOW_BYTES);
        return 0;
    }

    /** OPENAT, on an io-wq worker: the new fd, or with a file_index the slot's install result; or -errno. */
    static int openat(PortableRing ring, Request r) {
        return ring.files.installed(Sys.openat(r.fd, r.addr, r.opFlags, r.len), r.fileIndex);
    }

    /** OPENAT2 with the {@code open_how} copied at prep. */
    static int openat2(PortableRing ring, Request r) {
        return ring.files.installed(Sys.openat2(r.fd, r.addr, r.iov.address(), OPEN_HOW_BYTES), r.fileIndex);
    }
}
