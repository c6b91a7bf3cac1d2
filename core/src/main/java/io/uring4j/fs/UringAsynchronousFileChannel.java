package io.uring4j.fs;

import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/**
 * An {@link AsynchronousFileChannel} whose reads and writes are io_uring requests in flight — not tasks blocking
 * pool threads, as in the JDK's implementation — with the JDK's contract: the same argument checks, results
 * (-1 at end of file), and exceptions ({@link ClosedChannelException} through the future or handler for a closed
 * channel; {@link java.nio.channels.AsynchronousCloseException} for operations a close cancels).
 *
 * <ul>
 *   <li>The returned futures complete on an event loop thread; cancelling one cancels the request.</li>
 *   <li>{@link CompletionHandler}s run on the executor given at open, by default on a new virtual thread each —
 *       never on the event loop, so a handler may block.</li>
 *   <li>A read started by a handler is made on the handler's thread, with {@link UringFileChannel}'s routes (a
 *       page-cache read without blocking, virtual threads' O_DIRECT reads batched on their carrier), and so is a
 *       write, with the same routes (a virtual thread's O_DIRECT write is a pwrite there while it is the file's
 *       only one); its own handler is then called there, up to {@value #MAX_HANDLERS_ON_STACK} deep, as the JDK
 *       invokes a handler directly on a pool thread that started the operation. A chain of operations then costs
 *       no hand-over to an event loop and a new handler thread per step, and many chains copy on every CPU, not
 *       on one loop's. Operations started elsewhere go to the ring.</li>
 *   <li>Heap buffers are read into and written from native memory (pooled up to 64 KiB), copied at
 *       completion; direct buffers go to the kernel as they are. Either must not be touched until the
 *       operation completes, as with the JDK.</li>
 *   <li>{@link #lock} and {@link #tryLock} go to a JDK channel on the same open file, as in
 *       {@link UringFileChannel}.</li>
 * </ul>
 */
