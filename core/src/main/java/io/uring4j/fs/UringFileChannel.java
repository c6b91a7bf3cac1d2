package io.uring4j.fs;

import io.uring4j.runtime.InterruptedCalls;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Collections;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * A {@link FileChannel} whose I/O runs on io_uring: a drop-in for {@link FileChannel#open}, following the
 * contract of the JDK's own implementation — the same results, positions, sizes and exceptions, down to the
 * messages. Blocking calls park the calling thread (a virtual thread unmounts; no carrier is pinned or added).
 *
 * <pre>{@code
 * try (FileChannel ch = UringFileChannel.open(path, READ, WRITE, CREATE)) {   // was: FileChannel.open(...)
 *     ch.write(ByteBuffer.wrap(bytes), 0);
 * }
 * }</pre>
 *
 * <ul>
 *   <li>Interruption and asynchronous close as in {@code FileChannelImpl}: interrupting a thread blocked in an
 *       operation closes the channel and throws {@link ClosedByInterruptException} with the interrupt status
 *       set; a close from another thread makes blocked operations throw {@link AsynchronousCloseException}.
 *       Either way the request is cancelled and the call returns only after the kernel has finished with the
 *       buffer. The channels of {@code Files.newInputStream}, {@code newOutputStream} and {@code readAllBytes}
 *       under {@link UringFileSystemProvider} are uninterruptible, as the JDK's are.</li>
 *   <li>Heap buffers are copied through native memory (a pooled buffer for up to 64 KiB); direct buffers are
 *       handed to the kernel as they are.</li>
 *   <li>{@code com.sun.nio.file.ExtendedOpenOption.DIRECT} — or {@link UringOpenOption#DIRECT} — opens with
 *       O_DIRECT and applies the JDK's alignment checks (the block size from statx).</li>
 *   <li>{@link #map} and {@link #lock} are delegated to a JDK channel on the same open file
 *       ({@code /proc/self/fd}), opened on first use; the locks it returns belong to this channel.</li>
 *   <li>{@link #transferTo} and {@link #transferFrom} copy through a native buffer.</li>
 * </ul>
 */
public final class UringFileChannel extends FileChannel {
    private static final Cleaner CLEANER = Cleaner.create();

    final AsyncFile file;
    final boolean readable;
    final boolean writable;
    private final boolean append;
    /** O_DIRECT: the block size that positions, lengths and direct-buffer addresses must be multiples of; else 0. */
    private final int alignment;
    private final Object positionLock = new Object();
    /** The file position of relative reads and writes (not of append-mode writes, which go to the end). */
    private long position;
    private final JdkDelegate<FileChannel> delegate;
    /** Closes the fd if the channel is dropped unclosed, as the JDK's channels do. */
    private final Cleaner.Cleanable cleanable;
    /** {@link #size()}'s call, made once: a method reference to the file would be a new object per call. */
    private final Io sizeCall;
    /** A crowded virtual thread's sync ({@link #syncThroughJdk}), made once as {@link #sizeCall} is. */
    private final AsyncFile.CompensatedSync jdkSync;
    /** The JDK delegate could not be opened for a sync or write: those stay on the ring. */
    private volatile boolean jdkRefused;
    /** The JDK delegate refused a crowded O_DIRECT write ({@link #writeThroughJdk}): those stay on the ring. */
    private volatile boolean jdkWritesRefused;

    private UringFileChannel(AsyncFile file, OpenOptions options, int alignment) {
        this.file = file;
        this.readable = options.read();
        this.writable = options.write();
        this.delegate = new JdkDelegate<>(file, readable, writable);
        this.append = options.append();
        this.alignment = alignment;
        this.cleanable = CLEANER.register(this, file::closeAsync);
        this.sizeCall = file::size;
        this.jdkSync = this::syncThroughJdk;
        if (writable && options.direct() && OpenOptions.JDK_DIRECT != null) {
            file.crowdedWrites(this::writeThroughJdk);
        }
    }

    // ---- opening -------------------------------------------------------------------------------------------

    /** As {@link FileChannel#open(Path, OpenOption...)}, on the shared runtime ({@link UringFiles#shared()}). */
    public static UringFileChannel open(Path path, OpenOption... options) throws IOException {
        return open(UringFiles.shared(), path, toSet(options));
    }

    /** As {@link FileChannel#open(Path, Set, FileAttribute[])}, on the shared runtime. */
    public static UringFileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
            throws IOException {
        return open(UringFiles.shared(), path, options, attrs);
    }

    /** As {@link FileChannel#open(Path, OpenOption...)}, on {@code uring}. */
    public static UringFileChannel open(Uring uring, Path path, OpenOption... options) throws IOException {
        return open(UringFiles.of(uring), path, toSet(options));
    }

    /** As {@link FileChannel#open(Path, Set, FileAttribute[])}, on {@code uring}. */
    public static UringFileChannel open(Uring uring, Path path, Set<? extends OpenOption> options,
                                        FileAttribute<?>... attrs) throws IOException {
        return open(UringFiles.of(uring), path, options, attrs);
    }

    static UringFileChannel open(UringFiles files, Path path, Set<? extends OpenOption> options,
                                         FileAttribute<?>... attrs) throws IOException {
        Objects.requireNonNull(path, "path");
        OpenOptions o = OpenOptions.parse(options).forFileChannel();
        AsyncFile file = o.open(files, path, OpenOptions.mode(attrs));
        try {
            int alignment = o.direct() ? file.stat().blockSize() : 0;
            return new UringFileChannel(file, o, alignment);
        } catch (Throwable t) {
            file.close();
            throw t;
        }
    }

    /**
     * As {@code FileChannelImpl.setUninterruptible}, for the channels the JDK gives {@code Files.newInputStream},
     * {@code newOutputStream} and {@code readAllBytes} (JDK-8205612): an interrupt does not close the channel or
     * end its operations, and the thread's interrupt status is left as it is.
     */
    void setUninterruptible() {
        file.uninterruptible();
    }

    /**
     * Makes this channel uninterruptible if {@code caller}, asked on the thread of one of its operations, says so;
     * interruptible otherwise. For a channel that only its caller can place, as {@code Files.readAllBytes}'s
     * against an application's {@code Files.newByteChannel(path)}: asking walks the stack, which costs more than
     * the open itself, so it is asked only once an interrupt matters ({@link AsyncFile#uninterruptibleIf}). Until
     * then operations run as an uninterruptible channel's, without begin and end.
     */
    void uninterruptibleIf(BooleanSupplier caller) {
        file.uninterruptibleIf(caller);
    }

    /** Neither a regular file nor a directory, as {@code FileChannelImpl.isOther}: a FIFO, socket or device. */
    boolean isOther() {
        return file.isOther();
    }

    static Set<OpenOption> toSet(OpenOption... options) {
        Set<OpenOption> set = new HashSet<>(options.length);
        Collections.addAll(set, options);
        return set;
    }

    // ---- reads and writes ----------------------------------------------------------------------------------

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return (int) relativeRead(Call.READ, dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        return relativeRead(Call.READV, new Buffers(dsts, offset, length));
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        Objects.requireNonNull(dst);
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        DirectAlignment.checkPosition(position, alignment);
        return (int) interruptible(Call.READ_AT, dst, position, true);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) relativeWrite(Call.WRITE, src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        return relativeWrite(Call.WRITEV, new Buffers(srcs, offset, length));
    }

    /** A read at the channel's position, which then moves past what was read. */
    private long relativeRead(Call call, Object arg) throws IOException {
        ensureOpen();
        if (!readable) {
            throw new NonReadableChannelException();
        }
        synchronized (positionLock) {
            DirectAlignment.checkPosition(position, alignment);
            long n = interruptible(call, arg, position, true);
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }

    /** A write at the channel's position (or, with O_APPEND, at the end: the kernel ignores the offset). */
    private long relativeWrite(Call call, Object arg) throws IOException {
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        synchronized (positionLock) {
            if (alignment > 0) {
                DirectAlignment.checkPosition(position(), alignment);
            }
            long at = append ? 0 : position;
            long n = interruptible(call, arg, at, true);
            if (n > 0 && !append) {
                position += n;
            }
            return n;
        }
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        Objects.requireNonNull(src);
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        ensureOpen();
        if (!writable) {
            throw new NonWritableChannelException();
        }
        DirectAlignment.checkPosition(position, alignment);
        return (int) interruptible(Call.WRITE_AT, src, position, true);
    }

    /** One pread; -1 at end of file (unless {@code dst} has no room: 0, without a request). */
    private int readAt(ByteBuffer dst, long at) throws IOException {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        DirectAlignment.checkBuffer(dst, alignment);
        int rem = dst.remaining();
        if (rem == 0) {
            return 0;
        }
        return BufferCalls.read(file, dst, at, shadowAlignment());
    }

    private long readAt(Buffers dsts, long at) throws IOException {
        ScatterGather v = ScatterGather.of(dsts.array(), dsts.offset(), dsts.length(), true, alignment);
        if (v.isEmpty()) {
            return 0;
        }
        Throwable failure = null;
        try {
            int n = file.call(FileOps.readv(file.fd(), v.segments(), at, 0));
            return n == 0 ? -1 : v.complete(n);
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            v.release(failure);
        }
    }

    /** One pwrite of {@code src}'s remaining bytes. */
    private int writeAt(ByteBuffer src, long at) throws IOException {
        DirectAlignment.checkBuffer(src, alignment);
        int rem = src.remaining();
        if (rem == 0) {
            return 0;
        }
        return BufferCalls.write(file, src, at, shadowAlignment());
    }

    private long writeAt(Buffers srcs, long at) throws IOException {
        ScatterGather v = ScatterGather.of(srcs.array(), srcs.offset(), srcs.length(), false, alignment);
        if (v.isEmpty()) {
            return 0;
        }
        Throwable failure = null;
        try {
            return v.complete(file.call(FileOps.writev(file.fd(), v.segments(), at, 0)));
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            v.release(failure);
        }
    }

    /** Native stand-ins for heap buffers: aligned for O_DIRECT, page-aligned from the pool otherwise. */
    long shadowAlignment() {
        return alignment > 0 ? Math.max(alignment, file.directMemoryAlignment()) : 8;
    }

    // ---- position, size, truncate, force ---------------------------------------------------------------------

    @Override
    public long position() throws IOException {
        ensureOpen();
        synchronized (positionLock) {
            // In append mode the position is the end of the file, where the next write goes.
            return control(() -> {
                requireSeekable();
                return append ? file.size() : position;
            });
        }
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException();
        }
        synchronized (positionLock) {
            control(() -> {
                requireSeekable();
                return position = newPosition;
            });
            return this;
        }
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        synchronized (positionLock) {
            return control(sizeCall);
        }
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        ensureOpen();
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (!writable) {
            throw new NonWritableChannelException();
        }
        synchronized (positionLock) {
            control(() -> {
                requireSeekable();
                if (size < file.size()) {
                    file.truncate(size);
                }
                if (position > size) {
                    position = size;
                }
                return 0;
            });
            return this;
        }
    }

    @Override
    public void force(boolean metaData) throws IOException {
        ensureOpen();
        control(() -> {
            file.sync(!metaData, jdkSync);
            return 0;
        });
    }

    /**
     * A virtual thread's sync while others sync ({@link AsyncFile#sync(boolean, AsyncFile.CompensatedSync)}): the JDK
     * delegate's force, which adds a carrier while it waits. Not for an uninterruptible channel (the delegate is
     * interruptible: an interrupt would close it), nor once the delegate could not be opened (its open through
     * {@code /proc/self/fd} checks the file's permissions again, which may have changed since this channel's).
     */
    private boolean syncThroughJdk(boolean dataOnly) throws IOException {
        FileChannel jdk = jdkForBlockingCall();
        if (jdk == null) {
            return false;
        }
        jdk.force(!dataOnly);
        return true;
    }

    /**
     * A virtual thread's crowded O_DIRECT write ({@link AsyncFile#write}): the JDK delegate's, opened O_DIRECT as this
     * channel is, whose write adds a carrier while it waits (set only where the JDK can open it O_DIRECT). As
     * {@link #syncThroughJdk}, not for an uninterruptible channel nor once the delegate could not be opened.
     * A write the JDK refuses goes to the ring, and so do the channel's later ones: the JDK's own O_DIRECT checks
     * (it aligns to the file system's fragment size, this channel to the file's block size, the same on most file
     * systems) or the write itself failed, and the ring names an error as this channel's other writes do.
     */
    private long writeThroughJdk(MemorySegment src, long position) throws IOException {
        FileChannel jdk = jdkWritesRefused ? null : jdkForBlockingCall();
        if (jdk == null) {
            return -1;
        }
        try {
            return jdk.write(src.asByteBuffer(), position);
        } catch (ClosedChannelException e) {
            throw e;                        // closed, by an interrupt too: as this channel's own write ends
        } catch (IOException e) {
            jdkWritesRefused = true;
            return -1;
        }
    }

    /** The JDK delegate for a blocking call made there, or null where this channel keeps its own. */
    private FileChannel jdkForBlockingCall() throws IOException {
        if (file.isUninterruptible() || jdkRefused) {
            return null;
        }
        try {
            return delegate();
        } catch (ClosedChannelException e) {
            throw e;
        } catch (IOException e) {
            jdkRefused = true;
            return null;
        }
    }

    // ---- transfers (ChannelTransfers) -----------------------------------------------------------------------

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return ChannelTransfers.transferTo(this, position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return ChannelTransfers.transferFrom(this, src, position, count);
    }

    /** Whether a splice can move data to or from this channel: not O_DIRECT, not O_APPEND. */
    boolean spliceable() {
        return alignment == 0 && !append;
    }

    interface AtPosition {
        long run(long position) throws IOException;
    }

    /**
     * {@code io} at this channel's position, under its position lock; the position moves past what it moved, and
     * stays where it is on a negative result (a splice that was refused).
     */
    long atOwnPosition(AtPosition io) throws IOException {
        synchronized (positionLock) {
            long n = io.run(position);
            if (n >= 0) {
                position += n;
            }
            return n;
        }
    }

    // ---- map and lock: the JDK's --------------------------------------------------------------------------------

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Size exceeds Integer.MAX_VALUE");
        }
        Objects.requireNonNull(mode, "Mode is null");
        ensureOpen();
        try {
            return delegate().map(mode, position, size);
        } catch (ClosedByInterruptException e) {
            throw closedWithDelegate(e);
        }
    }

    @Override
    public MemorySegment map(MapMode mode, long offset, long size, Arena arena) throws IOException {
        Objects.requireNonNull(mode, "Mode is null");
        Objects.requireNonNull(arena, "Arena is null");
        ensureOpen();
        try {
            return delegate().map(mode, offset, size, arena);
        } catch (ClosedByInterruptException e) {
            throw closedWithDelegate(e);
        }
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        checkLockable(shared);
        try {
            return new UringFileLock(this, delegate().lock(position, size, shared));
        } catch (FileLockInterruptionException e) {
            close();            // the interrupt closed the JDK channel; the JDK closes the channel that was locking
            throw e;
        }
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        checkLockable(shared);
        FileLock lock = delegate().tryLock(position, size, shared);
        return lock == null ? null : new UringFileLock(this, lock);
    }

    private void checkLockable(boolean shared) throws IOException {
        ensureOpen();
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
    }

    /**
     * transferTo through the {@link #delegate}, for a target of the JDK's own that it sends to in the kernel. An
     * interrupt closes the delegate, as the JDK's channel closes itself; this channel goes with it.
     */
    long transferToViaJdk(long position, long count, WritableByteChannel target) throws IOException {
        try {
            return delegate().transferTo(position, count, target);
        } catch (ClosedByInterruptException e) {
            throw closedWithDelegate(e);
        }
    }

    /**
     * An interrupt closed the {@link #delegate} in one of its blocking operations, as the JDK's channel closes
     * itself: this channel goes with it, as the JDK's would, rather than stay open with a closed delegate that fails
     * every later map, lock and crowded write or sync. For operations outside begin and end ({@link #interruptible}
     * does the same for those inside, where the delegate's own begin and end took the interrupt from this channel).
     */
    private ClosedByInterruptException closedWithDelegate(ClosedByInterruptException e) throws IOException {
        close();
        return e;
    }

    /**
     * The JDK channel for map, lock and transfers to the JDK's channels, opened on first use on the same open file:
     * {@code /proc/self/fd/N} reaches it even when the path was renamed or deleted (DELETE_ON_CLOSE). POSIX record
     * locks belong to the process and the inode, so locks taken through it are this file's locks, and the JDK's lock
     * table sees overlaps with every other channel of the JVM.
     */
    private FileChannel delegate() throws IOException {
        ensureOpen();
        return delegate.get(options -> PlatformFiles.provider().newFileChannel(file.reopenPath(), options));
    }

    // ---- close and plumbing -----------------------------------------------------------------------------------

    /** Closes the JDK delegate, cancels requests in flight and closes the fd once the kernel is done with them. */
    @Override
    protected void implCloseChannel() throws IOException {
        try {
            delegate.closeWithFile();
        } finally {
            cleanable.clean();
        }
    }

    /**
     * ESPIPE, as the JDK's positional calls and lseek get on a file without positions (a FIFO, socket or
     * terminal): io_uring would take the offset of a request on it and read, write or wait for input instead.
     */
    private void requireSeekable() throws IOException {
        if (!file.isSeekable()) {
            throw new ErrnoException("lseek", Errno.ESPIPE);
        }
    }


    void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    @FunctionalInterface
    interface Io {
        long run() throws IOException;
    }

    /**
     * What {@link #interruptible} runs, on an argument and a position: the reads and writes, positional (what a
     * database calls most) and relative (what streams call), or an {@link Io}. A constant rather than a lambda that
     * captures the buffer and position, which is an object per call wherever C2 does not inline the call; and
     * switched on rather than a constant lambda, which puts two frames more between a stream's read and the copy
     * into its array — enough to leave the copy's own checks beyond C2's inlining depth, out of line in every read.
     */
    private enum Call {
        IO, READ, WRITE, READV, WRITEV, READ_AT, WRITE_AT
    }

    /** A scattering read's or gathering write's buffers. */
    private record Buffers(ByteBuffer[] array, int offset, int length) {
    }

    /** A read or write between begin and end: it "completed" if it moved bytes (the JDK's rule). */
    long readOrWrite(Io io) throws IOException {
        return interruptible(Call.IO, io, 0, true);
    }

    /** Any other blocking operation between begin and end: it completed if it returned. */
    private long control(Io io) throws IOException {
        return interruptible(Call.IO, io, 0, false);
    }

    private long interruptible(Call call, Object arg, long at, boolean movesBytes) throws IOException {
        if (file.callerUndecided()) {
            if (!Thread.currentThread().isInterrupted()) {
                try {
                    return kernel(call, arg, at);
                } catch (InterruptedIOException | ClosedByInterruptException e) {
                    // the file asked (interruptible: the status is set again), or the JDK delegate's sync was closed
                    throw InterruptedCalls.closeOnInterrupt(this);
                }
            }
            file.askCaller();
        }
        if (file.isUninterruptible()) {
            return kernel(call, arg, at);   // no begin/end: an interrupt neither closes the channel nor ends the call
        }
        boolean completed = false;
        boolean interrupted = false;
        try {
            begin();
            long r = kernel(call, arg, at);
            completed = !movesBytes || r > 0;
            return r;
        } catch (InterruptedIOException | ClosedByInterruptException e) {
            // The latter from the JDK delegate (a crowded sync or write): its begin took the thread's interrupt
            // from this channel, and its end unregistered this channel's interruptor, which then never ran.
            interrupted = true;
            throw e;
        } finally {
            end(completed);
            if (interrupted) {
                throw InterruptedCalls.closeOnInterrupt(this);
            }
        }
    }

    /**
     * Runs {@code io}, reporting kernel errors as the JDK does — an IOException with the strerror text — with the
     * ErrnoException (which names the opcode) as the cause. Closing and interrupt exceptions pass through for
     * {@code end} to turn into the exception the contract names.
     */
    private long kernel(Call call, Object arg, long at) throws IOException {
        try {
            return switch (call) {
                case IO -> ((Io) arg).run();
                case READ -> readAt((ByteBuffer) arg, at);
                case WRITE -> writeAt((ByteBuffer) arg, at);
                case READV -> readAt((Buffers) arg, at);
                case WRITEV -> writeAt((Buffers) arg, at);
                case READ_AT -> {
                    requireSeekable();
                    yield readAt((ByteBuffer) arg, at);
                }
                case WRITE_AT -> {
                    requireSeekable();
                    yield writeAt((ByteBuffer) arg, at);
                }
            };
        } catch (ErrnoException e) {
            throw new IOException(Errno.describe(e.errno()), e);
        }
    }
}
