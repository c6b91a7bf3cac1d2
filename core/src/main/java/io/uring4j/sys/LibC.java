package io.uring4j.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The few libc functions the ring core needs beside the io_uring syscalls: memory mapping, descriptors,
 * eventfd and pipes. Results follow the {@code -errno} convention; none of the handles is {@code critical}
 * (close, read and write can block).
 */
public final class LibC {
    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;
    public static final int MAP_SHARED = 0x01;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_POPULATE = 0x8000;
    public static final int MADV_DONTFORK = 10;

    public static final int O_RDONLY = 0;
    public static final int O_WRONLY = 1;
    public static final int O_RDWR = 2;
    public static final int O_CREAT = 0x40;
    public static final int O_EXCL = 0x80;
    public static final int O_TRUNC = 0x200;
    public static final int O_APPEND = 0x400;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_DIRECT = 0x4000;
    public static final int O_NOATIME = 0x40000;
    public static final int O_CLOEXEC = 0x80000;
    public static final int AT_FDCWD = -100;

    /** preadv2/pwritev2: fail with EAGAIN rather than wait for the device or a lock. */
    public static final int RWF_NOWAIT = 0x8;

    public static final int EFD_CLOEXEC = O_CLOEXEC;
    public static final int EFD_NONBLOCK = O_NONBLOCK;

