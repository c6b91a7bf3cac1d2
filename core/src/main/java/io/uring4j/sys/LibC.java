package io.uring4j.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Reference;

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

    /*
     * All linked with one shape (Native.LONGS), so the linker generates one stub for them, and one more for the
     * positional reads and writes linked again without errno capture (FirstTries). Each stub costs a starting
     * runtime milliseconds, so those linked apart (FirstTries, Open) are linked on first use: a server under the
     * selector flag never reads a file in place.
     */
    private static final MethodHandle MMAP = longs("mmap");
    private static final MethodHandle MUNMAP = longs("munmap");
    private static final MethodHandle MADVISE = longs("madvise");
    private static final MethodHandle CLOSE = longs("close");
    private static final MethodHandle DUP = longs("dup");
    private static final MethodHandle DUP3 = longs("dup3");
    private static final MethodHandle GETPWUID_R = longs("getpwuid_r");
    private static final MethodHandle GETGRGID_R = longs("getgrgid_r");
    /** {@code sizeof(struct passwd)} and {@code sizeof(struct group)}; each begins with its name's pointer. */
    private static final long PASSWD_SIZE = 48;
    private static final long GROUP_SIZE = 32;
    private static final MethodHandle READ = longs("read");
    private static final MethodHandle WRITE = longs("write");
    private static final MethodHandle PREADV2 = longs("preadv2");
    private static final MethodHandle PREAD = longs("pread");
    private static final MethodHandle PWRITE = longs("pwrite");
    private static final MethodHandle PWRITEV2 = longs("pwritev2");
    private static final MethodHandle FSYNC = longs("fsync");
    private static final MethodHandle FDATASYNC = longs("fdatasync");
    private static final MethodHandle FTRUNCATE = longs("ftruncate");
    private static final MethodHandle EVENTFD = longs("eventfd");
    private static final MethodHandle PIPE2 = longs("pipe2");
    private static final MethodHandle LSEEK = longs("lseek");
    private static final MethodHandle STATX_AT = longs("statx");
    private static final MethodHandle GETRLIMIT = longs("getrlimit");
    private static final MethodHandle SETRLIMIT = longs("setrlimit");
    /** Reads the thread pointer and a constant: no system call, so no transition (one stub for both). */
    private static final MethodHandle PTHREAD_SELF = Native.libc("pthread_self", Native.LONGS,
            Linker.Option.critical(false));
    private static final MethodHandle SYSCONF = Native.libc("sysconf", Native.LONGS, Linker.Option.critical(false));
    public static final int RLIMIT_NPROC = 6;
    public static final int RLIMIT_NOFILE = 7;
    public static final int RLIMIT_MEMLOCK = 8;

    private static final int SC_PAGESIZE = 30;
    /** The system page size (4096 on x86-64). */
    public static final long PAGE_SIZE = sysconf(SC_PAGESIZE);

    /**
     * The positional reads and writes without errno capture: each is tried first without it (the capture costs a
     * few percent of a page-cache read on a VM) and made again with it only after a failure, to learn the errno. A
     * positional read or write that failed moved nothing, so making it again is harmless: it fails alike, or does
     * what has become possible meanwhile.
     */
    private static final class FirstTries {
        static final MethodHandle PREADV2 = Native.libc("preadv2", Native.LONGS);
        static final MethodHandle PREAD = Native.libc("pread", Native.LONGS);
        static final MethodHandle PWRITE = Native.libc("pwrite", Native.LONGS);
        static final MethodHandle PWRITEV2 = Native.libc("pwritev2", Native.LONGS);
    }

    /** Variadic, so of a shape of its own. */
    private static final class Open {
        static final MethodHandle OPEN = Native.libcWithErrno("open",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }

    private LibC() {
    }

    private static MethodHandle longs(String name) {
        return Native.libcWithErrno(name, Native.LONGS);
    }

    /** {@code mmap}: the mapped address, or {@code -errno}. */
    public static long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        return Native.callLong(MMAP, addr, length, prot, flags, fd, offset);
    }

    public static int munmap(long addr, long length) {
        return Native.callInt(MUNMAP, addr, length, 0, 0, 0, 0);
    }

    public static int madvise(long addr, long length, int advice) {
        return Native.callInt(MADVISE, addr, length, advice, 0, 0, 0);
    }

    public static int close(int fd) {
        return Native.callInt(CLOSE, fd, 0, 0, 0, 0, 0);
    }

    /** The name the user database (NSS) gives user {@code uid}, or null if it has none. */
    public static String userName(int uid) {
        return entryName(GETPWUID_R, uid, PASSWD_SIZE);
    }

    /** The name the user database gives group {@code gid}, or null if it has none. */
    public static String groupName(int gid) {
        return entryName(GETGRGID_R, gid, GROUP_SIZE);
    }

    /**
     * {@code getpwuid_r} or {@code getgrgid_r}: the entry's name, which points into the buffer handed in (grown
     * while the entry does not fit: ERANGE).
     */
    private static String entryName(MethodHandle lookup, int id, long entrySize) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment entry = arena.allocate(entrySize, 8);
            MemorySegment found = arena.allocate(ADDRESS);
            for (long size = 1024; size <= 1 << 20; size *= 4) {
                MemorySegment buffer = arena.allocate(size);
                int ret = Native.callInt(lookup, Integer.toUnsignedLong(id), entry.address(), buffer.address(), size,
                        found.address(), 0);
                if (ret == Errno.ERANGE) {
                    continue;
                }
                if (ret != 0 || found.get(JAVA_LONG, 0) == 0) {
                    return null;
                }
                return buffer.getString(entry.get(JAVA_LONG, 0) - buffer.address());
            }
            return null;
        }
    }

    /** {@code dup(fd)}: the lowest free descriptor on {@code fd}'s open file, or {@code -errno}. */
    public static int dup(int fd) {
        return Native.callInt(DUP, fd, 0, 0, 0, 0, 0);
    }

    /** {@code dup2(fd, onto)} (as {@code dup3} with no flags): {@code onto}, or {@code -errno}. */
    public static int dup2(int fd, int onto) {
        return Native.callInt(DUP3, fd, onto, 0, 0, 0, 0);
    }

    /** {@code read(fd, buf, buf.byteSize())}: bytes read, or {@code -errno}. */
    public static long read(int fd, MemorySegment buf) {
        try {
            return Native.callLong(READ, fd, buf.address(), buf.byteSize(), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /** {@code write(fd, buf, buf.byteSize())}: bytes written, or {@code -errno}. */
    public static long write(int fd, MemorySegment buf) {
        try {
            return Native.callLong(WRITE, fd, buf.address(), buf.byteSize(), 0, 0, 0);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * {@code pthread_self()}: the calling OS thread's id — for a virtual thread, its carrier's, which stays the same
     * until the virtual thread next parks or yields.
     */
    public static long threadSelf() {
        try {
            return (long) PTHREAD_SELF.invokeExact(0L, 0L, 0L, 0L, 0L, 0L);
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
        MemorySegment state = withIovec(buf.address(), buf.byteSize());
        long iov = state.address() + Native.IOVEC_OFFSET;
        try {
            long n = (long) FirstTries.PREADV2.invokeExact((long) fd, iov, 1L, offset, (long) flags, 0L);
            return n >= 0 ? n : Native.result(
                    (long) PREADV2.invokeExact(state, (long) fd, iov, 1L, offset, (long) flags, 0L), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * {@link #preadv2} into the {@code length} bytes at {@code address} (memory the caller keeps alive: part of a
     * segment, without a slice), made once, without learning the errno: bytes read, or a negative number if it
     * failed, for whatever reason. For a try whose failure sends the read elsewhere, which names any error: a
     * {@link #RWF_NOWAIT} read that the page cache cannot serve then costs one system call, not two.
     */
    public static long tryPreadv2(int fd, long address, long length, long offset, int flags) {
        long iov = withIovec(address, length).address() + Native.IOVEC_OFFSET;
        try {
            return (long) FirstTries.PREADV2.invokeExact((long) fd, iov, 1L, offset, (long) flags, 0L);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** The thread's call state, holding an iovec of {@code length} bytes at {@code address}. */
    private static MemorySegment withIovec(long address, long length) {
        MemorySegment state = Native.callState();
        state.set(JAVA_LONG, Native.IOVEC_OFFSET, address);
        state.set(JAVA_LONG, Native.IOVEC_OFFSET + 8, length);
        return state;
    }

    /** {@code pread(fd, buf, buf.byteSize(), offset)}: bytes read (0 at end of file), or {@code -errno}. */
    public static long pread(int fd, MemorySegment buf, long offset) {
        try {
            long n = (long) FirstTries.PREAD.invokeExact((long) fd, buf.address(), buf.byteSize(), offset, 0L, 0L);
            if (n >= 0) {
                return n;
            }
            MemorySegment state = Native.callState();
            return Native.result((long) PREAD.invokeExact(state, (long) fd, buf.address(), buf.byteSize(), offset, 0L,
                    0L), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /** {@code pwrite(fd, buf, buf.byteSize(), offset)}: bytes written, or {@code -errno}. */
    public static long pwrite(int fd, MemorySegment buf, long offset) {
        try {
            long n = (long) FirstTries.PWRITE.invokeExact((long) fd, buf.address(), buf.byteSize(), offset, 0L, 0L);
            if (n >= 0) {
                return n;
            }
            MemorySegment state = Native.callState();
            return Native.result((long) PWRITE.invokeExact(state, (long) fd, buf.address(), buf.byteSize(), offset, 0L,
                    0L), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /**
     * {@code pwritev2(fd, {buf}, 1, offset, flags)}, the iovec in the thread's call state: bytes written, or
     * {@code -errno}. With {@link #RWF_NOWAIT} a buffered write fails with -EAGAIN rather than wait (for a page to
     * be read or allocated, for the inode lock, for writeback to make room); file systems without support answer
     * -EOPNOTSUPP.
     */
    public static long pwritev2(int fd, MemorySegment buf, long offset, int flags) {
        MemorySegment state = withIovec(buf.address(), buf.byteSize());
        long iov = state.address() + Native.IOVEC_OFFSET;
        try {
            long n = (long) FirstTries.PWRITEV2.invokeExact((long) fd, iov, 1L, offset, (long) flags, 0L);
            return n >= 0 ? n : Native.result(
                    (long) PWRITEV2.invokeExact(state, (long) fd, iov, 1L, offset, (long) flags, 0L), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        } finally {
            Reference.reachabilityFence(buf);
        }
    }

    /** {@code fsync(fd)}, or {@code fdatasync(fd)} with {@code dataOnly}: 0 or {@code -errno}. */
    public static int fsync(int fd, boolean dataOnly) {
        return Native.callInt(dataOnly ? FDATASYNC : FSYNC, fd, 0, 0, 0, 0, 0);
    }

    /** {@code ftruncate(fd, length)}: 0 or {@code -errno}. */
    public static int ftruncate(int fd, long length) {
        return Native.callInt(FTRUNCATE, fd, length, 0, 0, 0, 0);
    }

    /** {@code eventfd(initval, flags)}: the new fd, or {@code -errno}. */
    public static int eventfd(int initval, int flags) {
        return Native.callInt(EVENTFD, initval, flags, 0, 0, 0, 0);
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
    private static final long STX_DEV_MAJOR = 0x88;
    private static final long STX_DEV_MINOR = 0x8C;
    private static final MemorySegment EMPTY_PATH = Arena.global().allocate(1);
    /** The calling thread's {@code struct statx} for {@link #fileSize} and the types: asking costs no allocation. */
    private static final ThreadScratch STATX_BUFFER = new ThreadScratch(STATX_SIZE);

    /**
     * The size of {@code fd}'s file (statx of the fd, as fstat's {@code st_size}), or {@code -errno}. The same statx
     * answers the file's type: {@link #typeOfLastSize}.
     */
    public static long fileSize(int fd) {
        MemorySegment stx = STATX_BUFFER.get();
        int ret = Native.callInt(STATX_AT, fd, EMPTY_PATH.address(), AT_EMPTY_PATH, STATX_SIZE_MASK | STATX_TYPE,
                stx.address(), 0);
        return ret < 0 ? ret : stx.get(JAVA_LONG, STX_SIZE);
    }

    /** The type ({@code S_IFREG}, ...) of the file whose size the calling thread's last {@link #fileSize} found. */
    public static int typeOfLastSize() {
        return Short.toUnsignedInt(STATX_BUFFER.get().get(JAVA_SHORT, STX_MODE)) & S_IFMT;
    }

    /**
     * The device of the file whose type the calling thread's last successful {@link #pathType} found (statx fills
     * it whatever the mask asks): {@code stx_dev_major} in the high half, {@code stx_dev_minor} in the low one.
     */
    public static long deviceOfLastType() {
        MemorySegment stx = STATX_BUFFER.get();
        return (Integer.toUnsignedLong(stx.get(JAVA_INT, STX_DEV_MAJOR)) << 32)
                | Integer.toUnsignedLong(stx.get(JAVA_INT, STX_DEV_MINOR));
    }

    /** The type of {@code fd}'s file ({@code S_IFREG}, {@code S_IFBLK}, ...), or {@code -errno}. */
    public static int fileType(int fd) {
        return type(fd, EMPTY_PATH.address(), AT_EMPTY_PATH);
    }

    /** The type of the file the NUL-terminated {@code path} names, its links followed, or {@code -errno}. */
    public static int pathType(MemorySegment path) {
        try {
            return type(AT_FDCWD, path.address(), 0);
        } finally {
            Reference.reachabilityFence(path);
        }
    }

    private static int type(int dirfd, long path, int flags) {
        MemorySegment stx = STATX_BUFFER.get();
        int ret = Native.callInt(STATX_AT, dirfd, path, flags | AT_STATX_DONT_SYNC, STATX_TYPE, stx.address(), 0);
        return ret < 0 ? ret : Short.toUnsignedInt(stx.get(JAVA_SHORT, STX_MODE)) & S_IFMT;
    }

    /**
     * {@code pipe2(fds, flags)}: fills {@code fds[0]} (read end) and {@code fds[1]} (write end); 0 or {@code -errno}.
     */
    public static int pipe2(int[] fds, int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pair = arena.allocate(JAVA_INT, 2);
            int ret = Native.callInt(PIPE2, pair.address(), flags, 0, 0, 0, 0);
            if (ret == 0) {
                fds[0] = pair.getAtIndex(JAVA_INT, 0);
                fds[1] = pair.getAtIndex(JAVA_INT, 1);
            }
            return ret;
        }
    }

    /** {@code open(path, flags, mode)}: the new fd, or {@code -errno}. */
    public static int open(String path, int flags, int mode) {
        MemorySegment state = Native.callState();
        try (Arena arena = Arena.ofConfined()) {
            return (int) Native.result((int) Open.OPEN.invokeExact(state, arena.allocateFrom(path), flags, mode),
                    state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@code open(path, flags, mode)} of a NUL-terminated native {@code path}: the new fd, or {@code -errno}. */
    public static int open(MemorySegment path, int flags, int mode) {
        MemorySegment state = Native.callState();
        try {
            return (int) Native.result((int) Open.OPEN.invokeExact(state, path, flags, mode), state);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }

    /** {@link #lseek}'s whence: from the current position. */
    public static final int SEEK_CUR = 1;

    /** {@code lseek(fd, offset, whence)}: the new position, or {@code -errno} (ESPIPE: the file has no positions). */
    public static long lseek(int fd, long offset, int whence) {
        return Native.callLong(LSEEK, fd, offset, whence, 0, 0, 0);
    }

    /** {@code getrlimit}: {soft, hard}, or null if the call failed. */
    public static long[] getrlimit(int resource) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment limit = arena.allocate(JAVA_LONG, 2);
            int ret = Native.callInt(GETRLIMIT, resource, limit.address(), 0, 0, 0, 0);
            return ret < 0 ? null : new long[] {limit.getAtIndex(JAVA_LONG, 0), limit.getAtIndex(JAVA_LONG, 1)};
        }
    }

    /** {@code setrlimit}: 0 or {@code -errno}. */
    public static int setrlimit(int resource, long soft, long hard) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment limit = arena.allocate(JAVA_LONG, 2);
            limit.setAtIndex(JAVA_LONG, 0, soft);
            limit.setAtIndex(JAVA_LONG, 1, hard);
            return Native.callInt(SETRLIMIT, resource, limit.address(), 0, 0, 0, 0);
        }
    }

    private static long sysconf(int name) {
        try {
            return (long) SYSCONF.invokeExact((long) name, 0L, 0L, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
