package io.uring4j.fs;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.runtime.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Op}s for files and paths that own what the kernel reads: each path, iovec array and {@code open_how}
 * lives in memory held by the op itself (or in the request's scratch), so it stays valid until the request's
 * final CQE however the caller waits — or stops waiting. Use them with any of the runtime's styles:
 * {@code loop.submit(FileOps.fsync(fd, false), handler)}, {@code uring.submitAsync(...)}, {@code uring.call(...)}.
 * {@link AsyncFile} and {@link UringFiles} wrap them with typed results and fd lifetime; plain reads and writes
 * are {@link io.uring4j.runtime.Op#read} and {@link io.uring4j.runtime.Op#write}.
 *
 * <p>Arguments are checked here, on the caller's thread.
 */
public final class FileOps {
    /** The current working directory as a directory fd. */
    public static final int AT_FDCWD = -100;
    public static final int AT_SYMLINK_NOFOLLOW = 0x100;
    /** unlinkat: remove a directory. */
    public static final int AT_REMOVEDIR = 0x200;
    /** linkat: follow a symbolic link given as the old path. */
    public static final int AT_SYMLINK_FOLLOW = 0x400;
    /** Operate on the dirfd itself when the path is empty. */
    public static final int AT_EMPTY_PATH = 0x1000;
    /** renameat2: fail with EEXIST instead of replacing the target. */
    public static final int RENAME_NOREPLACE = 1;
    /** renameat2: swap the two paths atomically. */
    public static final int RENAME_EXCHANGE = 2;
    /** openat2 {@code resolve} bits. */
    public static final long RESOLVE_NO_XDEV = 0x01;
    public static final long RESOLVE_NO_MAGICLINKS = 0x02;
    public static final long RESOLVE_NO_SYMLINKS = 0x04;
    public static final long RESOLVE_BENEATH = 0x08;
    public static final long RESOLVE_IN_ROOT = 0x10;
    public static final long RESOLVE_CACHED = 0x20;

    /** The kernel's UIO_MAXIOV: at most this many buffers per vectored request. */
    public static final int IOV_MAX = 1024;
    /** {@code struct iovec}: base, length. */
    private static final long IOVEC_BYTES = 16;
    /** Vectors that fit the request's scratch memory need no memory of their own. */
    private static final int SCRATCH_IOVECS = (int) (Op.SCRATCH_BYTES / IOVEC_BYTES);

    private FileOps() {
    }

    /** openat; the result is the new fd. */
    public static Op openat(int dirfd, Path path, int flags, int mode) {
        MemorySegment name = NativePath.of(path);
        return (sqe, scratch) -> sqe.prepOpenat(dirfd, name, flags, mode);
    }

    /** openat2 with {@code RESOLVE_*} bits (5.6); {@code struct open_how} goes in the request's scratch. */
    public static Op openat2(int dirfd, Path path, int flags, int mode, long resolve) {
        MemorySegment name = NativePath.of(path);
        return (sqe, scratch) -> {
            MemorySegment how = scratch.asSlice(0, 24);
            how.set(JAVA_LONG, 0, Integer.toUnsignedLong(flags));
            how.set(JAVA_LONG, 8, mode);
            how.set(JAVA_LONG, 16, resolve);
            sqe.prepOpenat2(dirfd, name, how);
        };
    }

    /** preadv2 into {@code buffers} in order, starting at {@code offset}; {@code rwFlags} are RWF_* (0: none). */
    public static Op readv(int fd, MemorySegment[] buffers, long offset, int rwFlags) {
        return vectored(false, fd, buffers, offset, rwFlags);
    }

    /** pwritev2 from {@code buffers} in order, starting at {@code offset}. */
    public static Op writev(int fd, MemorySegment[] buffers, long offset, int rwFlags) {
        return vectored(true, fd, buffers, offset, rwFlags);
    }

    private static Op vectored(boolean write, int fd, MemorySegment[] buffers, long offset, int rwFlags) {
        MemorySegment[] bufs = buffers.clone();      // the caller may reuse its array before the loop prepares
        if (bufs.length > IOV_MAX) {
            throw new IllegalArgumentException(bufs.length + " buffers: at most " + IOV_MAX + " per request");
        }
        for (MemorySegment b : bufs) {
            requireNative(b);
        }
        requireOffset(offset);
        MemorySegment own = bufs.length <= SCRATCH_IOVECS ? null : Arena.ofAuto().allocate(IOVEC_BYTES * bufs.length, 8);
        return (sqe, scratch) -> {
            MemorySegment iov = own != null ? own : scratch;
            for (int i = 0; i < bufs.length; i++) {
                iov.set(JAVA_LONG, IOVEC_BYTES * i, bufs[i].address());
                iov.set(JAVA_LONG, IOVEC_BYTES * i + 8, bufs[i].byteSize());
            }
            if (write) {
                sqe.prepWritev(fd, iov, bufs.length, offset, rwFlags);
            } else {
                sqe.prepReadv(fd, iov, bufs.length, offset, rwFlags);
            }
        };
    }

    /**
     * splice {@code length} bytes from {@code fdIn} at {@code offIn} to {@code fdOut} at {@code offOut}; one side
     * must be a pipe, whose offset is -1. No user memory is involved, so nothing outlives the call.
     */
    public static Op splice(int fdIn, long offIn, int fdOut, long offOut, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        return (sqe, scratch) -> sqe.prepSplice(fdIn, offIn, fdOut, offOut, length, 0);
    }

    /** fsync, or fdatasync when {@code dataOnly}. */
    public static Op fsync(int fd, boolean dataOnly) {
        int flags = dataOnly ? OpFlags.Fsync.DATASYNC : 0;
        return (sqe, scratch) -> sqe.prepFsync(fd, flags);
    }

    /** fallocate with {@link Fallocate} mode bits. */
    public static Op fallocate(int fd, int mode, long offset, long length) {
        requireOffset(offset);
        if (length <= 0) {
            throw new IllegalArgumentException("fallocate length must be positive: " + length);
        }
        return (sqe, scratch) -> sqe.prepFallocate(fd, mode, offset, length);
    }

    /** ftruncate (6.9). */
    public static Op ftruncate(int fd, long length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        return (sqe, scratch) -> sqe.prepFtruncate(fd, length);
    }

    /** posix_fadvise over {@code length} bytes from {@code offset} (0: to the end of the file). */
    public static Op fadvise(int fd, long offset, long length, Advice advice) {
        requireOffset(offset);
        if (length < 0) {
            throw new IllegalArgumentException("negative length: " + length);
        }
        int value = advice.value();
        return (sqe, scratch) -> sqe.prepFadvise(fd, offset, length, value);
    }

    /** statx of {@code path} relative to {@code dirfd}; {@code flags} are AT_*, {@code mask} {@link Statx} bits. */
    public static StatxOp statx(int dirfd, Path path, int flags, int mask) {
        return new StatxOp(dirfd, NativePath.of(path), flags, mask);
    }

    /** statx of an open fd (AT_EMPTY_PATH). */
    public static StatxOp statx(int fd, int mask) {
        return new StatxOp(fd, NativePath.EMPTY, AT_EMPTY_PATH, mask);
    }

    /** renameat2 with RENAME_* flags. */
    public static Op renameat(int oldDirfd, Path oldPath, int newDirfd, Path newPath, int flags) {
        MemorySegment from = NativePath.of(oldPath);
        MemorySegment to = NativePath.of(newPath);
        return (sqe, scratch) -> sqe.prepRenameat(oldDirfd, from, newDirfd, to, flags);
    }

    /** unlinkat; {@link #AT_REMOVEDIR} removes an empty directory. */
    public static Op unlinkat(int dirfd, Path path, int flags) {
        MemorySegment name = NativePath.of(path);
        return (sqe, scratch) -> sqe.prepUnlinkat(dirfd, name, flags);
    }

    /** mkdirat; the umask applies to {@code mode}. */
    public static Op mkdirat(int dirfd, Path path, int mode) {
        MemorySegment name = NativePath.of(path);
        return (sqe, scratch) -> sqe.prepMkdirat(dirfd, name, mode);
    }

    /** symlinkat: {@code link} (relative to {@code dirfd}) becomes a symbolic link whose content is {@code target}. */
    public static Op symlinkat(Path target, int dirfd, Path link) {
        MemorySegment content = NativePath.of(target);
        MemorySegment name = NativePath.of(link);
        return (sqe, scratch) -> sqe.prepSymlinkat(content, dirfd, name);
    }

    /** linkat: a new hard link {@code newPath} to {@code oldPath}; {@link #AT_SYMLINK_FOLLOW} dereferences. */
    public static Op linkat(int oldDirfd, Path oldPath, int newDirfd, Path newPath, int flags) {
        MemorySegment from = NativePath.of(oldPath);
        MemorySegment to = NativePath.of(newPath);
        return (sqe, scratch) -> sqe.prepLinkat(oldDirfd, from, newDirfd, to, flags);
    }

    static void requireNative(MemorySegment buffer) {
        if (!buffer.isNative()) {
            throw new IllegalArgumentException(
                    "heap memory cannot be handed to the kernel: use a native segment (Arena.allocate) or a direct buffer");
        }
    }

    static void requireOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("negative file offset: " + offset);
        }
    }
}
