package io.uring4j.fs;

import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.IntFunction;

import static io.uring4j.fs.FileOps.AT_FDCWD;

/**
 * Files on a {@link Uring}: opening ({@link AsyncFile}) and the path operations — stat, rename, unlink, mkdir,
 * link, symlink — each blocking and as a {@link CompletableFuture}. Errors are the {@code java.nio.file}
 * exceptions the JDK would throw ({@link java.nio.file.NoSuchFileException}, ...), caused by the
 * {@link ErrnoException} that names the opcode. Paths are relative to the working directory unless absolute.
 *
 * <pre>{@code
 * UringFiles files = UringFiles.of(uring);
 * try (AsyncFile f = files.open(path, OpenFlags.O_RDWR | OpenFlags.O_CREAT, 0644)) {
 *     f.write(segment, 0);
 *     f.fsync();
 * }
 * files.rename(path, path.resolveSibling("done"));
 * }</pre>
 */
public final class UringFiles {
    private static UringFiles shared;

    private final Uring uring;

    private UringFiles(Uring uring) {
        this.uring = Objects.requireNonNull(uring, "uring");
    }

    public static UringFiles of(Uring uring) {
        return new UringFiles(uring);
    }

    /**
     * Files on {@link Uring#shared()}, the runtime shared by everything that does not bring its own.
     */
    public static synchronized UringFiles shared() throws IOException {
        if (shared == null) {
            shared = new UringFiles(Uring.shared());
            SharedFiles.up(shared);
        }
        return shared;
    }

    public Uring runtime() {
        return uring;
    }

    // ---- open ----------------------------------------------------------------------------------------------

