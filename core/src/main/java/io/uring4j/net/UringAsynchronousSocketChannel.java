package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.ReadPendingException;
import java.nio.channels.WritePendingException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link AsynchronousSocketChannel} whose connect is one io_uring request on the channel's event loop
 * ({@link AsyncRequest}), and whose reads and writes are tried in place and otherwise one request on the group's
 * ring ({@link AsyncTransfer}, {@link AsyncRingTransfer}, {@link AsyncRing}); completion handlers run on the
 * group's threads ({@link AsyncHandlers}). The JDK's contract and its exceptions, checked by a suite run against both:
 * one read and one write pending at a time ({@link ReadPendingException}, {@link WritePendingException}); a timeout
 * fails the operation with {@link InterruptedByTimeoutException} and refuses further operations of its kind, as
 * does cancelling an operation's future; a failed connect closes the channel; a close fails pending operations
 * with {@link AsynchronousCloseException} and closes the fd once every request naming it has ended.
 */
public final class UringAsynchronousSocketChannel extends AsynchronousSocketChannel {
    private static final Set<SocketOption<?>> OPTIONS = ChannelOptions.ASYNC_TCP;
    private static final int UNCONNECTED = 0;
    private static final int PENDING = 1;
    private static final int CONNECTED = 2;

    private final UringAsynchronousChannelGroup group;
    private final EventLoop loop;
    private final int fd;
    private final FdGuard guard;
    /** The group's ring this channel's reads and writes go to. */
    private final int ringIndex;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AsyncTransfer reader;
    private final AsyncTransfer writer;
    /** Writes made on the ring's poller, sent with its next enter. */
    private final AsyncOutbox outbox;
    /** The read and the write on the group's ring, if any: a close with sends still going cancels them alone. */
    private volatile AsyncRingTransfer<?, ?> readOnRing;
    private volatile AsyncRingTransfer<?, ?> writeOnRing;

    private final Object stateLock = new Object();
    private int state;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;

    private final Object readLock = new Object();
    private boolean reading;
    private boolean readKilled;
    private boolean readShutdown;

    private final Object writeLock = new Object();
    private boolean writing;
    private boolean writeKilled;
    private boolean writeShutdown;

    /** A new unconnected TCP channel (dual-stack where IPv6 is available, as the JDK's) in {@code group}. */
    UringAsynchronousSocketChannel(UringAsynchronousChannelGroup group) throws IOException {
        this(group, ChannelSockets.open(ChannelSockets.IP), null);
    }

    /** A channel on {@code fd}: connected to {@code remote} (an accepted connection), or not yet ({@code null}). */
    UringAsynchronousSocketChannel(UringAsynchronousChannelGroup group, int fd, InetSocketAddress remote)
            throws IOException {
        super(group.provider());
        this.group = group;
        this.loop = group.nextLoop();
        this.ringIndex = group.nextRing();
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
        this.reader = new AsyncTransfer(fd, true);
        this.writer = new AsyncTransfer(fd, false);
        this.outbox = new AsyncOutbox(fd, guard);
        try {
            group.register(this);
            if (remote != null) {
                this.local = (InetSocketAddress) ChannelSockets.name(fd, true);
                this.remote = remote;
                this.state = CONNECTED;
            }
        } catch (IOException | RuntimeException e) {
            group.unregister(this);
            LibC.close(fd);
            throw e;
        }
    }

    // ---- addresses and options ---------------------------------------------------------------------------

