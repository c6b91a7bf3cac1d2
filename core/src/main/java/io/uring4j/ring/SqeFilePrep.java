package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;

import java.lang.foreign.MemorySegment;

import static io.uring4j.ring.abi.SqeLayout.ADDR;
import static io.uring4j.ring.abi.SqeLayout.FILE_INDEX;
import static io.uring4j.ring.abi.SqeLayout.OFF;
import static io.uring4j.ring.abi.SqeLayout.U32;
import static io.uring4j.ring.abi.SqeLayout.U64;

/**
 * Prep methods for file and path operations. Buffers, iovec arrays and paths are native segments that the
 * caller keeps alive until the request's CQE (iovec arrays and paths only until submit, with
 * {@link Features#SUBMIT_STABLE}). Paths are NUL-terminated, as {@code Arena.allocateFrom(String)} makes them.
 * An {@code offset} of -1 means the file's current position (FEAT_RW_CUR_POS).
 */
abstract sealed class SqeFilePrep extends SqeCore permits SqeNetPrep {
    SqeFilePrep(MemorySegment slot, int index) {
        super(slot, index);
    }

    /** pread into {@code buf} (all of it). */
    public final Sqe prepRead(int fd, MemorySegment buf, long offset) {
        return prepRw(Opcode.READ, fd, address(buf), length(buf), offset);
    }

    /** pread of {@code len} bytes into a provided buffer picked from {@code bufGroup}. */
    public final Sqe prepReadSelect(int fd, int len, long offset, int bufGroup) {
        return prepRw(Opcode.READ, fd, 0, len, offset).bufferSelect(bufGroup);
    }

    /** pwrite of all of {@code buf}. */
    public final Sqe prepWrite(int fd, MemorySegment buf, long offset) {
        return prepRw(Opcode.WRITE, fd, address(buf), length(buf), offset);
    }

    /** preadv2: {@code iovecs} holds {@code count} {@code struct iovec}s; {@code rwFlags} are RWF_*. */
    public final Sqe prepReadv(int fd, MemorySegment iovecs, int count, long offset, int rwFlags) {
        return prepRw(Opcode.READV, fd, address(iovecs), count, offset).opFlags(rwFlags);
    }

    /** pwritev2. */
    public final Sqe prepWritev(int fd, MemorySegment iovecs, int count, long offset, int rwFlags) {
        return prepRw(Opcode.WRITEV, fd, address(iovecs), count, offset).opFlags(rwFlags);
    }

    /** preadv2 whose iovecs all point inside registered buffer {@code bufIndex} (6.15). */
    public final Sqe prepReadvFixed(int fd, MemorySegment iovecs, int count, long offset, int rwFlags, int bufIndex) {
        return prepRw(Opcode.READV_FIXED, fd, address(iovecs), count, offset).opFlags(rwFlags).bufIndex(bufIndex);
    }

    /** pwritev2 whose iovecs all point inside registered buffer {@code bufIndex} (6.15). */
    public final Sqe prepWritevFixed(int fd, MemorySegment iovecs, int count, long offset, int rwFlags, int bufIndex) {
        return prepRw(Opcode.WRITEV_FIXED, fd, address(iovecs), count, offset).opFlags(rwFlags).bufIndex(bufIndex);
    }

