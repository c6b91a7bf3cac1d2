package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.InterruptedCalls;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.net.ProtocolFamily;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ConnectionPendingException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link SocketChannel} on io_uring: in blocking mode its connect, read and write are io_uring requests
 * (thread-per-connection code on virtual threads parks on them); in non-blocking mode they are non-blocking
 * system calls, and the channel registers with a {@code UringSelector}. {@code SocketChannel.open()} returns one
 * under {@link UringSelectorProvider}; {@link #open(Uring)} opens one on a runtime of the caller's.
 *
 * <p>The JDK contract holds in both modes: reads return -1 at end of stream (0 when nothing is there, in
 * non-blocking mode), blocking writes write everything, a close from another thread ends blocked calls with
 * {@link java.nio.channels.AsynchronousCloseException}, an interrupt closes the channel and throws
 * {@link java.nio.channels.ClosedByInterruptException}, a failed connect closes the channel. The interrupt
 * machinery is the JDK's own ({@code begin}/{@code end}); closing cancels the requests on the descriptor before
 * closing it, and a channel registered with a selector is closed by that selector's next select. Heap buffers
 * are staged through native memory (the kernel needs a stable address); direct buffers are used in place.
 */
public final class UringSocketChannel extends SocketChannel {
    private final EventLoop loop;
    private final int fd;
    /**
     * Every request is a user of the fd until its end, so close never closes the fd under one: the blocking calls
     * from their preparation (a close does not wait for one still waiting for a slot), the send cancel from
     * submission.
     */
    private final FdGuard guard;
    private final SelectorLink link;
    private final ReadWait readWait;
    /**
     * Blocking reads since the last that had to wait (under readLock). One: the bytes came while the reader waited
     * for them (a request, its answer), which the standing poll of {@link ReadWait} serves best. More: they come
     * faster than they are read (a stream); the poll would only wake the loop for arrivals no one waits for, so
     * such a read waits as a RECV request of its own instead (after its try in place).
     */
    private int readsSinceWait;
    /** The in-place try of a stream's read: one that finds nothing is a wait. */
    private final InPlace recvOrForget = (link, memory) -> {
        int n = NonBlockingCalls.recv(link, memory);
        if (n == NonBlockingCalls.WOULD_BLOCK) {
            readsSinceWait = 0;
        }
        return n;
    };
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final HeapStaging staging = new HeapStaging();
    private final int domain;
    private volatile SocketAddress remote;
    /** Where a non-blocking connect in progress goes; null once it has finished. */
    private volatile SocketAddress pending;
    private Socket adaptor;
    private volatile boolean bound;
    private final HalfClose halfClose = new HalfClose();
    /** A read saw the connection reset: every read from now on throws "Connection reset", as the JDK's do. */
    private volatile boolean connectionReset;

    UringSocketChannel(SelectorProvider provider, EventLoop loop, int fd, int domain, SocketAddress remote) {
        super(provider);
        this.loop = loop;
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
        this.link = new SelectorLink(this, guard);
        this.readWait = new ReadWait(loop, guard);
        this.domain = domain;
        this.remote = remote;
        this.bound = remote != null;
    }

    /** A connected socket the process was started with ({@link InheritedChannels}); {@code afterClose} once closed. */
    static UringSocketChannel inherited(SelectorProvider provider, Uring uring, int fd, int domain,
                                        SocketAddress remote, Runnable afterClose) {
        UringSocketChannel channel = new UringSocketChannel(provider, uring.loop(), fd, domain, remote);
        channel.link.afterClose(afterClose);
        return channel;
    }

    /** An unconnected TCP channel on one of {@code uring}'s loops. */
    public static UringSocketChannel open(Uring uring) throws IOException {
        return open(uring, ChannelSockets.IP);
    }

    /** An unconnected channel of {@code family}: INET6 (a dual-stack TCP socket), INET (IPv4) or UNIX. */
    public static UringSocketChannel open(Uring uring, ProtocolFamily family) throws IOException {
        return open(UringSelectorProvider.DEFAULT, uring, family);
    }

    static UringSocketChannel open(SelectorProvider provider, Uring uring, ProtocolFamily family) throws IOException {
        return new UringSocketChannel(provider, uring.loop(), ChannelSockets.open(family),
                ChannelSockets.domain(family), null);
    }

    /** A channel connected to {@code remote}. */
    public static UringSocketChannel open(Uring uring, SocketAddress remote) throws IOException {
        UringSocketChannel ch = open(uring, remote instanceof java.net.UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX : ChannelSockets.IP);
        try {
            ch.connect(remote);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        return ch;
    }

    @Override
    public SocketChannel bind(SocketAddress local) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (bound) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, local, domain);
            bound = true;
        }
        return this;
    }

    @Override
    public boolean connect(SocketAddress remoteAddress) throws IOException {
        return connect(remoteAddress, 0);
    }

    /**
     * {@link #connect(SocketAddress)}, a blocking one bounded by {@code timeoutMillis} when positive (the socket
     * adaptor's timed connect): once it passes, as the JDK's, the channel is closed and SocketTimeoutException
     * "Connect timed out" thrown.
     */
    boolean connect(SocketAddress remoteAddress, int timeoutMillis) throws IOException {
        SocketAddress address = ChannelSockets.peer(Objects.requireNonNull(remoteAddress));
        // The sockaddr (up to 110 bytes for AF_UNIX: more than a request's scratch) is owned by the op, which the
        // request keeps reachable until its CQE; GC-managed, so a cancelled connect cannot outlive it.
        MemorySegment sockaddr = staging.allocate(SocketAddresses.SOCKADDR_UN_SIZE);
        MemorySegment target = sockaddr.asSlice(0, ChannelSockets.sockaddr(address, domain, sockaddr));
        readLock.lock();
        writeLock.lock();
        try {
            ensureOpen();
            if (remote != null) {
                throw new AlreadyConnectedException();
            }
            if (pending != null) {
                throw new ConnectionPendingException();
            }
            if (!isBlocking()) {
                return connected(address, NonBlockingCalls.connect(link, target));
            }
            Op connect = (sqe, scratch) -> sqe.prepConnect(fd, target);
            int result = 0;
            boolean completed = false;
            SocketTimeoutException timedOut = null;
            try {
                begin();
                // a ClosedChannelException is replaced by end(false)
                result = ChannelSockets.call(loop, guard, connect, "connect", timeoutMillis, "Connect timed out");
                completed = true;
            } catch (ErrnoException e) {
                result = -e.errno();
                completed = result != -Errno.ECANCELED;
            } catch (SocketTimeoutException e) {
                timedOut = e;
                completed = true;
            } finally {
                end(completed);
            }
            if (timedOut != null) {
                close();
                throw timedOut;
            }
            if (result < 0) {
                close();                      // as the JDK does: a failed connect closes the channel
                throw NetErrors.of("connect " + address, result);
            }
            remote = address;
            bound = true;
            return true;
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    /**
     * Where a non-blocking connect stands after {@code result}: in progress (false), connected (true), or failed
     * (as the JDK's, the channel is closed; ConnectException for ECONNREFUSED).
     */
    private boolean connected(SocketAddress address, int result) throws IOException {
        if (result == NonBlockingCalls.WOULD_BLOCK) {
            pending = address;
            bound = true;
            return false;
        }
        if (result < 0) {
            close();
            throw NetErrors.of("connect " + address, result);
        }
        remote = address;
        pending = null;
        bound = true;
        return true;
    }

    /** As the JDK's: true once connected; for a connect in progress, false while it is (or, blocking, a wait). */
    @Override
    public boolean finishConnect() throws IOException {
        readLock.lock();
        writeLock.lock();
        try {
            if (isConnected()) {
                return true;
            }
            ensureOpen();
            SocketAddress address = pending;
            if (address == null) {
                throw new NoConnectionPendingException();
            }
            int state = NonBlockingCalls.connectState(link);
            while (state == NonBlockingCalls.WOULD_BLOCK && isBlocking()) {
                io((sqe, scratch) -> sqe.prepPollAdd(fd, OpFlags.Poll.POLLOUT), "poll", null, null);
                state = NonBlockingCalls.connectState(link);
            }
            return connected(address, state);
        } catch (IOException e) {
            close();                    // as the JDK's: a finishConnect that fails closes the channel
            throw e;
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return read(dst, 0);
    }

    /**
     * {@link #read(ByteBuffer)}, a blocking one bounded by {@code timeoutMillis} when positive (the socket adaptor's
     * SO_TIMEOUT): SocketTimeoutException "Read timed out" once it passes with nothing read, the channel still open.
     */
    int read(ByteBuffer dst, int timeoutMillis) throws IOException {
        Objects.requireNonNull(dst);
        readLock.lock();
        try {
            ensureConnected();
            int wanted = dst.remaining();
            if (connectionReset || halfClose.inputShut() || dst.isReadOnly() || wanted == 0) {
                return readNothing(dst.isReadOnly());
            }
            if (isBlocking()) {
                link.inbox.awaitDelivery();
                int got = fromInbox(link.inbox.take(dst));
                if (got != Inbox.ASK_SOCKET) {
                    return got;
                }
                return readSocket(dst, wanted, timeoutMillis);
            }
            synchronized (link.inbox) {         // a receive armed meanwhile would take bytes out of order
                int got = fromInbox(link.inbox.take(dst));
                return got != Inbox.ASK_SOCKET ? got : readSocket(dst, wanted, 0);
            }
        } finally {
            readLock.unlock();
        }
    }

    /**
     * What the inbox answered, as a read's result: bytes (0: nothing yet), -1 at end of stream, a failure
     * thrown, or {@link Inbox#ASK_SOCKET}.
     */
    private int fromInbox(long got) throws IOException {
        if (got >= Inbox.EOF || got == Inbox.ASK_SOCKET) {
            return (int) got;
        }
        throw failure("recv", new ErrnoException("recv", (int) got));
    }

    /** One read from the socket itself (no receive is armed, and the inbox is empty). */
    private int readSocket(ByteBuffer dst, int wanted, int timeoutMillis) throws IOException {
        {
            MemorySegment target = dst.isDirect() ? MemorySegment.ofBuffer(dst) : staging.forRead(wanted);
            int n = receive(target, timeoutMillis);
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return 0;
            }
            if (n == 0) {
                return -1;
            }
            if (dst.isDirect()) {
                dst.position(dst.position() + n);
            } else {
                dst.put(target.asSlice(0, n).asByteBuffer());
            }
            return n;
        }
    }

    /**
     * As the JDK's readv: what is there, up to all the buffers' room, fills them in order. Into one buffer, as
     * {@link #read(ByteBuffer)}; into several, one recv into the staging memory that is then spread over them.
     */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, dsts.length);
        ByteBuffer only = null;
        long room = 0;
        boolean readOnly = false;
        for (int i = offset; i < offset + length; i++) {
            readOnly |= dsts[i].isReadOnly();
            if (dsts[i].hasRemaining()) {
                only = room == 0 ? dsts[i] : null;
                room += dsts[i].remaining();
            }
        }
        readLock.lock();
        try {
            ensureConnected();
            if (connectionReset || halfClose.inputShut() || readOnly || room == 0) {
                return readNothing(readOnly);
            }
            if (only != null) {
                return read(only);
            }
            if (isBlocking()) {
                link.inbox.awaitDelivery();
                int got = fromInbox(link.inbox.take(dsts, offset, length));
                return got != Inbox.ASK_SOCKET ? got : readSocket(dsts, offset, length, room);
            }
            synchronized (link.inbox) {
                int got = fromInbox(link.inbox.take(dsts, offset, length));
                return got != Inbox.ASK_SOCKET ? got : readSocket(dsts, offset, length, room);
            }
        } finally {
            readLock.unlock();
        }
    }

    private long readSocket(ByteBuffer[] dsts, int offset, int length, long room) throws IOException {
        {
            MemorySegment target = staging.forRead(room);
            int n = receive(target, 0);
            if (n == NonBlockingCalls.WOULD_BLOCK) {
                return 0;
            }
            if (n == 0) {
                return -1;
            }
            HeapStaging.scatter(target, n, dsts, offset);
            return n;
        }
    }

    /**
     * A read that reads nothing: "Connection reset" again once a read saw the reset (as the JDK's), -1 once the
     * input is shut down, IllegalArgumentException for a read-only buffer, else 0 (no room). As the JDK's,
     * between begin and end, so that an interrupted thread closes the channel.
     */
    private int readNothing(boolean readOnly) throws IOException {
        interruptCheck();
        if (connectionReset) {
            throw new java.net.SocketException("Connection reset");
        }
        if (halfClose.inputShut()) {
            return -1;
        }
        if (readOnly) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        return 0;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        Objects.requireNonNull(src);
        writeLock.lock();
        try {
            ensureWritable();
            return send(src);
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * As the JDK's writev: the buffers' bytes go out together — gathered into the outbox when a selector sends
     * for the channel, else into the staging memory a chunk at a time, so that what fits in one chunk is one send
     * (a send per buffer could fail halfway, a peer's reset arriving between them, where the JDK's single writev
     * succeeds).
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        writeLock.lock();
        try {
            ensureWritable();
            if (!isBlocking()) {
                int queued = link.outbox.offer(srcs, offset, length);
                if (queued != Outbox.DIRECT) {
                    if (queued < 0) {
                        throw NetErrors.transfer("send", new ErrnoException("send", queued));
                    }
                    return queued;
                }
            }
            long total = 0;
            while (true) {
                ByteBuffer chunk = staging.gather(srcs, offset, length);
                int n;
                try {
                    n = send(chunk);
                } catch (AsynchronousCloseException shut) {
                    if (total > 0 && isOpen()) {
                        return total;               // output shut down meanwhile: what was written stands
                    }
                    throw shut;
                }
                HeapStaging.advance(srcs, offset, n);
                total += n;
                if (n < chunk.limit() || chunk.limit() < HeapStaging.CHUNK) {
                    return total;                   // all written, or the output was shut down meanwhile
                }
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * As the JDK's: a write once the output is shut down fails with AsynchronousCloseException (its
     * ClosedChannelException turned so when the write wrote nothing), even for empty buffers.
     */
    private void ensureWritable() throws IOException {
        ensureConnected();
        if (halfClose.outputShut()) {
            interruptCheck();
            throw new AsynchronousCloseException();
        }
    }

    /**
     * Sends all of {@code src}, unless the output is shut down meanwhile: then, as the JDK's, what was written
     * stands and is returned, and a send that wrote nothing throws AsynchronousCloseException.
     */
    private int send(ByteBuffer src) throws IOException {
        int total = src.remaining();
        if (total == 0) {
            interruptCheck();
            return 0;
        }
        if (isBlocking()) {
            link.outbox.awaitDrained();         // what a selector still sends for the channel goes first
        } else {
            int queued = link.outbox.offer(src);
            if (queued != Outbox.DIRECT) {
                if (queued < 0) {
                    throw NetErrors.transfer("send", new ErrnoException("send", queued));
                }
                return queued;
            }
        }
        while (src.hasRemaining()) {
            MemorySegment from = src.isDirect() ? MemorySegment.ofBuffer(src) : staging.forWrite(src);
            int n;
            try {
                n = transmit(from);
            } catch (IOException e) {
                if (!isOpen() || !halfClose.outputShutDown()) {
                    throw e;
                }
                if (src.remaining() < total) {
                    return total - src.remaining();
                }
                throw (AsynchronousCloseException) new AsynchronousCloseException().initCause(e);
            }
            src.position(src.position() + n);
            if (n < from.byteSize() && !isBlocking()) {
                break;                      // non-blocking: what the socket buffer took
            }
        }
        return total - src.remaining();
    }

    /**
     * One recv: a request in blocking mode (bounded by {@code timeoutMillis} when positive), a system call in
     * non-blocking mode (or WOULD_BLOCK).
     */
    private int receive(MemorySegment into, int timeoutMillis) throws IOException {
        if (isBlocking()) {
            int n = readsSinceWait > 1 && timeoutMillis <= 0
                    ? io(NetOps.recv(fd, into), "recv", recvOrForget, into)
                    : receiveBlocking(into, timeoutMillis);
            readsSinceWait++;
            return n;
        }
        int n = NonBlockingCalls.recv(link, into);
        if (n < 0 && n != NonBlockingCalls.WOULD_BLOCK) {
            throw failure("recv", new ErrnoException("recv", n));
        }
        return n;
    }

    /**
     * A blocking recv: tried in place, as the JDK's first try is, and while the socket has nothing, waited for with
     * its poll ({@link ReadWait}) and tried again. Inside begin/end, so that close and interrupt turn into the JDK's
     * exceptions (a close or an interrupt closes the channel and ends the wait); a positive {@code timeoutMillis}
     * bounds the wait: SocketTimeoutException "Read timed out", the channel still open.
     */
    private int receiveBlocking(MemorySegment into, int timeoutMillis) throws IOException {
        boolean timed = timeoutMillis > 0;
        long deadline = timed ? System.nanoTime() + timeoutMillis * 1_000_000L : 0;
        boolean completed = false;
        try {
            begin();
            while (isOpen()) {
                readWait.consume();
                int n = NonBlockingCalls.recv(link, into);      // ClosedChannelException: replaced by end(false)
                if (n != NonBlockingCalls.WOULD_BLOCK) {
                    completed = true;
                    if (n < 0) {
                        throw failure("recv", new ErrnoException("recv", n));
                    }
                    return n;
                }
                readsSinceWait = 0;
                if (!readWait.await(timed, deadline)) {
                    completed = true;
                    throw new SocketTimeoutException("Read timed out");
                }
            }
            return 0;                   // closed, or interrupted (which closed it): end(false) throws what the JDK's do
        } finally {
            end(completed);
        }
    }

    /** One send: a request in blocking mode (all of it), a system call in non-blocking mode (what fits now). */
    private int transmit(MemorySegment from) throws IOException {
        if (isBlocking()) {
            halfClose.sendStarting();
            try {
                return io(NetOps.send(fd, from), "send", NonBlockingCalls::send, from);
            } finally {
                halfClose.sendEnded();
            }
        }
        int n = NonBlockingCalls.send(link, from);
        if (n == NonBlockingCalls.WOULD_BLOCK) {
            return 0;
        }
        if (n < 0) {
            throw failure("send", new ErrnoException("send", n));
        }
        return n;
    }

    /**
     * Where a blocking call would not reach the socket, as the JDK's: between begin and end all the same, so that
     * an interrupted thread closes the channel. Non-blocking calls do not look at interrupts.
     */
    private void interruptCheck() throws IOException {
        if (isBlocking()) {
            begin();
            end(false);
        }
    }

    /** A recv or send tried in place without waiting ({@link NonBlockingCalls}). */
    @FunctionalInterface
    private interface InPlace {
        int attempt(SelectorLink link, MemorySegment memory) throws ClosedChannelException;
    }

    /**
     * One request inside begin/end, so that close and interrupt turn into the JDK's exceptions. The request is a
     * user of the fd only once prepared: a close or an interrupt does not wait while it waits for a slot, and it
     * then fails with ClosedChannelException, which end(false) replaces. With {@code inPlace}, the call is first
     * tried on this thread without waiting, as the JDK's first try is: a socket that is ready (bytes waiting, room
     * in its buffer) costs one system call instead of a round trip through the loop.
     */
    private int io(Op op, String what, InPlace inPlace, MemorySegment memory) throws IOException {
        boolean completed = false;
        boolean interrupted = false;
        try {
            begin();
            if (!isOpen()) {
                return 0;                               // end(false) throws AsynchronousCloseException
            }
            if (inPlace != null) {
                int now = inPlace.attempt(link, memory);
                if (now != NonBlockingCalls.WOULD_BLOCK) {
                    completed = true;
                    if (now < 0) {
                        throw failure(what, new ErrnoException(what, now));
                    }
                    return now;
                }
            }
            int n = loop.call(op, guard, false);
            completed = true;
            return n;
        } catch (ErrnoException e) {
            if (ChannelSockets.closedUnder(e) && !isOpen()) {
                throw e;                                // replaced by end(false)'s exception
            }
            completed = true;
            throw failure(what, e);
        } catch (java.util.concurrent.RejectedExecutionException runtimeClosed) {
            completed = true;
            throw (ClosedChannelException) new ClosedChannelException().initCause(runtimeClosed);
        } catch (InterruptedIOException e) {
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
     * A failed recv or send as the JDK's SocketChannel reports it: a reset read is SocketException "Connection
     * reset" (and so does every later read); the rest as {@link NetErrors#transfer}.
     */
    private IOException failure(String what, ErrnoException e) {
        connectionReset |= what.equals("recv") && e.errno() == Errno.ECONNRESET;
        return NetErrors.transfer(what, e);
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        ensureConnected();
        halfClose.shutdownInput(fd);
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        ensureConnected();
        link.outbox.awaitDrained();             // the queued bytes go before the FIN, as a socket buffer's do
        halfClose.shutdownOutput(fd, guard, loop);
        return this;
    }

    /** A {@link Socket} that delegates to this channel, as the JDK's adaptor (one per channel). */
    @Override
    public synchronized Socket socket() {
        if (adaptor == null) {
            adaptor = SocketAdaptor.of(this);
        }
        return adaptor;
    }

    /** As the JDK's: connected until closed (a closed channel is not connected, whatever it was). */
    @Override
    public boolean isConnected() {
        return remote != null && isOpen();
    }

    @Override
    public boolean isConnectionPending() {
        return pending != null && isOpen();
    }

    /** As the JDK's: the address being connected to while a connect is in progress. */
    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        SocketAddress connected = remote;
        return connected != null ? connected : pending;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return bound ? ChannelSockets.name(fd, true) : null;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ChannelOptions.set(this, fd, name, value, supportedOptions());
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return ChannelOptions.get(this, fd, name, supportedOptions());
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return unixDomain() ? ChannelOptions.UNIX : ChannelOptions.TCP;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        link.close(loop, remote != null && !unixDomain());
    }

    /** Sets O_NONBLOCK (non-blocking mode's calls are system calls); waits for blocking calls in progress first. */
    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        readLock.lock();
        writeLock.lock();
        try {
            link.blocking(block);
            if (!block) {
                readWait.disarm();          // a selector's receive or poll takes the socket's input over
            }
        } finally {
            writeLock.unlock();
            readLock.unlock();
        }
    }

    SelectorLink link() {
        return link;
    }

    boolean unixDomain() {
        return domain == Sockets.AF_UNIX;
    }

    /** For the adaptor: shut down, or closed (as the JDK's isInputOpen). */
    boolean inputShut() {
        return halfClose.inputShut() || !isOpen();
    }

    boolean outputShut() {
        return halfClose.outputShut() || !isOpen();
    }

    private void ensureOpen() throws ClosedChannelException {
        ChannelSockets.ensureOpen(this);
    }

    private void ensureConnected() throws ClosedChannelException {
        ensureOpen();
        if (remote == null) {
            throw new NotYetConnectedException();
        }
    }

    @Override
    public String toString() {
        return "UringSocketChannel[" + (isOpen() ? "fd " + fd : "closed") + (remote != null ? " remote=" + remote : "") + "]";
    }
}