public final class UringAsynchronousFileChannel extends AsynchronousFileChannel {
    private static final ExecutorService DEFAULT_HANDLERS =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("uring4j-file-handler-", 0).factory());
    /** The JDK's default bound on handlers called directly, one inside the other (maxCompletionHandlersOnStack). */
    private static final int MAX_HANDLERS_ON_STACK = 16;
    /** Bound while a handler of these channels runs: how many are on the thread's stack. */
    private static final ScopedValue<Integer> HANDLERS_ON_STACK = ScopedValue.newInstance();

    private final AsyncFile file;
    private final boolean readable;
    private final boolean writable;
    /** The executor given at open, or null: handlers then run on virtual threads, the lock delegate on the JDK's pool. */
    private final ExecutorService executor;
    private final JdkDelegate<AsynchronousFileChannel> delegate;

    private UringAsynchronousFileChannel(AsyncFile file, OpenOptions options, ExecutorService executor) {
        this.file = file;
        this.readable = options.read();
        this.writable = options.write();
        this.delegate = new JdkDelegate<>(file, readable, writable);
        this.executor = executor;
    }

    /** As {@link AsynchronousFileChannel#open(Path, OpenOption...)}, on the shared runtime. */
    public static UringAsynchronousFileChannel open(Path path, OpenOption... options) throws IOException {
        return open(UringFiles.shared(), path, UringFileChannel.toSet(options), null);
    }

    /** As {@link AsynchronousFileChannel#open(Path, Set, ExecutorService, FileAttribute[])}, on the shared runtime. */
    public static UringAsynchronousFileChannel open(Path path, Set<? extends OpenOption> options,
                                                    ExecutorService executor, FileAttribute<?>... attrs)
            throws IOException {
        return open(UringFiles.shared(), path, options, executor, attrs);
    }

    /** As {@link AsynchronousFileChannel#open(Path, OpenOption...)}, on {@code uring}. */
    public static UringAsynchronousFileChannel open(Uring uring, Path path, OpenOption... options) throws IOException {
        return open(UringFiles.of(uring), path, UringFileChannel.toSet(options), null);
    }

    /** As {@link AsynchronousFileChannel#open(Path, Set, ExecutorService, FileAttribute[])}, on {@code uring}. */
    public static UringAsynchronousFileChannel open(Uring uring, Path path, Set<? extends OpenOption> options,
                                                    ExecutorService executor, FileAttribute<?>... attrs)
            throws IOException {
        return open(UringFiles.of(uring), path, options, executor, attrs);
    }

    static UringAsynchronousFileChannel open(UringFiles files, Path path, Set<? extends OpenOption> options,
                                                     ExecutorService executor, FileAttribute<?>... attrs)
            throws IOException {
        Objects.requireNonNull(path, "path");
        OpenOptions o = OpenOptions.parse(options).forAsynchronousChannel();
        AsyncFile file = o.open(files, path, OpenOptions.mode(attrs));
        file.uninterruptible();     // the JDK's size, force and truncate complete whatever the interrupt status
        return new UringAsynchronousFileChannel(file, o, executor);
    }

    // ---- reads and writes ----------------------------------------------------------------------------------

    @Override
    public Future<Integer> read(ByteBuffer dst, long position) {
        return startRead(dst, position);
    }

    @Override
    public <A> void read(ByteBuffer dst, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        if (!checkRead(dst, position) || !onHandlersThread()) {
            deliver(startRead(dst, position), attachment, handler);
            return;
        }
        runHere(() -> BufferCalls.read(file, dst, position, shadowAlignment()), attachment, handler);
    }

    @Override
    public Future<Integer> write(ByteBuffer src, long position) {
        return startWrite(src, position);
    }

    @Override
    public <A> void write(ByteBuffer src, long position, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        if (!checkWrite(src, position) || !file.mayWriteInPlace() || !onHandlersThread()) {
            deliver(startWrite(src, position), attachment, handler);
            return;
        }
        runHere(() -> BufferCalls.write(file, src, position, shadowAlignment()), attachment, handler);
    }

    /**
     * The JDK's argument checks of a read, thrown; then whether the read goes to the file at all (false: it
     * completes at once, {@link #startRead} says how).
     */
    private boolean checkRead(ByteBuffer dst, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (!readable) {
            throw new NonReadableChannelException();
        }
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        return isOpen() && dst.hasRemaining() && file.isSeekable();
    }

    /** As {@link #checkRead}, for a write. */
    private boolean checkWrite(ByteBuffer src, long position) {
        if (position < 0) {
            throw new IllegalArgumentException("Negative position");
        }
        if (!writable) {
            throw new NonWritableChannelException();
        }
        return isOpen() && src.hasRemaining() && file.isSeekable();
    }

    /** What a read or write that does not go to the file completes with. */
    private CompletableFuture<Integer> withoutIo(ByteBuffer buffer) {
        if (!isOpen()) {
            return CompletableFuture.failedFuture(new ClosedChannelException());
        }
        if (!buffer.hasRemaining()) {
            return CompletableFuture.completedFuture(0);
        }
        return CompletableFuture.failedFuture(illegalSeek());
    }

    private CompletableFuture<Integer> startRead(ByteBuffer dst, long position) {
        if (!checkRead(dst, position)) {
            return withoutIo(dst);
        }
        if (dst.isDirect()) {
            return file.submit(Op.read(file.fd(), MemorySegment.ofBuffer(dst), position),
                    new BufferOutcome(dst, null, true));
        }
        TempBuffers.Lease lease = TempBuffers.lease(dst.remaining(), shadowAlignment());
        return file.submit(Op.read(file.fd(), lease.segment(), position), new BufferOutcome(dst, lease, true));
    }

    private CompletableFuture<Integer> startWrite(ByteBuffer src, long position) {
        if (!checkWrite(src, position)) {
            return withoutIo(src);
        }
        if (src.isDirect()) {
            return file.submit(Op.write(file.fd(), MemorySegment.ofBuffer(src), position),
                    new BufferOutcome(src, null, false));
        }
        TempBuffers.Lease lease = TempBuffers.lease(src.remaining(), shadowAlignment());
        lease.segment().copyFrom(MemorySegment.ofBuffer(src));
        return file.submit(Op.write(file.fd(), lease.segment(), position), new BufferOutcome(src, lease, false));
    }

    /**
     * Whether a read or write goes on here: on the thread of a handler not too deep in others. Other operations of
     * the channel may be in flight; each handler's thread then makes its own, as the JDK's pool threads do.
     */
    private boolean onHandlersThread() {
        return HANDLERS_ON_STACK.orElse(MAX_HANDLERS_ON_STACK) < MAX_HANDLERS_ON_STACK;
    }

    /** The alignment of a heap buffer's native stand-in: what O_DIRECT asks of memory, else 8. */
    private long shadowAlignment() {
        return file.isDirect() ? Math.max(file.directAlignment(), file.directMemoryAlignment()) : 8;
    }

    /** Makes an operation on this, a handler's, thread ({@link #onHandlersThread}), then calls its handler here. */
    private <A> void runHere(Io io, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Integer n = null;
        Throwable failure = null;
        try {
            n = (int) io.run();
        } catch (IOException | RuntimeException e) {
            failure = ioError(e);
        }
        callHere(n, failure, attachment, handler);
    }

    /**
     * The completion of one read or write, on the loop thread: moves the buffer's position (copying a read into a
     * heap buffer first), reports end of file as -1, and gives the native stand-in back once the kernel is done.
     */
    private record BufferOutcome(ByteBuffer buffer, TempBuffers.Lease lease,
                                 boolean read) implements FileRequest.Outcome<Integer> {
        @Override
        public Integer value(int n) {
            if (read && n == 0) {
                return -1;
            }
            if (read && lease != null) {
                MemorySegment.copy(lease.segment(), 0, MemorySegment.ofBuffer(buffer), 0, n);
            }
            buffer.position(buffer.position() + n);
            return n;
        }

        @Override
        public Throwable error(Throwable failure) {
            return ioError(failure);
        }

        @Override
        public void done(Throwable failure) {
            if (lease != null) {
                lease.releaseAfter(failure);
            }
        }
    }

    /** As the JDK's pread/pwrite on a pipe, socket or terminal, where io_uring would take the offset and go on. */
    private static IOException illegalSeek() {
        return new IOException(Errno.describe(Errno.ESPIPE), new ErrnoException("pread", Errno.ESPIPE));
    }

    /** Kernel errors as the JDK reports them: an IOException with the strerror text (the errno is its cause). */
    private static Throwable ioError(Throwable failure) {
        return failure instanceof ErrnoException e ? new IOException(Errno.describe(e.errno()), e) : failure;
    }

    /** Runs the handler on the channel's executor once {@code f} completes (never on the event loop). */
    private <V, A> void deliver(CompletableFuture<V> f, A attachment, CompletionHandler<V, ? super A> handler) {
        ExecutorService handlers = executor != null ? executor : DEFAULT_HANDLERS;
        f.whenComplete((value, failure) -> {
            Runnable call = failure == null ? () -> handler.completed(value, attachment)
                    : () -> handler.failed(FileErrors.unwrap(failure), attachment);
            try {
                handlers.execute(() -> callAsHandler(call));
            } catch (RejectedExecutionException shutDown) {
                call.run();
            }
        });
    }

    /**
     * Runs a handler as one of the channel's, whose operations may be made on its thread — unless that thread is
     * an event loop's (an executor that runs tasks where they are given), which must never wait for a request.
     */
    private void callAsHandler(Runnable call) {
        if (file.runtime().inLoop()) {
            call.run();
        } else {
            ScopedValue.where(HANDLERS_ON_STACK, 1).run(call);
        }
    }

    /**
     * Calls the handler of an operation made on this (a handler's) thread, one deeper. What it throws goes where
     * it would from the executor's thread, to the thread's uncaught-exception handler, not into the handler that
     * started the operation.
     */
    private static <V, A> void callHere(V value, Throwable failure, A attachment,
                                        CompletionHandler<V, ? super A> handler) {
        try {
            ScopedValue.where(HANDLERS_ON_STACK, HANDLERS_ON_STACK.get() + 1).run(failure == null
                    ? () -> handler.completed(value, attachment)
                    : () -> handler.failed(failure, attachment));
        } catch (Throwable t) {
            Thread current = Thread.currentThread();
            current.getUncaughtExceptionHandler().uncaughtException(current, t);
        }
    }

    // ---- size, truncate, force -----------------------------------------------------------------------------------

    @Override
    public long size() throws IOException {
        return blocking(file::size);
    }

    @Override
    public AsynchronousFileChannel truncate(long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("Negative size");
        }
        if (!writable) {
            throw new NonWritableChannelException();
        }
        if (!isOpen()) {
            // The JDK's truncate reports a closed channel so: its end(false) turns ClosedChannelException into this.
            throw new AsynchronousCloseException();
        }
        blocking(() -> {
            if (size < file.size()) {
                file.call(FileOps.ftruncate(file.fd(), size));
            }
            return 0;
        });
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        blocking(() -> {
            file.sync(!metaData);
            return 0;
        });
    }

    @FunctionalInterface
    private interface Io {
        long run() throws IOException;
    }

    private static long blocking(Io io) throws IOException {
        try {
            return io.run();
        } catch (ErrnoException e) {
            throw new IOException(Errno.describe(e.errno()), e);
        }
    }

    // ---- locks: the JDK's --------------------------------------------------------------------------------------

    @Override
    public Future<FileLock> lock(long position, long size, boolean shared) {
        checkLockable(shared);
        AsynchronousFileChannel jdk;
        try {
            jdk = delegate();
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<FileLock> result = new CompletableFuture<>();
        jdk.lock(position, size, shared, null, new CompletionHandler<FileLock, Void>() {
            @Override
            public void completed(FileLock lock, Void unused) {
                result.complete(new UringFileLock(UringAsynchronousFileChannel.this, lock));
            }

            @Override
            public void failed(Throwable failure, Void unused) {
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    @Override
    public <A> void lock(long position, long size, boolean shared, A attachment,
                         CompletionHandler<FileLock, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        deliver((CompletableFuture<FileLock>) lock(position, size, shared), attachment, handler);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        checkLockable(shared);
        FileLock lock = delegate().tryLock(position, size, shared);
        return lock == null ? null : new UringFileLock(this, lock);
    }

    private void checkLockable(boolean shared) {
        if (shared && !readable) {
            throw new NonReadableChannelException();
        }
        if (!shared && !writable) {
            throw new NonWritableChannelException();
        }
    }

    /** The JDK channel for locks, opened on first use on the same open file (see {@link UringFileChannel}). */
    private AsynchronousFileChannel delegate() throws IOException {
        return delegate.get(options ->
                PlatformFiles.provider().newAsynchronousFileChannel(file.reopenPath(), options, executor));
    }

    // ---- close ---------------------------------------------------------------------------------------------------

    @Override
    public boolean isOpen() {
        return file.isOpen();
    }

    /** Closes the lock delegate, cancels operations in flight (they fail with AsynchronousCloseException) and the fd. */
    @Override
    public void close() throws IOException {
        delegate.closeWithFile();
    }
}
