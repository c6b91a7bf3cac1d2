package io.uring4j.portable;

import io.uring4j.sys.LibC;
import io.uring4j.sys.Native;
import io.uring4j.sys.ThreadScratch;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.uring4j.sys.Native.callState;
import static io.uring4j.sys.Native.result;
import static io.uring4j.sys.Native.rethrow;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The system calls the portable engine issues on behalf of requests. Every pointer is a raw address taken from
 * an SQE (the kernel reads user memory the same way), so the handles take {@code long}s and allocate nothing.
 * Results follow the kernel's convention: {@code >= 0} or {@code -errno}.
 */
final class Sys {
    private static final MethodHandle READ = handle("read", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle WRITE = handle("write", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle PREADV2 = handle("preadv2", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle PWRITEV2 = handle("pwritev2", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle FSYNC = handle("fsync", JAVA_INT, JAVA_INT);
    private static final MethodHandle FDATASYNC = handle("fdatasync", JAVA_INT, JAVA_INT);
    private static final MethodHandle OPENAT = handle("openat", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT);
    private static final MethodHandle STATX = handle("statx", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle CLOSE = handle("close", JAVA_INT, JAVA_INT);
    private static final MethodHandle FALLOCATE = handle("fallocate", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle FTRUNCATE = handle("ftruncate", JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle SPLICE = handle("splice", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG,
            JAVA_LONG, JAVA_INT);
    private static final MethodHandle TEE = handle("tee", JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    /** Per thread: splice's two offsets, passed by pointer. */
    private static final ThreadScratch OFFSETS = new ThreadScratch(16);
    private static final MethodHandle RENAMEAT2 = handle("renameat2", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle UNLINKAT = handle("unlinkat", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle MKDIRAT = handle("mkdirat", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SYMLINKAT = handle("symlinkat", JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG);
    private static final MethodHandle LINKAT = handle("linkat", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    /** openat2 through syscall(2): older glibc has no wrapper. Its number is 437 on every architecture. */
    private static final MethodHandle SYSCALL4 = Native.libcWithErrno("syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    private static final long NR_OPENAT2 = 437;
    /** posix_fadvise returns the error number itself and leaves errno alone: linked without capture. */
    private static final MethodHandle FADVISE = Native.libc("posix_fadvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle POLL = handle("poll", JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT);
    private static final MethodHandle EVENTFD = handle("eventfd", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle FCNTL = handle("fcntl", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle PIPE2 = handle("pipe2", JAVA_INT, JAVA_LONG, JAVA_INT);

    static final int F_DUPFD = 0;
    static final int F_DUPFD_CLOEXEC = 1030;
    static final int F_GETFD = 1;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    /** preadv2/pwritev2: fail with EAGAIN instead of blocking. */
    static final int RWF_NOWAIT = 0x8;
    static final int EFD_CLOEXEC_NONBLOCK = 0x80000 | 0x800;

    private Sys() {
    }

    /** A libc function with errno captured ({@link Native#libcWithErrno}); fcntl and openat are variadic. */
    static MethodHandle handle(String name, java.lang.foreign.MemoryLayout ret,
            java.lang.foreign.MemoryLayout... args) {
        Linker.Option[] options = name.equals("fcntl") || name.equals("openat")
                ? new Linker.Option[] {Linker.Option.firstVariadicArg(name.equals("fcntl") ? 2 : 3)}
                : new Linker.Option[0];
        return Native.libcWithErrno(name, FunctionDescriptor.of(ret, args), options);
    }

    /** read(2): eventfd counters. */
    static long read(int fd, long buf, long len) {
        MemorySegment s = callState();
        try {
            return result((long) READ.invokeExact(s, fd, buf, len), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** write(2): eventfd signals. */
    static long write(int fd, long buf, long len) {
        MemorySegment s = callState();
        try {
            return result((long) WRITE.invokeExact(s, fd, buf, len), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * preadv2, for every read (a plain READ is one iovec): {@code off == -1} reads at the file position
     * (FEAT_RW_CUR_POS), and RWF_NOWAIT gives the non-blocking first attempt.
     */
    static long readv(int fd, long iov, int count, long off, int rwFlags) {
        MemorySegment s = callState();
        try {
            return result((long) PREADV2.invokeExact(s, fd, iov, count, off, rwFlags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long writev(int fd, long iov, int count, long off, int rwFlags) {
        MemorySegment s = callState();
        try {
            return result((long) PWRITEV2.invokeExact(s, fd, iov, count, off, rwFlags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fsync(int fd, boolean dataOnly) {
        MemorySegment s = callState();
        try {
            return (int) result(dataOnly ? (int) FDATASYNC.invokeExact(s, fd) : (int) FSYNC.invokeExact(s, fd), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int openat(int dfd, long path, int flags, int mode) {
        MemorySegment s = callState();
        try {
            return (int) result((int) OPENAT.invokeExact(s, dfd, path, flags, mode), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int statx(int dfd, long path, int flags, int mask, long buf) {
        MemorySegment s = callState();
        try {
            return (int) result((int) STATX.invokeExact(s, dfd, path, flags, mask, buf), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@link #fileKind}: a file that is neither regular nor a block device (a pipe, socket, tty, ...). */
    static final long OTHER_FILE = -1;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_INO = 0x100;
    private static final MemorySegment EMPTY_PATH = Arena.global().allocate(1);
    /** Per thread: the struct statx that {@link #fileKind} reads (stx_mode at 0x1C, stx_ino at 0x20, dev at 0x88). */
    private static final ThreadScratch STATX_BUF = new ThreadScratch(256);

    /**
     * What io-wq needs to know of {@code fd}'s file: a positive hash of (device, inode) for a regular file,
     * {@link #OTHER_FILE} for a file that may block forever, 0 for a block device or when statx fails.
     */
    static long fileKind(int fd) {
        MemorySegment buf = STATX_BUF.get();
        if (statx(fd, EMPTY_PATH.address(), AT_EMPTY_PATH, STATX_TYPE | STATX_INO, buf.address()) < 0) {
            return 0;
        }
        int type = Short.toUnsignedInt(buf.get(JAVA_SHORT, 0x1C)) & LibC.S_IFMT;
        if (type == LibC.S_IFBLK) {
            return 0;
        }
        if (type != LibC.S_IFREG) {
            return OTHER_FILE;
        }
        long dev = ((long) buf.get(JAVA_INT, 0x88) << 32) | buf.get(JAVA_INT, 0x8C);
        long hash = buf.get(JAVA_LONG, 0x20) * 0x9E3779B97F4A7C15L ^ dev;
        return (hash & Long.MAX_VALUE) | 1;
    }

    static int close(int fd) {
        MemorySegment s = callState();
        try {
            return (int) result((int) CLOSE.invokeExact(s, fd), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * A close-on-exec duplicate: registered files and eventfds hold their own reference, as the kernel holds a
     * {@code struct file}, so the caller may close its fd.
     */
    static int dup(int fd) {
        return fcntl(fd, F_DUPFD_CLOEXEC, 0);
    }

    /** fcntl(2) with an int argument: F_GETFL / F_SETFL for the O_NONBLOCK checks of accept and connect. */
    static int fcntl(int fd, int cmd, int arg) {
        MemorySegment s = callState();
        try {
            return (int) result((int) FCNTL.invokeExact(s, fd, cmd, arg), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int poll(long fds, int count, int timeoutMillis) {
        MemorySegment s = callState();
        try {
            return (int) result((int) POLL.invokeExact(s, fds, (long) count, timeoutMillis), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int eventfd(int initval, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) EVENTFD.invokeExact(s, initval, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fadvise(int fd, long off, long len, int advice) {
        try {
            return -(int) FADVISE.invokeExact(fd, off, len, advice);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int fallocate(int fd, int mode, long off, long len) {
        MemorySegment s = callState();
        try {
            return (int) result((int) FALLOCATE.invokeExact(s, fd, mode, off, len), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** pipe2 into the int[2] at {@code fds}: written by the kernel, so a bad address is EFAULT, not a crash. */
    static int pipe2(long fds, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) PIPE2.invokeExact(s, fds, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int ftruncate(int fd, long length) {
        MemorySegment s = callState();
        try {
            return (int) result((int) FTRUNCATE.invokeExact(s, fd, length), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** splice(2) with the offsets as values, -1 for none (a null pointer). */
    static int splice(int in, long offIn, int out, long offOut, long len, int flags) {
        MemorySegment s = callState();
        MemorySegment offsets = OFFSETS.get();
        offsets.set(JAVA_LONG, 0, offIn);
        offsets.set(JAVA_LONG, 8, offOut);
        long pIn = offIn == -1 ? 0 : offsets.address();
        long pOut = offOut == -1 ? 0 : offsets.address() + 8;
        try {
            return (int) result((long) SPLICE.invokeExact(s, in, pIn, out, pOut, len, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int tee(int in, int out, long len, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((long) TEE.invokeExact(s, in, out, len, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** openat2(dfd, path, how, size): {@code how} is a {@code struct open_how} of {@code size} bytes. */
    static int openat2(int dfd, long path, long how, long size) {
        MemorySegment s = callState();
        try {
            return (int) result((long) SYSCALL4.invokeExact(s, NR_OPENAT2, (long) dfd, path, how, size), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int renameat2(int oldDfd, long oldPath, int newDfd, long newPath, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) RENAMEAT2.invokeExact(s, oldDfd, oldPath, newDfd, newPath, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int unlinkat(int dfd, long path, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) UNLINKAT.invokeExact(s, dfd, path, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int mkdirat(int dfd, long path, int mode) {
        MemorySegment s = callState();
        try {
            return (int) result((int) MKDIRAT.invokeExact(s, dfd, path, mode), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int symlinkat(long target, int newDfd, long linkPath) {
        MemorySegment s = callState();
        try {
            return (int) result((int) SYMLINKAT.invokeExact(s, target, newDfd, linkPath), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static int linkat(int oldDfd, long oldPath, int newDfd, long newPath, int flags) {
        MemorySegment s = callState();
        try {
            return (int) result((int) LINKAT.invokeExact(s, oldDfd, oldPath, newDfd, newPath, flags), s);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