    /**
     * Opens {@code path} with {@link OpenFlags} (O_CLOEXEC is always added); new files get {@code mode} & ~umask.
     * A buffered regular file or directory is opened in place, as the JDK does: an open of a cached path takes
     * microseconds, and a hand-over to an event loop and back costs several times that. A virtual thread asks the
     * path's type first: a FIFO's or a device's open may wait for a peer, which must not hold the carrier, so it
     * goes through the ring, as does an O_DIRECT open, which also learns the file's alignment. An exclusive create
     * (O_CREAT with O_EXCL) opens nothing that exists and is made in place without asking.
     */
    public AsyncFile open(Path path, int flags, int mode) throws IOException {
        if ((flags & OpenFlags.O_DIRECT) != 0) {
            return Await.uninterruptibly(openAsync(path, flags, mode));
        }
        if (uring.isClosed()) {
            throw Await.runtimeClosed(new RejectedExecutionException("uring4j runtime is closed: file not opened"));
        }
        int fd;
        int type = AsyncFile.TYPE_UNKNOWN;
        long device = NoWaitWrites.UNKNOWN;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = NativePath.of(path, arena);
            // An exclusive create opens nothing that exists, a FIFO neither (EEXIST): it need not ask the type.
            if (Thread.currentThread().isVirtual() && !createsExclusively(flags)) {
                type = LibC.pathType(name);
                if (!opensAtOnce(type, flags)) {
                    return Await.uninterruptibly(openAsync(path, flags, mode));
                }
                device = type < 0 ? NoWaitWrites.UNKNOWN : LibC.deviceOfLastType();
            }
            fd = LibC.open(name, flags | OpenFlags.O_CLOEXEC, mode);
        }
        if (fd < 0) {
            throw FileErrors.translate(new ErrnoException("OPENAT", fd), path, null);
        }
        // The type just asked is the file's, unless a rename put another file there in between: then a FIFO could
        // pass for the regular file, as its open above would already have held the carrier. Not asked again, nor is
        // the device: a wrong one costs no more than the JDK's plain pwrite, or an RWF_NOWAIT write that is refused.
        // A path that was not there is, on the same ground, the regular file that O_CREAT made (opensAtOnce).
        boolean made = type == -Errno.ENOENT && (flags & OpenFlags.O_CREAT) != 0;
        int known = type >= 0 ? type : made ? LibC.S_IFREG : createdType(flags);
        AsyncFile file = new AsyncFile(uring, fd, path, flags, known, 0, 0);
        file.onDevice(device);
        return file;
    }

    /**
     * The type of the file an open with {@code flags} made, where they say it without asking: O_CREAT with O_EXCL
     * succeeds only by creating a regular file (as {@code CREATE_NEW} does: Lucene's every index file). Else
     * {@link AsyncFile#TYPE_UNKNOWN}, asked on first need.
     */
    private static int createdType(int flags) {
        return createsExclusively(flags) ? LibC.S_IFREG : AsyncFile.TYPE_UNKNOWN;
    }

    /** O_CREAT with O_EXCL: the open creates a regular file or fails, EEXIST for anything already there. */
    private static boolean createsExclusively(int flags) {
        int exclusive = OpenFlags.O_CREAT | OpenFlags.O_EXCL;
        return (flags & exclusive) == exclusive;
    }

    /** Whether an open of a file of {@code type} (or {@code -errno}) cannot wait for anything but the file system. */
    private static boolean opensAtOnce(int type, int flags) {
        return type == LibC.S_IFREG || type == LibC.S_IFDIR
                || type == -Errno.ENOENT && (flags & OpenFlags.O_CREAT) != 0;      // it creates a regular file
    }

    /** Opens {@code path}; a file it creates gets {@link OpenFlags#DEFAULT_FILE_MODE} & ~umask. */
    public AsyncFile open(Path path, int flags) throws IOException {
        return open(path, flags, OpenFlags.DEFAULT_FILE_MODE);
    }

    /**
     * Opens {@code path} asynchronously. Cancelling the future does not stop the open in the kernel (an open is
     * not interruptible), but a file that arrives after the cancel is closed, not leaked.
     */
    public CompletableFuture<AsyncFile> openAsync(Path path, int flags, int mode) {
        Op open = FileOps.openat(AT_FDCWD, path, flags | OpenFlags.O_CLOEXEC, mode);
        CompletableFuture<AsyncFile> result = new CompletableFuture<>();
        // The runtime's own future is never handed out, so nobody can cancel it: its completion always comes.
        submitRaw(open).whenComplete((fd, failure) -> {
            if (failure != null) {
                result.completeExceptionally(FileErrors.translate(failure, path, null));
            } else {
                adopt(fd, path, flags).whenComplete((file, e) -> {
                    if (e != null) {
                        result.completeExceptionally(FileErrors.unwrap(e));
                    } else if (!result.complete(file)) {
                        file.closeAsync();
                    }
                });
            }
        });
        return result;
    }

    /**
     * The file for a freshly opened {@code fd}; O_DIRECT files learn their alignment first, and their type (I/O on
     * a regular file or block device ends on its own, unlike a FIFO's or a character device's, so its blocking calls
     * may wait for a wake-up the loop is sure to get: {@link io.uring4j.runtime.EventLoop#callBounded}). Other
     * files' type is asked when first needed, unless the open said it ({@link #createdType}).
     */
    private CompletableFuture<AsyncFile> adopt(int fd, Path path, int flags) {
        if ((flags & OpenFlags.O_DIRECT) == 0) {
            AsyncFile file = new AsyncFile(uring, fd, path, flags, createdType(flags), 0, 0);
            return CompletableFuture.completedFuture(file);
        }
        int type = LibC.fileType(fd);
        StatxOp stat = FileOps.statx(fd, Statx.DIOALIGN);
        return submitRaw(stat).handle((r, failure) -> {
            if (failure != null) {
                LibC.close(fd);
                throw new java.util.concurrent.CompletionException(FileErrors.translate(failure, path, null));
            }
            Statx s = stat.statx();
            boolean known = s.has(Statx.DIOALIGN) && s.dioOffsetAlign() > 0;
            int memory = known ? s.dioMemAlign() : s.blockSize();
            int offset = known ? s.dioOffsetAlign() : s.blockSize();
            return new AsyncFile(uring, fd, path, flags, type, memory, offset);
        });
    }

    // ---- path operations -----------------------------------------------------------------------------------

    /** statx of {@code path}, following symbolic links. */
    public Statx stat(Path path) throws IOException {
        return Await.uninterruptibly(statAsync(path, 0));
    }

    /** statx of {@code path} itself, not of what a symbolic link points to. */
    public Statx lstat(Path path) throws IOException {
        return Await.uninterruptibly(statAsync(path, FileOps.AT_SYMLINK_NOFOLLOW));
    }

    public CompletableFuture<Statx> statAsync(Path path) {
        return statAsync(path, 0);
    }

    private CompletableFuture<Statx> statAsync(Path path, int atFlags) {
        StatxOp op = FileOps.statx(AT_FDCWD, path, atFlags, Statx.DEFAULT_MASK);
        return run(op, path, null, r -> op.statx());
    }

    /** Renames {@code from} to {@code to}, replacing {@code to} if it exists (renameat2 flags: {@link #rename(Path, Path, int)}). */
    public void rename(Path from, Path to) throws IOException {
        rename(from, to, 0);
    }

    /** Renames with {@link FileOps#RENAME_NOREPLACE} or {@link FileOps#RENAME_EXCHANGE}. */
    public void rename(Path from, Path to, int flags) throws IOException {
        Await.uninterruptibly(renameAsync(from, to, flags));
    }

    public CompletableFuture<Void> renameAsync(Path from, Path to, int flags) {
        return run(FileOps.renameat(AT_FDCWD, from, AT_FDCWD, to, flags), from, to, UringFiles::none);
    }

    /** Removes a file (not a directory: {@link #rmdir}). */
    public void unlink(Path path) throws IOException {
        Await.uninterruptibly(unlinkAsync(path));
    }

    public CompletableFuture<Void> unlinkAsync(Path path) {
        return run(FileOps.unlinkat(AT_FDCWD, path, 0), path, null, UringFiles::none);
    }

    /** Removes an empty directory. */
    public void rmdir(Path path) throws IOException {
        Await.uninterruptibly(rmdirAsync(path));
    }

    public CompletableFuture<Void> rmdirAsync(Path path) {
        return run(FileOps.unlinkat(AT_FDCWD, path, FileOps.AT_REMOVEDIR), path, null, UringFiles::none);
    }

    /** Creates a directory with {@link OpenFlags#DEFAULT_DIRECTORY_MODE} & ~umask. */
    public void mkdir(Path path) throws IOException {
        mkdir(path, OpenFlags.DEFAULT_DIRECTORY_MODE);
    }

    public void mkdir(Path path, int mode) throws IOException {
        Await.uninterruptibly(mkdirAsync(path, mode));
    }

    public CompletableFuture<Void> mkdirAsync(Path path, int mode) {
        return run(FileOps.mkdirat(AT_FDCWD, path, mode), path, null, UringFiles::none);
    }

    /** Creates the hard link {@code link} to {@code existing} (argument order of {@code Files.createLink}). */
    public void link(Path link, Path existing) throws IOException {
        Await.uninterruptibly(linkAsync(link, existing));
    }

    public CompletableFuture<Void> linkAsync(Path link, Path existing) {
        return run(FileOps.linkat(AT_FDCWD, existing, AT_FDCWD, link, 0), link, existing, UringFiles::none);
    }

    /** Creates the symbolic link {@code link} to {@code target} (argument order of {@code Files.createSymbolicLink}). */
    public void symlink(Path link, Path target) throws IOException {
        Await.uninterruptibly(symlinkAsync(link, target));
    }

    public CompletableFuture<Void> symlinkAsync(Path link, Path target) {
        return run(FileOps.symlinkat(target, AT_FDCWD, link), link, null, UringFiles::none);
    }

    // ---- plumbing ------------------------------------------------------------------------------------------

    /** The runtime's future for {@code op}: kept internal, so it always completes with the request. */
    private CompletableFuture<Integer> submitRaw(Op op) {
        try {
            return uring.submitAsync(op);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(Await.runtimeClosed(e));
        }
    }

    private <T> CompletableFuture<T> run(Op op, Path file, Path other, IntFunction<T> result) {
        return submitRaw(op).handle((r, failure) -> {
            if (failure != null) {
                throw new java.util.concurrent.CompletionException(FileErrors.translate(failure, file, other));
            }
            return result.apply(r);
        });
    }

    private static Void none(int result) {
        return null;
    }
}