    private static final MethodHandle MMAP = Native.libcWithErrno("mmap",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = Native.libcWithErrno("munmap",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MADVISE = Native.libcWithErrno("madvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle CLOSE = Native.libcWithErrno("close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = Native.libcWithErrno("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITE = Native.libcWithErrno("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    /** Reads the thread pointer: no system call, so no transition. */
    private static final MethodHandle PTHREAD_SELF = Native.LINKER.downcallHandle(Native.symbol("pthread_self"),
            FunctionDescriptor.of(JAVA_LONG), Linker.Option.critical(false));
    /*
     * The positional reads and writes, each linked twice: without errno capture, which the call tries first (the
     * capture costs a few percent of a page-cache read on a VM), and with it, made only after a failure, to learn the
     * errno. A positional read or write that failed moved nothing, so making it again is harmless: it fails alike,
     * or does what has become possible meanwhile.
     */
    private static final FunctionDescriptor PRW = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
            JAVA_LONG);
    private static final FunctionDescriptor PRWV2 = FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT,
            JAVA_LONG, JAVA_INT);
    private static final MethodHandle PREADV2 = Native.libcWithErrno("preadv2", PRWV2);
    private static final MethodHandle PREADV2_FIRST = Native.libc("preadv2", PRWV2);
    private static final MethodHandle PREAD = Native.libcWithErrno("pread", PRW);
    private static final MethodHandle PREAD_FIRST = Native.libc("pread", PRW);
    private static final MethodHandle PWRITE = Native.libcWithErrno("pwrite", PRW);
    private static final MethodHandle PWRITE_FIRST = Native.libc("pwrite", PRW);
    private static final MethodHandle PWRITEV2 = Native.libcWithErrno("pwritev2", PRWV2);
    private static final MethodHandle PWRITEV2_FIRST = Native.libc("pwritev2", PRWV2);
    private static final MethodHandle FSYNC = Native.libcWithErrno("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FDATASYNC = Native.libcWithErrno("fdatasync",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FTRUNCATE = Native.libcWithErrno("ftruncate",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle EVENTFD = Native.libcWithErrno("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle PIPE2 = Native.libcWithErrno("pipe2",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle OPEN = Native.libcWithErrno("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle LSEEK = Native.libcWithErrno("lseek",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** statx with the path and buffer as addresses: a size or type asked often passes no segment through the linker. */
    private static final MethodHandle STATX_AT = Native.libcWithErrno("statx",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle GETRLIMIT = Native.libcWithErrno("getrlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle SETRLIMIT = Native.libcWithErrno("setrlimit",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    public static final int RLIMIT_NPROC = 6;
    public static final int RLIMIT_NOFILE = 7;
    public static final int RLIMIT_MEMLOCK = 8;

    private static final MethodHandle SYSCONF = Native.LINKER.downcallHandle(Native.symbol("sysconf"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT), Linker.Option.critical(false));

    private static final int SC_PAGESIZE = 30;
    /** The system page size (4096 on x86-64). */
    public static final long PAGE_SIZE = sysconf(SC_PAGESIZE);

    private LibC() {
    }

    /** {@code mmap}: the mapped address, or {@code -errno}. */
    public static long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        MemorySegment state = Native.callState();
        try {
            return Native.result((long) MMAP.invokeExact(state, addr, length, prot, flags, fd, offset), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static int munmap(long addr, long length) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) MUNMAP.invokeExact(state, addr, length), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static int madvise(long addr, long length, int advice) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) MADVISE.invokeExact(state, addr, length, advice), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    public static int close(int fd) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) CLOSE.invokeExact(state, fd), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code read(fd, buf, buf.byteSize())}: bytes read, or {@code -errno}. */
    public static long read(int fd, MemorySegment buf) {
        MemorySegment state = Native.callState();
        try {
            return Native.result((long) READ.invokeExact(state, fd, buf.address(), buf.byteSize()), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code write(fd, buf, buf.byteSize())}: bytes written, or {@code -errno}. */
    public static long write(int fd, MemorySegment buf) {
        MemorySegment state = Native.callState();
        try {
            return Native.result((long) WRITE.invokeExact(state, fd, buf.address(), buf.byteSize()), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@code pthread_self()}: the calling OS thread's id — for a virtual thread, its carrier's, which stays the same
     * until the virtual thread next parks or yields.
     */
    public static long threadSelf() {
        try {
            return (long) PTHREAD_SELF.invokeExact();
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@code preadv2(fd, {buf}, 1, offset, flags)} with the iovec in the thread's call state: bytes read, or
     * {@code -errno}. With {@link #RWF_NOWAIT} a buffered read returns what the page cache holds (possibly a
     * short count) or -EAGAIN, without waiting for the device.
     */
    public static long preadv2(int fd, MemorySegment buf, long offset, int flags) {
        MemorySegment state = Native.callState();
        state.set(JAVA_LONG, Native.IOVEC_OFFSET, buf.address());
        state.set(JAVA_LONG, Native.IOVEC_OFFSET + 8, buf.byteSize());
        long iov = state.address() + Native.IOVEC_OFFSET;
        try {
            long n = (long) PREADV2_FIRST.invokeExact(fd, iov, 1, offset, flags);
            return n >= 0 ? n : Native.result((long) PREADV2.invokeExact(state, fd, iov, 1, offset, flags), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code pread(fd, buf, buf.byteSize(), offset)}: bytes read (0 at end of file), or {@code -errno}. */
    public static long pread(int fd, MemorySegment buf, long offset) {
        try {
            long n = (long) PREAD_FIRST.invokeExact(fd, buf.address(), buf.byteSize(), offset);
            if (n >= 0) {
                return n;
            }
            MemorySegment state = Native.callState();
            return Native.result((long) PREAD.invokeExact(state, fd, buf.address(), buf.byteSize(), offset), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code pwrite(fd, buf, buf.byteSize(), offset)}: bytes written, or {@code -errno}. */
    public static long pwrite(int fd, MemorySegment buf, long offset) {
        try {
            long n = (long) PWRITE_FIRST.invokeExact(fd, buf.address(), buf.byteSize(), offset);
            if (n >= 0) {
                return n;
            }
            MemorySegment state = Native.callState();
            return Native.result((long) PWRITE.invokeExact(state, fd, buf.address(), buf.byteSize(), offset), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /**
     * {@code pwritev2(fd, {buf}, 1, offset, flags)}, the iovec in the thread's call state: bytes written, or
     * {@code -errno}. With {@link #RWF_NOWAIT} a buffered write fails with -EAGAIN rather than wait (for a page to
     * be read or allocated, for the inode lock, for writeback to make room); file systems without support answer
     * -EOPNOTSUPP.
     */
    public static long pwritev2(int fd, MemorySegment buf, long offset, int flags) {
        MemorySegment state = Native.callState();
        state.set(JAVA_LONG, Native.IOVEC_OFFSET, buf.address());
        state.set(JAVA_LONG, Native.IOVEC_OFFSET + 8, buf.byteSize());
        long iov = state.address() + Native.IOVEC_OFFSET;
        try {
            long n = (long) PWRITEV2_FIRST.invokeExact(fd, iov, 1, offset, flags);
            return n >= 0 ? n : Native.result((long) PWRITEV2.invokeExact(state, fd, iov, 1, offset, flags), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code fsync(fd)}, or {@code fdatasync(fd)} with {@code dataOnly}: 0 or {@code -errno}. */
    public static int fsync(int fd, boolean dataOnly) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result(dataOnly ? (int) FDATASYNC.invokeExact(state, fd)
                    : (int) FSYNC.invokeExact(state, fd), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code ftruncate(fd, length)}: 0 or {@code -errno}. */
    public static int ftruncate(int fd, long length) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) FTRUNCATE.invokeExact(state, fd, length), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code eventfd(initval, flags)}: the new fd, or {@code -errno}. */
    public static int eventfd(int initval, int flags) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) EVENTFD.invokeExact(state, initval, flags), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The file type bits of {@code st_mode}/{@code stx_mode} ({@code S_IFMT}), and {@link #fileType}'s answers. */
    public static final int S_IFMT = 0xF000;
    public static final int S_IFREG = 0x8000;
    public static final int S_IFBLK = 0x6000;
    public static final int S_IFDIR = 0x4000;
    public static final int S_IFLNK = 0xA000;
    public static final int S_IFIFO = 0x1000;
    public static final int S_IFSOCK = 0xC000;
    private static final int AT_EMPTY_PATH = 0x1000;
    /** Cached attributes are enough (a file's type never changes): no round trip to a network file system. */
    private static final int AT_STATX_DONT_SYNC = 0x4000;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_SIZE_MASK = 0x200;
    private static final long STATX_SIZE = 256;
    private static final long STX_MODE = 0x1C;

    private static final long STX_SIZE = 0x28;
    private static final MemorySegment EMPTY_PATH = Arena.global().allocate(1);
    /** The calling thread's {@code struct statx} for {@link #fileSize} and the types: asking costs no allocation. */
    private static final ThreadScratch STATX_BUFFER = new ThreadScratch(STATX_SIZE);

    /**
     * The size of {@code fd}'s file (statx of the fd, as fstat's {@code st_size}), or {@code -errno}. The same statx
     * answers the file's type: {@link #typeOfLastSize}.
     */
    public static long fileSize(int fd) {
        MemorySegment state = Native.callState();
        MemorySegment stx = STATX_BUFFER.get();
        try {
            int ret = (int) Native.result((int) STATX_AT.invokeExact(state, fd, EMPTY_PATH.address(), AT_EMPTY_PATH,
                    STATX_SIZE_MASK | STATX_TYPE, stx.address()), state);
            return ret < 0 ? ret : stx.get(JAVA_LONG, STX_SIZE);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The type ({@code S_IFREG}, ...) of the file whose size the calling thread's last {@link #fileSize} found. */
    public static int typeOfLastSize() {
        return Short.toUnsignedInt(STATX_BUFFER.get().get(JAVA_SHORT, STX_MODE)) & S_IFMT;
    }

    /** The type of {@code fd}'s file ({@code S_IFREG}, {@code S_IFBLK}, ...), or {@code -errno}. */
    public static int fileType(int fd) {
        return type(fd, EMPTY_PATH.address(), AT_EMPTY_PATH);
    }

    /** The type of the file the NUL-terminated {@code path} names, its links followed, or {@code -errno}. */
    public static int pathType(MemorySegment path) {
        return type(AT_FDCWD, path.address(), 0);
    }

    private static int type(int dirfd, long path, int flags) {
        MemorySegment state = Native.callState();
        MemorySegment stx = STATX_BUFFER.get();
        try {
            int ret = (int) Native.result((int) STATX_AT.invokeExact(state, dirfd, path, flags | AT_STATX_DONT_SYNC,
                    STATX_TYPE, stx.address()), state);
            return ret < 0 ? ret : Short.toUnsignedInt(stx.get(JAVA_SHORT, STX_MODE)) & S_IFMT;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code pipe2(fds, flags)}: fills {@code fds[0]} (read end) and {@code fds[1]} (write end); 0 or {@code -errno}. */
    public static int pipe2(int[] fds, int flags) {
        MemorySegment state = Native.callState();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pair = arena.allocate(JAVA_INT, 2);
            int ret = (int) Native.result((int) PIPE2.invokeExact(state, pair, flags), state);
            if (ret == 0) {
                fds[0] = pair.getAtIndex(JAVA_INT, 0);
                fds[1] = pair.getAtIndex(JAVA_INT, 1);
            }
            return ret;
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code open(path, flags, mode)}: the new fd, or {@code -errno}. */
    public static int open(String path, int flags, int mode) {
        MemorySegment state = Native.callState();
        try (Arena arena = Arena.ofConfined()) {
            return (int) Native.result((int) OPEN.invokeExact(state, arena.allocateFrom(path), flags, mode), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code open(path, flags, mode)} of a NUL-terminated native {@code path}: the new fd, or {@code -errno}. */
    public static int open(MemorySegment path, int flags, int mode) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) OPEN.invokeExact(state, path, flags, mode), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@link #lseek}'s whence: from the current position. */
    public static final int SEEK_CUR = 1;

    /** {@code lseek(fd, offset, whence)}: the new position, or {@code -errno} (ESPIPE: the file has no positions). */
    public static long lseek(int fd, long offset, int whence) {
        MemorySegment state = Native.callState();
        try {
            return Native.result((long) LSEEK.invokeExact(state, fd, offset, whence), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code getrlimit}: {soft, hard}, or null if the call failed. */
    public static long[] getrlimit(int resource) {
        MemorySegment state = Native.callState();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment limit = arena.allocate(JAVA_LONG, 2);
            int ret = (int) Native.result((int) GETRLIMIT.invokeExact(state, resource, limit), state);
            return ret < 0 ? null : new long[] {limit.getAtIndex(JAVA_LONG, 0), limit.getAtIndex(JAVA_LONG, 1)};
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code setrlimit}: 0 or {@code -errno}. */
    public static int setrlimit(int resource, long soft, long hard) {
        MemorySegment state = Native.callState();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment limit = arena.allocate(JAVA_LONG, 2);
            limit.setAtIndex(JAVA_LONG, 0, soft);
            limit.setAtIndex(JAVA_LONG, 1, hard);
            return (int) Native.result((int) SETRLIMIT.invokeExact(state, resource, limit), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    private static long sysconf(int name) {
        try {
            return (long) SYSCONF.invokeExact(name);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