    /** Read into {@code buf}, which lies inside registered buffer {@code bufIndex}. */
    public final Sqe prepReadFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        return prepRw(Opcode.READ_FIXED, fd, address(buf), length(buf), offset).bufIndex(bufIndex);
    }

    /** Write from {@code buf}, which lies inside registered buffer {@code bufIndex}. */
    public final Sqe prepWriteFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        return prepRw(Opcode.WRITE_FIXED, fd, address(buf), length(buf), offset).bufIndex(bufIndex);
    }

    /** Multishot read of a pollable fd into provided buffers of {@code bufGroup} (6.7). */
    public final Sqe prepReadMultishot(int fd, int len, long offset, int bufGroup) {
        return prepRw(Opcode.READ_MULTISHOT, fd, 0, len, offset).bufferSelect(bufGroup);
    }

    /** fsync, or fdatasync with {@link OpFlags.Fsync#DATASYNC}. */
    public final Sqe prepFsync(int fd, int fsyncFlags) {
        return prepRw(Opcode.FSYNC, fd, 0, 0, 0).opFlags(fsyncFlags);
    }

    /** sync_file_range. */
    public final Sqe prepSyncFileRange(int fd, int len, long offset, int flags) {
        return prepRw(Opcode.SYNC_FILE_RANGE, fd, 0, len, offset).opFlags(flags);
    }

    /** fallocate(fd, mode, offset, length). */
    public final Sqe prepFallocate(int fd, int mode, long offset, long length) {
        return prepRw(Opcode.FALLOCATE, fd, length, mode, offset);
    }

    /** posix_fadvise with a 64-bit length (in addr, as liburing's fadvise64). */
    public final Sqe prepFadvise(int fd, long offset, long length, int advice) {
        return prepRw(Opcode.FADVISE, fd, length, 0, offset).opFlags(advice);
    }

    /** madvise of a native range. */
    public final Sqe prepMadvise(MemorySegment range, int advice) {
        return prepRw(Opcode.MADVISE, -1, address(range), length(range), 0).opFlags(advice);
    }

    /** ftruncate (6.9). */
    public final Sqe prepFtruncate(int fd, long length) {
        return prepRw(Opcode.FTRUNCATE, fd, 0, 0, length);
    }

    /** openat; the CQE result is the new fd. */
    public final Sqe prepOpenat(int dfd, MemorySegment path, int flags, int mode) {
        return prepRw(Opcode.OPENAT, dfd, address(path), mode, 0).opFlags(flags);
    }

    /** openat into registered file slot {@code slot} (or {@link OpFlags.FileIndex#ALLOC}); no O_CLOEXEC. */
    public final Sqe prepOpenatDirect(int dfd, MemorySegment path, int flags, int mode, int slot) {
        return prepOpenat(dfd, path, flags, mode).directSlot(slot);
    }

    /** openat2 with a {@code struct open_how} (24 bytes: flags, mode, resolve). */
    public final Sqe prepOpenat2(int dfd, MemorySegment path, MemorySegment openHow) {
        return prepRw(Opcode.OPENAT2, dfd, address(path), length(openHow), address(openHow));
    }

    /** close(fd). */
    public final Sqe prepClose(int fd) {
        return prepRw(Opcode.CLOSE, fd, 0, 0, 0);
    }

    /** Closes registered file slot {@code slot}. */
    public final Sqe prepCloseDirect(int slot) {
        return prepClose(0).directSlot(slot);
    }

    /** statx into a 256-byte {@code struct statx}. */
    public final Sqe prepStatx(int dfd, MemorySegment path, int flags, int mask, MemorySegment statx) {
        return prepRw(Opcode.STATX, dfd, address(path), mask, address(statx)).opFlags(flags);
    }

    /** renameat2. */
    public final Sqe prepRenameat(int oldDfd, MemorySegment oldPath, int newDfd, MemorySegment newPath, int flags) {
        return prepRw(Opcode.RENAMEAT, oldDfd, address(oldPath), newDfd, address(newPath)).opFlags(flags);
    }

    /** unlinkat; {@code AT_REMOVEDIR} (0x200) removes a directory. */
    public final Sqe prepUnlinkat(int dfd, MemorySegment path, int flags) {
        return prepRw(Opcode.UNLINKAT, dfd, address(path), 0, 0).opFlags(flags);
    }

    /** mkdirat. */
    public final Sqe prepMkdirat(int dfd, MemorySegment path, int mode) {
        return prepRw(Opcode.MKDIRAT, dfd, address(path), mode, 0);
    }

    /** symlinkat(target, newDfd, linkPath). */
    public final Sqe prepSymlinkat(MemorySegment target, int newDfd, MemorySegment linkPath) {
        return prepRw(Opcode.SYMLINKAT, newDfd, address(target), 0, address(linkPath));
    }

    /** linkat. */
    public final Sqe prepLinkat(int oldDfd, MemorySegment oldPath, int newDfd, MemorySegment newPath, int flags) {
        return prepRw(Opcode.LINKAT, oldDfd, address(oldPath), newDfd, address(newPath)).opFlags(flags);
    }

    /**
     * splice {@code nbytes} from {@code fdIn} at {@code offIn} to {@code fdOut} at {@code offOut} (-1: no offset,
     * as for pipes). {@code SPLICE_F_FD_IN_FIXED} (1 &lt;&lt; 31) in {@code flags} makes {@code fdIn} a fixed file.
     */
    public final Sqe prepSplice(int fdIn, long offIn, int fdOut, long offOut, int nbytes, int flags) {
        prepRw(Opcode.SPLICE, fdOut, 0, nbytes, offOut).opFlags(flags);
        slot.set(U64, ADDR, offIn);
        slot.set(U32, FILE_INDEX, fdIn);
        return (Sqe) this;
    }

    /** tee between two pipes. */
    public final Sqe prepTee(int fdIn, int fdOut, int nbytes, int flags) {
        prepRw(Opcode.TEE, fdOut, 0, nbytes, 0).opFlags(flags);
        slot.set(U32, FILE_INDEX, fdIn);
        return (Sqe) this;
    }

    /** pipe2 into {@code fds} (int[2]: read end, write end) (6.16); {@code flags} are O_CLOEXEC / O_NONBLOCK. */
    public final Sqe prepPipe(MemorySegment fds, int flags) {
        return prepRw(Opcode.PIPE, 0, address(fds), 0, 0).opFlags(flags);
    }

    /**
     * pipe2 into two registered file slots, {@code slot} and {@code slot + 1} (or {@link OpFlags.FileIndex#ALLOC}:
     * the kernel picks two); {@code fds} receives the slots (6.16). No O_CLOEXEC: direct descriptors have none.
     */
    public final Sqe prepPipeDirect(MemorySegment fds, int flags, int slot) {
        return prepPipe(fds, flags).directSlot(slot);
    }

    /**
     * Discards {@code length} bytes at {@code offset} of the block device {@code fd} (opened for writing),
     * asynchronously: a URING_CMD ({@link OpFlags.BlockCmd#DISCARD}, 6.12; liburing's
     * {@code io_uring_prep_cmd_discard}). Both must be multiples of the logical block size.
     */
    public final Sqe prepCmdDiscard(int fd, long offset, long length) {
        prepRw(Opcode.URING_CMD, fd, offset, 0, 0);
        slot.set(U32, OFF, OpFlags.BlockCmd.DISCARD);
        return addr3(length);
    }

    /** fgetxattr: reads attribute {@code name} of {@code fd} into {@code value}; the result is its length. */
    public final Sqe prepFgetxattr(int fd, MemorySegment name, MemorySegment value) {
        return prepRw(Opcode.FGETXATTR, fd, address(name), length(value), address(value));
    }

    /** fsetxattr; {@code flags}: XATTR_CREATE (1) / XATTR_REPLACE (2). */
    public final Sqe prepFsetxattr(int fd, MemorySegment name, MemorySegment value, int flags) {
        return prepRw(Opcode.FSETXATTR, fd, address(name), length(value), address(value)).opFlags(flags);
    }

    /** getxattr by path. */
    public final Sqe prepGetxattr(MemorySegment path, MemorySegment name, MemorySegment value) {
        return prepRw(Opcode.GETXATTR, 0, address(name), length(value), address(value)).addr3(address(path));
    }

    /** setxattr by path. */
    public final Sqe prepSetxattr(MemorySegment path, MemorySegment name, MemorySegment value, int flags) {
        return prepRw(Opcode.SETXATTR, 0, address(name), length(value), address(value)).opFlags(flags)
                .addr3(address(path));
    }

    /** Updates registered files from slot {@code offset} with {@code count} fds read from {@code fds} (int[]). */
    public final Sqe prepFilesUpdate(MemorySegment fds, int count, int offset) {
        return prepRw(Opcode.FILES_UPDATE, -1, address(fds), count, offset);
    }

    /** Installs registered file slot {@code slot} as a normal fd (the CQE result); flags: INSTALL_NO_CLOEXEC. */
    public final Sqe prepFixedFdInstall(int slot, int flags) {
        return prepRw(Opcode.FIXED_FD_INSTALL, slot, 0, 0, 0).flags(SqeFlags.FIXED_FILE).opFlags(flags);
    }
}
