package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.Opcode;
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
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ProtocolFamily;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NoConnectionPendingException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A blocking {@link SocketChannel} whose connect, read and write are io_uring requests: thread-per-connection
 * code on virtual threads runs on io_uring by opening its channels with {@link #open(Uring)} instead of
 * {@code SocketChannel.open()}.
 *
 * <p>The JDK contract holds for blocking use: reads return -1 at end of stream, writes write everything, a close
 * from another thread ends blocked calls with {@link java.nio.channels.AsynchronousCloseException}, an interrupt
 * closes the channel and throws {@link java.nio.channels.ClosedByInterruptException}, a failed connect closes the
 * channel. The interrupt machinery is the JDK's own ({@code begin}/{@code end}); closing cancels the requests on
 * the descriptor before closing it.
 *
 * <p>Not supported, with {@link UnsupportedOperationException}: non-blocking mode and selectors (use the loop
 * style, {@link Tcp}, for event-driven I/O) and the {@link #socket()} adaptor. Heap buffers are staged through
 * native memory (the kernel needs a stable address); direct buffers are used in place.
 */
public final class UringSocketChannel extends SocketChannel {
    private static final int STAGING = 64 * 1024;

    private final EventLoop loop;
    private final int fd;
    /**
     * Every request is a user of the fd until its end, so close never closes the fd under one: the blocking calls
     * from their preparation (a close does not wait for one still waiting for a slot), the send cancel from
     * submission.
     */
    private final FdGuard guard;
    private final ReentrantLock readLock = new ReentrantLock();
    private final ReentrantLock writeLock = new ReentrantLock();
    /**
     * Staging for heap buffers. GC-managed on purpose: a request cancelled by close may complete after close
     * returns, and the request keeps its op — and so this memory — reachable until then.
     */
    private final Arena staging = Arena.ofAuto();
    private MemorySegment readStaging;
    private MemorySegment writeStaging;
    private final boolean unix;
    private volatile SocketAddress remote;
    private volatile boolean bound;
    private volatile boolean inputShut;
    private volatile boolean outputShut;
    /** A read saw the connection reset: every read from now on throws "Connection reset", as the JDK's do. */
    private volatile boolean connectionReset;
    private final Object shutdownLock = new Object();

    UringSocketChannel(EventLoop loop, int fd, boolean unix, SocketAddress remote) {
        super(SelectorProvider.provider());
        this.loop = loop;
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
        this.unix = unix;
        this.remote = remote;
        this.bound = remote != null;
    }

    /** An unconnected TCP channel on one of {@code uring}'s loops. */
    public static UringSocketChannel open(Uring uring) throws IOException {
        return open(uring, StandardProtocolFamily.INET6);
    }

    /** An unconnected channel of {@code family}: INET/INET6 (one dual-stack TCP socket) or UNIX. */
    public static UringSocketChannel open(Uring uring, ProtocolFamily family) throws IOException {
        return new UringSocketChannel(uring.loop(), ChannelSockets.open(family), family == StandardProtocolFamily.UNIX, null);
    }

    /** A channel connected to {@code remote}. */
    public static UringSocketChannel open(Uring uring, SocketAddress remote) throws IOException {
        UringSocketChannel ch = open(uring, remote instanceof java.net.UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX : StandardProtocolFamily.INET6);
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
            ChannelSockets.bind(fd, local, unix);
            bound = true;
        }
        return this;
    }

    @Override
    public boolean connect(SocketAddress remoteAddress) throws IOException {
        SocketAddress address = ChannelSockets.peer(Objects.requireNonNull(remoteAddress));
        // The sockaddr (up to 110 bytes for AF_UNIX: more than a request's scratch) is owned by the op, which the
        // request keeps reachable until its CQE; GC-managed, so a cancelled connect cannot outlive it.
        MemorySegment sockaddr = staging.allocate(SocketAddresses.SOCKADDR_UN_SIZE, 8);
        MemorySegment target = sockaddr.asSlice(0, ChannelSockets.sockaddr(address, unix, sockaddr));
        readLock.lock();
        writeLock.lock();
        try {
            ensureOpen();
            if (remote != null) {
                throw new AlreadyConnectedException();
            }
            Op connect = (sqe, scratch) -> sqe.prepConnect(fd, target);
            int result = 0;
            boolean completed = false;
            try {
                begin();
                result = loop.call(connect, guard, false);    // a ClosedChannelException is replaced by end(false)
                completed = true;
            } catch (ErrnoException e) {
                result = -e.errno();
                completed = result != -Errno.ECANCELED;
            } finally {
                end(completed);
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

    @Override
    public boolean finishConnect() throws IOException {
        ensureOpen();
        if (remote == null) {
            throw new NoConnectionPendingException();
        }
        return true;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Objects.requireNonNull(dst);
        readLock.lock();
        try {
            ensureConnected();
            int wanted = dst.remaining();
            if (connectionReset || inputShut || dst.isReadOnly() || wanted == 0) {
                return readNothing(dst.isReadOnly());
            }
            MemorySegment target = dst.isDirect() ? MemorySegment.ofBuffer(dst) : readStaging(wanted);
            int n = io(NetOps.recv(fd, target), "recv");
            if (n == 0) {
                return -1;
            }
            if (dst.isDirect()) {
                dst.position(dst.position() + n);
            } else {
                dst.put(target.asSlice(0, n).asByteBuffer());
            }
            return n;
        } finally {
            readLock.unlock();
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
            if (connectionReset || inputShut || readOnly || room == 0) {
                return readNothing(readOnly);
            }
            if (only != null) {
                return read(only);
            }
            MemorySegment target = readStaging(room);
            int n = io(NetOps.recv(fd, target), "recv");
            if (n == 0) {
                return -1;
            }
            ByteBuffer read = target.asSlice(0, n).asByteBuffer();
            for (int i = offset; read.hasRemaining(); i++) {
                int part = Math.min(dsts[i].remaining(), read.remaining());
                dsts[i].put(read.slice(read.position(), part));
                read.position(read.position() + part);
            }
            return n;
        } finally {
            readLock.unlock();
        }
    }

    /**
     * A read that reads nothing: "Connection reset" again once a read saw the reset (as the JDK's), -1 once the
     * input is shut down, IllegalArgumentException for a read-only buffer, else 0 (no room). As the JDK's,
     * between begin and end, so that an interrupted thread closes the channel.
     */
    private int readNothing(boolean readOnly) throws IOException {
        begin();
        end(false);
        if (connectionReset) {
            throw new java.net.SocketException("Connection reset");
        }
        if (inputShut) {
            return -1;
        }
        if (readOnly) {
            throw new IllegalArgumentException("Read-only buffer");
        }
        return 0;
    }

    /** The first {@code wanted} bytes of the staging memory for reads (at most all of it). */
    private MemorySegment readStaging(long wanted) {
        if (readStaging == null) {
            readStaging = staging.allocate(STAGING);
        }
        return readStaging.asSlice(0, Math.min(wanted, STAGING));
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
     * As the JDK's writev: the buffers' bytes go out together, gathered into the staging memory a chunk at a
     * time, so that what fits in one chunk is one send — a send per buffer could fail halfway (a peer's reset
     * arriving between them) where the JDK's single writev succeeds.
     */
    @Override
    /**
     * As the JDK's writev: the buffers' bytes go out together, gathered into the staging memory a chunk at a
     * time, so that what fits in one chunk is one send — a send per buffer could fail halfway (a peer's reset
     * arriving between them) where the JDK's single writev succeeds.
     */
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, srcs.length);
        writeLock.lock();
        try {
            ensureWritable();
            long total = 0;
            while (true) {
                ByteBuffer chunk = gather(srcs, offset, length);
                int n;
                try {
                    n = send(chunk);
                } catch (AsynchronousCloseException shut) {
                    if (total > 0 && isOpen()) {
                        return total;               // output shut down meanwhile: what was written stands
                    }
                    throw shut;
                }
                for (int i = offset, left = n; left > 0; i++) {
                    int part = Math.min(srcs[i].remaining(), left);
                    srcs[i].position(srcs[i].position() + part);
                    left -= part;
                }
                total += n;
                if (n < chunk.limit() || chunk.limit() < STAGING) {
                    return total;                   // all written, or the output was shut down meanwhile
                }
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Up to a chunk of the buffers' remaining bytes, copied in order into the staging memory (positions stay). */
    private ByteBuffer gather(ByteBuffer[] srcs, int offset, int length) {
        if (writeStaging == null) {
            writeStaging = staging.allocate(STAGING);
        }
        ByteBuffer chunk = writeStaging.asByteBuffer();
        for (int i = offset; i < offset + length && chunk.hasRemaining(); i++) {
            ByteBuffer src = srcs[i];
            int part = Math.min(src.remaining(), chunk.remaining());
            chunk.put(src.slice(src.position(), part));
        }
        return chunk.flip();
    }

    /**
     * As the JDK's: a write once the output is shut down fails with AsynchronousCloseException (its
     * ClosedChannelException turned so when the write wrote nothing), even for empty buffers.
     */
    private void ensureWritable() throws IOException {
        ensureConnected();
        if (outputShut) {
            begin();        // as the JDK's, between begin and end: an interrupted thread closes the channel
            end(false);
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
            begin();        // as the JDK's write of nothing: an interrupted thread still closes the channel
            end(false);
            return 0;
        }
        while (src.hasRemaining()) {
            MemorySegment from;
            if (src.isDirect()) {
                from = MemorySegment.ofBuffer(src);
            } else {
                if (writeStaging == null) {
                    writeStaging = staging.allocate(STAGING);
                }
                int chunk = Math.min(src.remaining(), STAGING);
                from = writeStaging.asSlice(0, chunk);
                MemorySegment.copy(MemorySegment.ofBuffer(src), 0, from, 0, chunk);
            }
            int n;
            try {
                n = io(NetOps.send(fd, from), "send");
            } catch (IOException e) {
                if (!isOpen() || !outputShutDown()) {
                    throw e;
                }
                if (src.remaining() < total) {
                    return total - src.remaining();
                }
                throw (AsynchronousCloseException) new AsynchronousCloseException().initCause(e);
            }
            src.position(src.position() + n);
        }
        return total;
    }

    /**
     * One request inside begin/end, so that close and interrupt turn into the JDK's exceptions. The request is a
     * user of the fd only once prepared: a close or an interrupt does not wait while it waits for a slot, and it
     * then fails with ClosedChannelException, which end(false) replaces.
     */
    private int io(Op op, String what) throws IOException {
        boolean completed = false;
        boolean interrupted = false;
        try {
            begin();
            if (!isOpen()) {
                return 0;                               // end(false) throws AsynchronousCloseException
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
     * reset" (and so does every later read); anything else, reads and writes, an IOException with the strerror text ("Broken pipe", "Connection
     * reset by peer"). The ErrnoException, naming the operation, is the cause.
     */
    private IOException failure(String what, ErrnoException e) {
        connectionReset |= what.equals("recv") && e.errno() == Errno.ECONNRESET;
        IOException failure = what.equals("recv") && e.errno() == Errno.ECONNRESET
                ? new java.net.SocketException("Connection reset") : new IOException(Errno.describe(e.errno()));
        failure.initCause(e);
        return failure;
    }

    @Override
    public SocketChannel shutdownInput() throws IOException {
        ensureConnected();
        if (!inputShut) {
            int ret = Sockets.shutdown(fd, Sockets.SHUT_RD);
            if (ret < 0 && ret != -Errno.ENOTCONN) {        // as the JDK's: a connection reset has nothing to shut
                throw NetErrors.of("shutdown", ret);
            }
            inputShut = true;
        }
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        ensureConnected();
        synchronized (shutdownLock) {
            if (!outputShut) {
                int ret = Sockets.shutdown(fd, Sockets.SHUT_WR);
                if (ret < 0 && ret != -Errno.ENOTCONN) {
                    throw NetErrors.of("shutdown", ret);
                }
                outputShut = true;
            }
        }
        cancelWaitingSends();
        return this;
    }

    /**
     * Ends a send waiting for buffer space, as the JDK's shutdownOutput wakes its writer. The kernel retries a
     * TCP send at the shutdown (and fails it EPIPE), but nothing reports a full Unix socket as writable after
     * one, so an engine that waits with epoll (the portable one) would wait for the peer to read. The cancel
     * holds the fd (it names the fd by number) and takes a control slot, so it never waits behind the send it
     * cancels. Best effort — what it cannot cancel has ended or will fail.
     */
    private void cancelWaitingSends() {
        guard.submitControl(loop, (sqe, scratch) -> sqe.prepRw(Opcode.ASYNC_CANCEL, fd, 0, Opcode.SEND, 0)
                .opFlags(OpFlags.Cancel.FD | OpFlags.Cancel.OP | OpFlags.Cancel.ALL));
    }

    /**
     * Whether the output is shut down, once a shutdown under way has finished: the send it fails (EPIPE) may end
     * before {@link #shutdownOutput} has set the flag.
     */
    private boolean outputShutDown() {
        synchronized (shutdownLock) {
            return outputShut;
        }
    }

    /** Not supported: the adaptor's stream and timeout semantics are not implemented. Use the channel itself. */
    @Override
    public Socket socket() {
        throw new UnsupportedOperationException("uring4j channels have no Socket adaptor: use the channel's read/write");
    }

    /** As the JDK's: connected until closed (a closed channel is not connected, whatever it was). */
    @Override
    public boolean isConnected() {
        return remote != null && isOpen();
    }

    @Override
    public boolean isConnectionPending() {
        return false;
    }

    @Override
    public SocketAddress getRemoteAddress() throws IOException {
        ensureOpen();
        return remote;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return bound ? ChannelSockets.name(fd, true) : null;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ChannelSockets.setOption(this, fd, name, value, supportedOptions());
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return ChannelSockets.getOption(this, fd, name, supportedOptions());
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return unix ? ChannelSockets.UNIX_OPTIONS : ChannelSockets.OPTIONS;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        ChannelSockets.close(guard, loop);
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        ChannelSockets.requireBlocking(block);
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
