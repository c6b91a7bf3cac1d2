package io.uring4j.fs;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * An open file on a {@link Uring}: positional reads and writes (plain and vectored), sync, allocation,
 * truncation, advice, statx and close — each blocking (virtual threads park; no carrier is held) and as a
 * {@link CompletableFuture}. Open one with {@link UringFiles#open}.
 *
 * <p>Buffers are native memory the caller keeps alive until the request completes: a blocking call returns only
 * after the kernel is done with the buffer, even when interrupted; with a future, do not free the buffer before
 * the future completes. One request moves at most {@link #MAX_RW_COUNT} bytes (the kernel's limit); larger
 * buffers are read or written in part, as a short read or write.
 *
 * <p>O_DIRECT files check buffer address, length and file position against the file's direct-I/O alignment
 * before submitting, and say which is wrong; {@link #allocateBuffer} hands out buffers that fit.
 *
 * <p>{@link #close()} cancels requests in flight and closes the fd once the kernel has finished with all of
 * them; requests then fail with {@link AsynchronousCloseException}, and new ones with
 * {@link java.nio.channels.ClosedChannelException}. Errors of the kernel are
 * {@link io.uring4j.sys.ErrnoException}s naming the opcode. An interrupted blocking call throws
 * {@link InterruptedIOException} and leaves the file open.
 *
 * <p>The callback style needs no wrapper: {@code uring.submit(Op.read(file.fd(), buf, pos), handler)} — but
 * then the caller must not close the file while such requests are in flight.
 */
public final class AsyncFile implements AutoCloseable {
    /** The kernel's MAX_RW_COUNT ({@code INT_MAX} rounded down to a page): the most one read or write moves. */
    public static final long MAX_RW_COUNT = 0x7ffff000L;
    private static final long PAGE = 4096;
    /** {@code -During4j.fs.writesInPlace=false} sends every write and sync through the ring, for comparison. */
    private static final boolean WRITES_IN_PLACE =
            !"false".equalsIgnoreCase(System.getProperty("uring4j.fs.writesInPlace"));

    private final Uring uring;
    private final FdGuard guard;
    private final Path path;
    private final int flags;
    /** O_DIRECT only (0 otherwise): buffer address alignment, and file offset and length alignment. */
    private final int memoryAlignment;
    private final int offsetAlignment;
    /**
     * The file system refused an RWF_NOWAIT write (EOPNOTSUPP), this file's or another's on its device
     * ({@link NoWaitWrites}): virtual threads' page-cache writes are plain pwrites.
     */
    private volatile boolean noWaitRefused;
    /** The file's device where its open learned it ({@link #onDevice}), else {@link NoWaitWrites#UNKNOWN}. */
    private long device = NoWaitWrites.UNKNOWN;
    /** From this many other virtual threads writing the file, a crowded O_DIRECT write goes through the ring. */
    static final int RING_WRITERS_FROM = 16;
    /** A file synced within this many writes has its crowded O_DIRECT writes made as the JDK's, however many. */
    static final int SYNCED_WITHIN = 64;
    /** Virtual threads in an O_DIRECT write of this file ({@link #write}): one alone writes on its carrier. */
    private final AtomicInteger directWriters = new AtomicInteger();
    /** Where {@link #write} sends a virtual thread's O_DIRECT write that finds others writing, if anywhere. */
    private volatile CompensatedWrite crowdedWrites;
    /**
     * Writes since the last sync, counted by crowded O_DIRECT writes ({@link #write}); approximate, as the racy
     * increments of several threads may be: it only tells a file synced now and then from one that is not.
     */
    private int writesSinceSync = SYNCED_WITHIN;
    /** Blocking single-buffer reads: where each goes. */
    private final BlockingReads reads;
    /**
     * What the file's type says, asked on first need ({@link #kind()}), or by {@link #size()}, whose statx answers
     * it too, or said by the open (an exclusive create); a platform thread's {@link #write} and read do not need
     * it (a file without positions refuses them with ESPIPE). A platform thread's open, write and close are then
     * the JDK's three system calls, and {@code Files.readAllBytes}'s open and size two. 0 until known, then
     * {@link #KNOWN} with the bits that hold: {@link #BOUNDED}, a regular file or block device, whose I/O ends on its
     * own ({@link EventLoop#callBounded}); {@link #OTHER}, neither a regular file nor a directory, what the JDK's
     * streams call "other" (see {@link #isOther()}); {@link #SEEKABLE}, the file has positions, as the kernel
     * decides: lseek works (a pipe, socket or terminal refuses it with ESPIPE, and pread/pwrite with it). io_uring
     * takes a request's offset without that check, so the channels, which follow the JDK's positional calls, ask
     * here. Threads that ask at once write the same answer.
     */
    private int kind;
    private static final int KNOWN = 1;
    private static final int BOUNDED = 2;
    private static final int OTHER = 4;
    private static final int SEEKABLE = 8;
    /** Set once by the channel that owns the file, before its first call ({@link #uninterruptible()}). */
    private volatile boolean uninterruptible;
    /** Until an interrupt first matters: whether the caller makes this file's calls uninterruptible. */
    private volatile BooleanSupplier uninterruptibleIf;

    /** {@code type}: the file's {@code S_IF*} type ({@link LibC#fileType}), -errno, or {@link #TYPE_UNKNOWN}. */
    AsyncFile(Uring uring, int fd, Path path, int flags, int type, int memoryAlignment, int offsetAlignment) {
        this.uring = uring;
        this.guard = new FdGuard(uring, fd);
        if (type != TYPE_UNKNOWN) {
            this.kind = kindOf(type, fd);
        }
        this.noWaitRefused = NoWaitWrites.refused(NoWaitWrites.UNKNOWN);
        this.reads = new BlockingReads(this, guard, uring,
                (flags & LibC.O_DIRECT) != 0 && isBounded() ? new DirectDevice() : null);
        this.path = path;
        this.flags = flags;
        this.memoryAlignment = memoryAlignment;
        this.offsetAlignment = offsetAlignment;
    }

    public Path path() {
        return path;
    }

    /** The flags this file was opened with. */
    public int flags() {
        return flags;
    }

    public Uring runtime() {
        return uring;
    }

    /** The file descriptor, for requests of your own; it is closed by {@link #close()}. */
    public int fd() {
        return guard.fd();
    }

    public boolean isOpen() {
        return !guard.isClosing();
    }

    /** Whether the file has positions: false for a pipe, socket or terminal, where positional I/O fails (ESPIPE). */
    public boolean isSeekable() {
        return (kind() & SEEKABLE) != 0;
    }

    /**
     * Neither a regular file nor a directory (a FIFO, socket, device): the JDK's {@code FileChannelImpl.isOther},
     * whose streams read such a file to its end without asking its size or position.
     */
    boolean isOther() {
        return (kind() & OTHER) != 0;
    }

    /** A regular file or block device, whose I/O ends on its own. */
    boolean isBounded() {
        return (kind() & BOUNDED) != 0;
    }

    /** Whether the file's type is known, from its open or a call that needed it. */
    boolean typeKnown() {
        return kind != 0;
    }

    /** A type the constructor is given when it is not known yet: asked on first need. */
    static final int TYPE_UNKNOWN = Integer.MIN_VALUE;

    private int kind() {
        int k = kind;
        if (k == 0) {
            int fd = fd();
            k = kindOf(LibC.fileType(fd), fd);
            kind = k;
        }
        return k;
    }

    private static int kindOf(int type, int fd) {
        boolean bounded = type == LibC.S_IFREG || type == LibC.S_IFBLK;
        boolean other = type != LibC.S_IFREG && type != LibC.S_IFDIR;
        boolean seekable = bounded || LibC.lseek(fd, 0, LibC.SEEK_CUR) >= 0;
        return KNOWN | (bounded ? BOUNDED : 0) | (other ? OTHER : 0) | (seekable ? SEEKABLE : 0);
    }

    public boolean isDirect() {
        return offsetAlignment != 0;
    }

    /** O_DIRECT: the alignment of file positions and lengths (0 for buffered files). */
    public int directAlignment() {
        return offsetAlignment;
    }

    /** O_DIRECT: the alignment of buffer addresses (0 for buffered files). */
    public int directMemoryAlignment() {
        return memoryAlignment;
    }

    /**
     * A buffer from {@code arena} that suits this file: aligned for O_DIRECT (page-aligned in any case).
     *
     * @throws IllegalArgumentException if the file is O_DIRECT and {@code size} is not a multiple of
     *                                  {@link #directAlignment()}
     */
    public MemorySegment allocateBuffer(Arena arena, long size) {
        if (isDirect() && size % offsetAlignment != 0) {
            throw new IllegalArgumentException("O_DIRECT transfers on " + path + " are multiples of " + offsetAlignment
                    + " bytes: " + size + " is not");
        }
        return arena.allocate(size, Math.max(PAGE, Math.max(memoryAlignment, offsetAlignment)));
    }

    // ---- reads and writes --------------------------------------------------------------------------------

    /** pread into {@code dst}: the bytes read, 0 at end of file. */
    public int read(MemorySegment dst, long position) throws IOException {
        return reads.read(requestPart(dst, position), position);
    }

    public CompletableFuture<Integer> readAsync(MemorySegment dst, long position) {
        return submit(Op.read(fd(), requestPart(dst, position), position), Integer::valueOf);
    }

    /** preadv into {@code dsts} in order: the bytes read, 0 at end of file. */
    public int read(MemorySegment[] dsts, long position) throws IOException {
        return call(FileOps.readv(fd(), checked(dsts, position), position, 0));
    }

    public CompletableFuture<Integer> readAsync(MemorySegment[] dsts, long position) {
        return submit(FileOps.readv(fd(), checked(dsts, position), position, 0), Integer::valueOf);
    }

    /** pwrite of {@code src}: the bytes written. */
    public int write(MemorySegment src, long position) throws IOException {
        MemorySegment part = requestPart(src, position);
        if (!Thread.currentThread().isVirtual()) {
            return platformWrite(part, position);
        }
        if (mayWriteInPlace() && !isDirect()) {
            return writeInPlace(part, position);
        }
        if (!WRITES_IN_PLACE || !isBounded()) {
            return call(Op.write(fd(), part, position));
        }
        // A virtual thread's O_DIRECT write. One alone is a plain pwrite on its carrier, as the JDK's: the ring
        // would hand it to a worker (ext4 takes no non-blocking direct write into unwritten extents) at the cost of
        // a wake-up on each side, and one held carrier is all the JDK's holds too. With others writing the file, see
        // crowdedWrite.
        int others = beginDirectWrite();
        try {
            if (others > 0) {
                return crowdedWrite(others, part, position);
            }
            long n = writeHere(part, position, false);
            return n == part.byteSize() ? (int) n : restThroughRing(n, part, position, Opcode.WRITE);
        } finally {
            endDirectWrite();
        }
    }

    /**
     * A virtual thread's O_DIRECT write while {@code others} write the file too. Up to {@link #RING_WRITERS_FROM},
     * and in a file synced within its last {@link #SYNCED_WITHIN} writes (a log's or a database's, whose writes wait
     * on syncs anyway), through {@link #crowdedWrites} where the channel set one: the JDK's channel, whose write adds
     * a carrier while it waits, as the JDK's own does. Each such write through the ring costs a hand-over to the loop
     * and back, more CPU than a carrier's wait on a machine of few CPUs. More at once go through the ring, where
     * they are in flight side by side without as many carriers, and get ahead of the JDK's.
     */
    private int crowdedWrite(int others, MemorySegment part, long position) throws IOException {
        CompensatedWrite jdk = crowdedWrites;
        if (jdk != null && (others < RING_WRITERS_FROM || writesSinceSync++ < SYNCED_WITHIN)) {
            long n = jdk.write(part, position);
            if (n >= 0) {
                return (int) n;
            }
        }
        return call(Op.write(fd(), part, position));
    }

    /** Counts a virtual thread's O_DIRECT write of this file as under way; answers how many others are. */
    int beginDirectWrite() {
        return directWriters.getAndIncrement();
    }

    void endDirectWrite() {
        directWriters.decrementAndGet();
    }

    /**
     * A platform thread's write: a plain pwrite in place, O_DIRECT or not, as the JDK's channel makes it (the thread
     * blocks either way, and a hand-over to the loop and back costs more than a small write; pwritev2 would cost the
     * kernel an iovec to copy in). A file whose type was not asked is written so too, the JDK's one call: a regular
     * file or block device takes it, and one without positions (FIFO, socket, terminal) refuses it at once with
     * ESPIPE, having written nothing — then, asked its type, it is written through the ring, as files that are not
     * regular always are.
     */
    private int platformWrite(MemorySegment src, long position) throws IOException {
        boolean asked = typeKnown();
        if (!WRITES_IN_PLACE || asked && !isBounded()) {
            return call(Op.write(fd(), src, position));
        }
        long n = writeHere(src, position, false);
        if (n >= 0) {
            return (int) n;
        }
        if (n == -Errno.ESPIPE && !asked && !isBounded()) {
            return call(Op.write(fd(), src, position));     // its type, asked now, is not a regular file's
        }
        throw new ErrnoException("WRITE", (int) n);
    }

    /**
     * Whether {@link #write} may make a write on the calling thread at all: a platform thread's, a virtual thread's
     * page-cache write ({@link #writeInPlace}), or a virtual thread's O_DIRECT write while it is the file's only one.
     * Files that are not regular are written through the ring.
     */
    boolean mayWriteInPlace() {
        return WRITES_IN_PLACE && isBounded();
    }

    /**
     * A virtual thread's page-cache write on its carrier: a pwritev2(RWF_NOWAIT), which the kernel completes or
     * refuses without blocking the carrier, and the rest through the ring. Where the file system refuses RWF_NOWAIT
     * writes (ext4 does), a plain pwrite on its carrier, as the JDK's: io_uring would hand such a write to an io-wq
     * worker, which blocks in the same copy, at the cost of wake-ups on both sides.
     */
    private int writeInPlace(MemorySegment src, long position) throws IOException {
        boolean noWait = !noWaitRefused;
        long n = writeHere(src, position, noWait);
        if (n == -Errno.EOPNOTSUPP && noWait) {
            noWaitRefused = true;       // this file system does not take RWF_NOWAIT writes: not asked again
            NoWaitWrites.refuse(device);
            n = writeHere(src, position, false);
        } else if (noWait && (n >= 0 || n == -Errno.EAGAIN)) {
            NoWaitWrites.took();        // taken, or refused only for now
        }
        if (n == src.byteSize()) {
            return (int) n;
        }
        return restThroughRing(n, src, position, Opcode.WRITE);
    }

    /**
     * What an attempt on the calling thread left, through the ring: all of it if the attempt moved nothing (it
     * would block, or failed: the ring names the error), else the rest — an error then makes it a short read or
     * write, as with pread and pwrite, and shows on the next call. {@code opcode}: READ or WRITE.
     */
    int restThroughRing(long n, MemorySegment buf, long position, byte opcode) throws IOException {
        long done = Math.max(0, n);
        try {
            return (int) done + call(new Rest(opcode, fd(), buf, done, position));
        } catch (ErrnoException e) {
            if (done == 0) {
                throw e;
            }
            return (int) done;
        }
    }

    /** The rest of {@code buf} from byte {@code done}, read or written at {@code position + done}: one op, no slice. */
    private record Rest(byte opcode, int fd, MemorySegment buf, long done, long position) implements Op {
        @Override
        public void prepare(Sqe sqe, MemorySegment scratch) {
            sqe.prepRw(opcode, fd, buf.address() + done, (int) (buf.byteSize() - done), position + done);
        }
    }

    private long writeHere(MemorySegment src, long position, boolean noWait) throws IOException {
        guard.acquire();
        try {
            return noWait ? LibC.pwritev2(fd(), src, position, LibC.RWF_NOWAIT) : LibC.pwrite(fd(), src, position);
        } finally {
            guard.release();
        }
    }

    public CompletableFuture<Integer> writeAsync(MemorySegment src, long position) {
        return submit(Op.write(fd(), requestPart(src, position), position), Integer::valueOf);
    }

    /** pwritev of {@code srcs} in order: the bytes written. */
    public int write(MemorySegment[] srcs, long position) throws IOException {
        return call(FileOps.writev(fd(), checked(srcs, position), position, 0));
    }

    public CompletableFuture<Integer> writeAsync(MemorySegment[] srcs, long position) {
        return submit(FileOps.writev(fd(), checked(srcs, position), position, 0), Integer::valueOf);
    }

    // ---- the rest ------------------------------------------------------------------------------------------

    /** fsync: data and metadata to stable storage. */
    public void fsync() throws IOException {
        sync(false);
    }

    /**
     * fsync, or fdatasync with {@code dataOnly}: a platform thread's in place, as the JDK's — of any file, a
     * directory too (a database's commit syncs its directory after a rename), which a sync never waits for input on;
     * a virtual thread's of a regular file in place too while it is the only virtual thread syncing, of any file
     * (O_DIRECT or not, as its lone writes are) — io_uring hands every sync to an io-wq worker, whose wake-ups cost
     * more than a lone sync's wait on the carrier. Several at once go through the ring, where they wait together
     * without holding carriers (held carriers would let only as many syncs run at once as there are carriers).
     */
    void sync(boolean dataOnly) throws IOException {
        sync(dataOnly, null);
    }

    /**
     * As {@link #sync(boolean)}, but a virtual thread that finds others syncing syncs through {@code crowded} when it
     * can: the JDK's channel on this file, whose sync adds a carrier to the scheduler while it waits. Every sync then
     * runs at once and the journal commits them together, and none pays the ring's hand-overs to an io-wq worker
     * and back, which cost more than a carrier's on a machine of few CPUs.
     */
    void sync(boolean dataOnly, CompensatedSync crowded) throws IOException {
        writesSinceSync = 0;
        if (!WRITES_IN_PLACE || Thread.currentThread().isVirtual() && !isBounded()) {
            call(FileOps.fsync(fd(), dataOnly));
            return;
        }
        if (Thread.currentThread().isVirtual()) {
            boolean alone = VirtualSyncs.begin();
            try {
                if (alone) {
                    syncHere(dataOnly);
                } else if (crowded == null || !crowded.sync(dataOnly)) {
                    call(FileOps.fsync(fd(), dataOnly));
                }
            } finally {
                VirtualSyncs.end();
            }
            return;
        }
        syncHere(dataOnly);
    }

    /**
     * Sets the device of this file ({@link NoWaitWrites#UNKNOWN} if its open did not learn it), fresh from its open
     * and not yet shared: its virtual threads' page-cache writes skip the RWF_NOWAIT try where another file on the
     * device found it refused ({@link NoWaitWrites#refused}).
     */
    void onDevice(long device) {
        this.device = device;
        this.noWaitRefused = NoWaitWrites.refused(device);
    }

    /** Whether virtual threads' page-cache writes of this file skip RWF_NOWAIT: its file system refuses it. */
    boolean noWaitWritesRefused() {
        return noWaitRefused;
    }

    /** A write of this file made elsewhere: see {@link #crowdedWrite}. */
    @FunctionalInterface
    interface CompensatedWrite {
        /** Writes {@code src} at {@code position}; or answers -1, without writing, where it cannot. */
        long write(MemorySegment src, long position) throws IOException;
    }

    /** Where virtual threads' crowded O_DIRECT writes go ({@link #crowdedWrite}); set once, by the owning channel. */
    void crowdedWrites(CompensatedWrite writes) {
        crowdedWrites = writes;
    }

    /** A sync of this file made elsewhere: see {@link #sync(boolean, CompensatedSync)}. */
    @FunctionalInterface
    interface CompensatedSync {
        /** Syncs the file, or answers false, without syncing, where it cannot (the ring then syncs). */
        boolean sync(boolean dataOnly) throws IOException;
    }

    private void syncHere(boolean dataOnly) throws IOException {
        guard.acquire();
        try {
            int r = LibC.fsync(fd(), dataOnly);
            if (r < 0) {
                throw new ErrnoException("FSYNC", r);
            }
        } finally {
            guard.release();
        }
    }

    public CompletableFuture<Void> fsyncAsync() {
        return submit(FileOps.fsync(fd(), false), AsyncFile::none);
    }

    /** fdatasync: data, and only the metadata needed to read it back. */
    public void fdatasync() throws IOException {
        sync(true);
    }

    public CompletableFuture<Void> fdatasyncAsync() {
        return submit(FileOps.fsync(fd(), true), AsyncFile::none);
    }

    /** fallocate with {@link Fallocate} mode bits (0: allocate, growing the file if needed). */
    public void allocate(int mode, long offset, long length) throws IOException {
        call(FileOps.fallocate(fd(), mode, offset, length));
    }

    public CompletableFuture<Void> allocateAsync(int mode, long offset, long length) {
        return submit(FileOps.fallocate(fd(), mode, offset, length), AsyncFile::none);
    }

    /** ftruncate to {@code size} bytes, shrinking or growing (through the ring: 6.9; a platform thread's in place). */
    public void truncate(long size) throws IOException {
        if (Thread.currentThread().isVirtual()) {
            call(FileOps.ftruncate(fd(), size));
            return;
        }
        int fd = guard.acquire();
        try {
            int r = LibC.ftruncate(fd, size);
            if (r < 0) {
                throw new ErrnoException("FTRUNCATE", r);
            }
        } finally {
            guard.release();
        }
    }

    public CompletableFuture<Void> truncateAsync(long size) {
        return submit(FileOps.ftruncate(fd(), size), AsyncFile::none);
    }

    /** posix_fadvise over {@code length} bytes from {@code offset} (length 0: to the end). */
    public void advise(long offset, long length, Advice advice) throws IOException {
        call(FileOps.fadvise(fd(), offset, length, advice));
    }

    public CompletableFuture<Void> adviseAsync(long offset, long length, Advice advice) {
        return submit(FileOps.fadvise(fd(), offset, length, advice), AsyncFile::none);
    }

    /** statx of the open file. */
    public Statx stat() throws IOException {
        StatxOp op = FileOps.statx(fd(), Statx.DEFAULT_MASK);
        call(op);
        return op.statx();
    }

    public CompletableFuture<Statx> statAsync() {
        StatxOp op = FileOps.statx(fd(), Statx.DEFAULT_MASK);
        return submit(op, r -> op.statx());
    }

    /**
     * The file's size in bytes, asked in place from any thread, as the JDK's fstat: a statx of an open file does not
     * wait for the device, so it holds a virtual thread's carrier for no longer than a hand-over to an event loop
     * and back would cost.
     */
    public long size() throws IOException {
        int fd = guard.acquire();
        try {
            long size = LibC.fileSize(fd);
            if (size < 0) {
                throw new ErrnoException("STATX", (int) size);
            }
            if (kind == 0) {
                kind = kindOf(LibC.typeOfLastSize(), fd);
            }
            return size;
        } finally {
            guard.release();
        }
    }

    /**
     * Closes the file: refuses new requests, cancels those in flight and closes the fd once the kernel has
     * finished with all of them, waiting for that unless called on an event loop thread. Idempotent.
     */
    @Override
    public void close() throws IOException {
        CompletableFuture<Void> closed = guard.close();
        if (!uring.inLoop()) {
            Await.uninterruptibly(closed);
        }
    }

    /** Starts closing; the future completes once the fd is closed. */
    public CompletableFuture<Void> closeAsync() {
        return guard.close().copy();
    }

    /**
     * A platform path that opens this same file, for the JDK channels the uring4j channels delegate map and lock
     * to ({@link PlatformFiles#sameFile}).
     */
    Path reopenPath() {
        return PlatformFiles.sameFile(fd(), path);
    }

    /** A call given the fd. */
    interface FdCall<T> {
        T run(int fd) throws IOException;
    }

    /**
     * Runs {@code call} with the fd in use, so that it is neither closed nor its number reused meanwhile. Not for a
     * call that may wait for ever: close waits for it.
     */
    <T> T withFd(FdCall<T> call) throws IOException {
        int fd = guard.acquire();
        try {
            return call.run(fd);
        } finally {
            guard.release();
        }
    }

    @Override
    public String toString() {
        return "AsyncFile[" + path + ", fd " + fd() + (isOpen() ? "" : ", closed") + "]";
    }

    // ---- plumbing ------------------------------------------------------------------------------------------

    /**
     * Blocking style: the fd is in use from the request's preparation to its CQE, so a close does not wait for a
     * request that is still waiting for a slot (it fails with {@link AsynchronousCloseException} once prepared).
     * For callers in this package that have done their own argument checks (the channels follow the JDK's).
     */
    int call(Op op) throws IOException {
        if (!uninterruptible) {
            if (uninterruptibleIf == null) {
                return callOnce(op);
            }
            try {
                return callOnce(op);
            } catch (InterruptedIOException e) {
                if (!askCaller()) {
                    throw e;
                }
                if (e.bytesTransferred > 0) {
                    return e.bytesTransferred;          // as below: what moved is reported, here below any copy
                }
            }
        }
        // Cleared, or the ring's call would cancel the request at once. An interrupt that comes during the call
        // cancels it all the same: a request that moved nothing is made again (a cancelled one moved nothing, and
        // the ops here are positional or idempotent); one that moved bytes reports them, as a short read or write.
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return callOnce(op);
                } catch (InterruptedIOException e) {
                    interrupted |= Thread.interrupted();
                    if (e.bytesTransferred > 0) {
                        return e.bytesTransferred;
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Makes this file's blocking calls uninterruptible, for the channels the JDK makes so (JDK-8205612: those of
     * {@code Files.newInputStream}, {@code readAllBytes}, ..., and every AsynchronousFileChannel's size, force
     * and truncate): a call completes whatever the thread's interrupt status, which it leaves set if it was set
     * or an interrupt came meanwhile.
     */
    void uninterruptible() {
        uninterruptible = true;
    }

    boolean isUninterruptible() {
        return uninterruptible;
    }

    /**
     * Makes this file's blocking calls uninterruptible if {@code caller}, asked on the thread of a call, says so;
     * interruptible otherwise. It is asked once, when an interrupt first matters: one that ends a call here
     * ({@link #call} then carries on as an uninterruptible call would, or throws), or, through
     * {@link #askCaller}, one the thread already has when its channel starts an operation. An interrupt during a
     * call made in place (a pread, which the kernel completes without waiting) is seen by the next call, as if it
     * had come just after.
     */
    void uninterruptibleIf(BooleanSupplier caller) {
        uninterruptibleIf = caller;
    }

    /** Whether {@link #uninterruptibleIf}'s caller is still to be asked. */
    boolean callerUndecided() {
        return uninterruptibleIf != null;
    }

    /** Asks {@link #uninterruptibleIf}'s caller now, once; true if this file's calls are now uninterruptible. */
    boolean askCaller() {
        BooleanSupplier caller = uninterruptibleIf;
        if (caller != null && caller.getAsBoolean()) {
            uninterruptible = true;
        }
        uninterruptibleIf = null;
        return uninterruptible;
    }

    private int callOnce(Op op) throws IOException {
        if (guard.isClosing()) {
            throw new ClosedChannelException();
        }
        try {
            return uring.loop().call(op, guard, isBounded());
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            if (guard.isClosing()) {
                AsynchronousCloseException closed = new AsynchronousCloseException();
                closed.initCause(e);
                throw closed;
            }
            throw e;
        } catch (RejectedExecutionException e) {
            throw Await.runtimeClosed(e);
        }
    }

    /** A blocking read into {@code dst}, after the caller's checks ({@link BlockingReads}). */
    int readBlocking(MemorySegment dst, long position) throws IOException {
        return reads.read(dst, position);
    }

    /** Future style; the outcome is a plain result mapping here, and more for the channels. */
    <T> CompletableFuture<T> submit(Op op, FileRequest.Outcome<T> outcome) {
        return FileRequest.submit(guard, uring.loop(), op, outcome);
    }

    /** The part of {@code buffer} one request moves, after the O_DIRECT checks. */
    private MemorySegment requestPart(MemorySegment buffer, long position) {
        FileOps.requireNative(buffer);
        FileOps.requireOffset(position);
        checkDirect(buffer, position);
        return buffer.byteSize() > MAX_RW_COUNT ? buffer.asSlice(0, MAX_RW_COUNT) : buffer;
    }

    private MemorySegment[] checked(MemorySegment[] buffers, long position) {
        FileOps.requireOffset(position);
        for (MemorySegment b : buffers) {
            checkDirect(b, position);
        }
        return buffers;
    }

    private void checkDirect(MemorySegment buffer, long position) {
        if (offsetAlignment == 0) {
            return;
        }
        if (buffer.address() % memoryAlignment != 0 || buffer.byteSize() % offsetAlignment != 0
                || position % offsetAlignment != 0) {
            throw new IllegalArgumentException(String.format(
                    "O_DIRECT on %s needs buffer addresses aligned to %d bytes, and lengths and file positions that"
                            + " are multiples of %d: got address 0x%x, length %d, position %d"
                            + " (AsyncFile.allocateBuffer gives suitable buffers)",
                    path, memoryAlignment, offsetAlignment, buffer.address(), buffer.byteSize(), position));
        }
    }

    private static Void none(int result) {
        return null;
    }
}