    @Override
    public AsynchronousSocketChannel bind(SocketAddress address) throws IOException {
        ensureOpen();
        synchronized (stateLock) {
            if (state == PENDING) {
                throw new ConnectionPendingException();
            }
            if (local != null) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, address, ChannelSockets.IP_DOMAIN);
            local = (InetSocketAddress) ChannelSockets.name(fd, true);
        }
        return this;
    }

    @Override
    public <T> AsynchronousSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        Objects.requireNonNull(name);
        if (OPTIONS.contains(name) && value != null && !name.type().isInstance(value)) {
            throw new IllegalArgumentException("Invalid value '" + value + "'");
        }
        if (OPTIONS.contains(name) && isOpen() && writeShutdown()) {
            throw new IOException("Connection has been shutdown for writing");     // as the JDK's
        }
        ChannelOptions.set(this, fd, name, value, OPTIONS);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        Objects.requireNonNull(name);
        return ChannelOptions.get(this, fd, name, OPTIONS);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return OPTIONS;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return remote;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return local;
    }

    // ---- connect -----------------------------------------------------------------------------------------

    @Override
    public Future<Void> connect(SocketAddress remote) {
        return startConnect(remote, null, null);
    }

    @Override
    public <A> void connect(SocketAddress remote, A attachment, CompletionHandler<Void, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        startConnect(remote, attachment, handler);
    }

    private <A> Future<Void> startConnect(SocketAddress address, A attachment, CompletionHandler<Void, ? super A> handler) {
        if (!isOpen()) {
            return immediate(null, new ClosedChannelException(), attachment, handler);
        }
        InetSocketAddress peer = (InetSocketAddress) ChannelSockets.peer(
                ChannelSockets.check(Objects.requireNonNull(address), ChannelSockets.IP_DOMAIN));
        synchronized (stateLock) {
            if (state == CONNECTED) {
                throw new AlreadyConnectedException();
            }
            if (state == PENDING) {
                throw new ConnectionPendingException();
            }
            state = PENDING;
        }
        Op connect = (sqe, scratch) -> sqe.prepConnect(fd, scratch.asSlice(0, ChannelSockets.sockaddr(peer,
                ChannelSockets.IP_DOMAIN, scratch)));
        group.operationStarted();
        CompletableFuture<Integer> request = AsyncRequest.start(loop, guard, connect, 0, "connect");
        AsyncRequest.Pending<Void> future = handler != null ? null
                : new AsyncRequest.Pending<>(() -> { }, () -> request.cancel(false), this, null);
        request.whenComplete((result, failure) -> {
            if (AsyncRequest.cancelled(failure)) {
                group.operationEnded();
                return;
            }
            Throwable exc = failure == null ? connected(peer) : connectFailure(peer, failure);
            if (exc != null) {
                try {
                    close();                    // as the JDK's: a connect that failed closes the channel
                } catch (IOException e) {
                    exc.addSuppressed(e);
                }
            }
            deliver(future, attachment, handler, null, exc);
        });
        return future;
    }

    private Throwable connected(InetSocketAddress peer) {
        synchronized (stateLock) {
            state = CONNECTED;
            remote = peer;
            try {
                local = (InetSocketAddress) ChannelSockets.name(fd, true);
            } catch (IOException e) {
                return e;
            }
        }
        return null;
    }

    private Throwable connectFailure(InetSocketAddress peer, Throwable failure) {
        Throwable f = AsyncRequest.unwrap(failure);
        if (isOpen() && f instanceof ErrnoException e) {
            return NetErrors.of("connect " + peer, -e.errno());
        }
        return AsyncRequest.failure(f, isOpen(), false);
    }

    // ---- reads -------------------------------------------------------------------------------------------

    @Override
    public Future<Integer> read(ByteBuffer dst) {
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        return transfer(true, false, new ByteBuffer[] {dst}, 0, 1, 0, TimeUnit.MILLISECONDS, null, null);
    }

    @Override
    public <A> void read(ByteBuffer dst, long timeout, TimeUnit unit, A attachment,
                         CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        transfer(true, false, new ByteBuffer[] {dst}, 0, 1, timeout, unit, attachment, handler);
    }

    @Override
    public <A> void read(ByteBuffer[] dsts, int offset, int length, long timeout, TimeUnit unit, A attachment,
                         CompletionHandler<Long, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        Objects.checkFromIndexSize(offset, length, dsts.length);
        for (int i = offset; i < offset + length; i++) {
            if (dsts[i].isReadOnly()) {
                throw new IllegalArgumentException("Read-only buffer");
            }
        }
        transfer(true, true, dsts, offset, length, timeout, unit, attachment, handler);
    }

    // ---- writes ------------------------------------------------------------------------------------------

    @Override
    public Future<Integer> write(ByteBuffer src) {
        return transfer(false, false, new ByteBuffer[] {Objects.requireNonNull(src)}, 0, 1, 0,
                TimeUnit.MILLISECONDS, null, null);
    }

    @Override
    public <A> void write(ByteBuffer src, long timeout, TimeUnit unit, A attachment,
                          CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        transfer(false, false, new ByteBuffer[] {Objects.requireNonNull(src)}, 0, 1, timeout, unit, attachment, handler);
    }

    @Override
    public <A> void write(ByteBuffer[] srcs, int offset, int length, long timeout, TimeUnit unit, A attachment,
                          CompletionHandler<Long, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        Objects.checkFromIndexSize(offset, length, srcs.length);
        transfer(false, true, srcs, offset, length, timeout, unit, attachment, handler);
    }

    /**
     * A read or write as the JDK's {@code AsynchronousSocketChannelImpl} starts one: a closed channel fails, an
     * unconnected one throws, the pending and killed states are checked and set under the direction's lock, and
     * an operation with nothing to do (no room, nothing to write, input shut down) completes at once.
     */
    private <V extends Number, A> Future<V> transfer(boolean read, boolean vectored, ByteBuffer[] buffers,
                                                     int offset, int length, long timeout, TimeUnit unit,
                                                     A attachment, CompletionHandler<V, ? super A> handler) {
        boolean open = isOpen();
        if (!open && read) {
            return immediate(null, new ClosedChannelException(), attachment, handler);
        }
        if (open && remote == null) {
            throw new NotYetConnectedException();
        }
        long timeoutNanos = timeout > 0 ? unit.toNanos(timeout) : 0;
        boolean hasWork = vectored || buffers[offset].hasRemaining();
        boolean shut = !open;
        boolean closedMeanwhile = false;
        synchronized (read ? readLock : writeLock) {
            if (open) {
                if (read ? readKilled : writeKilled) {
                    throw new IllegalStateException((read ? "Reading" : "Writing")
                            + " not allowed due to timeout or cancellation");
                }
                if (read ? reading : writing) {
                    throw read ? new ReadPendingException() : new WritePendingException();
                }
                shut = read ? readShutdown : writeShutdown;
                // Checked again under the lock close takes to see what is pending: either close sees this
                // operation, and cancels it, or it sees the close.
                closedMeanwhile = !isOpen();
                if (!shut && hasWork && !closedMeanwhile) {
                    setPending(read, true);
                }
            }
        }
        if (closedMeanwhile) {
            return immediate(null, new ClosedChannelException(), attachment, handler);
        }
        if (shut && !read) {
            return immediate(null, new ClosedChannelException(), attachment, handler);
        }
        boolean waitForOutbox = false;
        if (!read && hasWork && !shut) {
            int taken = offerToOutbox(buffers, offset, length);
            if (taken != AsyncOutbox.DIRECT && taken != AsyncOutbox.WAIT) {
                setPending(false, false);
                return taken >= 0 ? immediate(AsyncTransfer.count(vectored, taken), null, attachment, handler)
                        : immediate(null, AsyncRequest.failure(new ErrnoException("send", taken), isOpen(), false),
                                attachment, handler);
            }
            waitForOutbox = taken == AsyncOutbox.WAIT;
        }
        AsyncTransfer transfer = read ? reader : writer;
        long asked;
        try {
            asked = shut || !hasWork ? 0 : transfer.stage(buffers, offset, length);
        } catch (RuntimeException e) {          // a null buffer in the array, say: nothing was started
            setPending(read, false);
            throw e;
        }
        if (asked == 0) {
            if (hasWork && !shut) {
                setPending(read, false);
            }
            return immediate(AsyncTransfer.count(vectored, shut ? -1 : 0), null, attachment, handler);
        }
        // On the poller a read is queued, not tried: the poller's next enter submits it with the rest of the batch
        // (the kernel tries it at once there), which costs no system call of its own whether data is there or not.
        // A write behind the outbox's bytes is not tried either: it would overtake them.
        int now = read && group.onPoller(ringIndex) || waitForOutbox ? AsyncTransfer.WOULD_BLOCK
                : transfer.attempt(guard);
        if (now != AsyncTransfer.WOULD_BLOCK) {
            return completedInPlace(read, vectored, transfer, now, attachment, handler);
        }
        AsyncRing ring;
        try {
            ring = group.ring(ringIndex);
        } catch (IOException e) {
            transfer.release();
            setPending(read, false);
            return immediate(null, e, attachment, handler);
        }
        group.operationStarted();
        AsyncRingTransfer<V, A> op = new AsyncRingTransfer<>(this, read, vectored, transfer, ring, timeoutNanos,
                attachment, handler);
        op.future = handler != null ? null : new AsyncRequest.Pending<>(() -> kill(read), op::cancel, this, group);
        if (read) {
            readOnRing = op;
        } else {
            writeOnRing = op;
        }
        if (!waitForOutbox || !op.awaitOutbox()) {
            op.submit();
        }
        return op.future;
    }

    /** A write's turn at the outbox ({@link AsyncOutbox#offer}); nothing is taken from a null buffer. */
    private int offerToOutbox(ByteBuffer[] buffers, int offset, int length) {
        long total = 0;
        try {
            for (int i = offset; i < offset + length; i++) {
                total += buffers[i].remaining();
            }
        } catch (RuntimeException e) {
            setPending(false, false);
            throw e;
        }
        return total == 0 ? AsyncOutbox.DIRECT : outbox.offer(buffers, offset, length, total, group.polling(ringIndex));
    }

    // ---- for the requests on the ring (AsyncRingTransfer) -----------------------------------------------

    FdGuard guard() {
        return guard;
    }

    AsyncOutbox outbox() {
        return outbox;
    }

    UringAsynchronousChannelGroup group() {
        return group;
    }

    /** A request of this channel's on the ring has completed: a close has nothing of it left to cancel. */
    void leftRing(boolean read) {
        if (read) {
            readOnRing = null;
        } else {
            writeOnRing = null;
        }
    }

    /** An operation on the ring is over: another may start, unless it timed out (then none may, as the JDK's). */
    void ended(boolean read, boolean timedOut) {
        synchronized (read ? readLock : writeLock) {
            setPending(read, false);
            if (timedOut) {
                kill(read);
            }
        }
    }

    /**
     * An operation the socket was ready for ({@link AsyncTransfer#attempt}): over before it is returned, so the
     * handler runs as for any outcome known at the start — here if this thread may, else on the executor.
     */
    private <V extends Number, A> Future<V> completedInPlace(boolean read, boolean vectored, AsyncTransfer transfer,
                                                            int n, A attachment,
                                                            CompletionHandler<V, ? super A> handler) {
        V value = null;
        Throwable exc = null;
        if (n >= 0) {
            transfer.finish(n);
            value = AsyncTransfer.count(vectored, read && n == 0 ? -1 : n);
        } else {
            transfer.release();
            exc = AsyncRequest.failure(new ErrnoException(read ? "recv" : "send", n), isOpen(), read);
        }
        setPending(read, false);
        return immediate(value, exc, attachment, handler);
    }

    private void setPending(boolean read, boolean pending) {
        synchronized (read ? readLock : writeLock) {
            if (read) {
                reading = pending;
            } else {
                writing = pending;
            }
        }
    }

    /** After a timeout or a cancelled future: no more operations of this kind, as the JDK's. */
    private void kill(boolean read) {
        synchronized (read ? readLock : writeLock) {
            if (read) {
                readKilled = true;
            } else {
                writeKilled = true;
            }
        }
    }

    // ---- outcomes ----------------------------------------------------------------------------------------

    /** An outcome known at the start: a completed future, or the handler run as the JDK's Invoker would. */
    private <V, A> Future<V> immediate(V value, Throwable failure, A attachment, CompletionHandler<V, ? super A> handler) {
        if (handler == null) {
            return failure == null ? CompletableFuture.completedFuture(value) : CompletableFuture.failedFuture(failure);
        }
        group.handlers().invoke(handler, attachment, value, failure);
        return null;
    }

    /** A request's outcome, on the loop: to the executor for a handler, else to the future. */
    private <V, A> void deliver(AsyncRequest.Pending<V> future, A attachment, CompletionHandler<V, ? super A> handler,
                                V value, Throwable failure) {
        try {
            if (handler != null) {
                group.handlers().dispatch(handler, attachment, value, failure);
            } else if (failure == null) {
                future.complete(value);
            } else {
                future.completeExceptionally(failure);
            }
        } finally {
            group.operationEnded();
        }
    }

    // ---- shutdown and close ------------------------------------------------------------------------------

    @Override
    public AsynchronousSocketChannel shutdownInput() throws IOException {
        ensureOpen();
        if (remote == null) {
            throw new NotYetConnectedException();
        }
        synchronized (readLock) {
            if (!readShutdown) {
                shutdown(Sockets.SHUT_RD);
                readShutdown = true;
            }
        }
        return this;
    }

    @Override
    public AsynchronousSocketChannel shutdownOutput() throws IOException {
        ensureOpen();
        if (remote == null) {
            throw new NotYetConnectedException();
        }
        synchronized (writeLock) {
            if (!writeShutdown) {
                int queued = outbox.shutdownWhenDrained();     // the bytes the outbox took go before the FIN
                if (queued < 0) {
                    throw NetErrors.transfer("send", new ErrnoException("send", queued));
                }
                if (queued == 0) {
                    guard.acquire();                // not a number a close meanwhile may have given away
                    try {
                        shutdown(Sockets.SHUT_WR);
                    } finally {
                        guard.release();
                    }
                }
                writeShutdown = true;
            }
        }
        return this;
    }

    private boolean writeShutdown() {
        synchronized (writeLock) {
            return writeShutdown;
        }
    }

    /** As the JDK's: a connection the peer reset has nothing to shut down (ENOTCONN is not an error). */
    private void shutdown(int how) throws IOException {
        int ret = Sockets.shutdown(fd, how);
        if (ret < 0 && ret != -Errno.ENOTCONN) {
            throw NetErrors.of("shutdown", ret);
        }
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }

    /**
     * Closes the channel: pending operations fail with {@link AsynchronousCloseException} (their requests are
     * cancelled), and the fd is closed once the last request naming it has ended. Waits for that, except on a
     * loop thread.
     */
    @Override
    public void close() throws IOException {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        try {
            boolean pending;
            synchronized (readLock) {
                synchronized (writeLock) {
                    pending = reading || writing;
                }
            }
            // What the outbox took still goes out, as a socket's buffer does after close: its send keeps a use of
            // the fd, so the fd closes after it, and the pending read and write are cancelled one by one instead.
            boolean sending = outbox.lingerOnClose();
            // A read or write on the group's ring is cancelled there; the cancel names the fd, so it holds a use
            // of it, taken before the guard closes.
            AsyncRing onRing = pending && !sending ? group.ring(ringIndex) : null;
            if (onRing != null) {
                try {
                    guard.acquire();
                } catch (ClosedChannelException alreadyClosing) {
                    onRing = null;
                }
            }
            CompletableFuture<Void> closed = guard.close();
            if (onRing != null) {
                onRing.cancelAll(guard);
            }
            if (sending) {
                cancelOnRing(readOnRing);
                cancelOnRing(writeOnRing);
            }
            // Not on the threads that reap the cancelled requests, which would wait for themselves — nor on another
            // ring's poller, which could be waiting for this one's thread as it closes a channel of its own; nor
            // for sends to a peer that may not be reading.
            if (!loop.inLoop() && !sending && (onRing == null || !group.onAnyPoller())) {
                ChannelSockets.await(closed, loop);
            }
        } finally {
            group.unregister(this);
        }
    }

    /** A close's cancel of {@code op}: a write waiting in the outbox goes to the ring, which fails it (closing). */
    private static void cancelOnRing(AsyncRingTransfer<?, ?> op) {
        if (op != null) {
            op.closing();
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        ChannelSockets.ensureOpen(this);
    }

    @Override
    public String toString() {
        return "UringAsynchronousSocketChannel[" + (isOpen() ? "fd " + fd : "closed")
                + (local != null ? " local=" + local : "") + (remote != null ? " remote=" + remote : "") + "]";
    }
}
