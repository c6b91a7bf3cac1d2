package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.AcceptPendingException;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.NotYetBoundException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * An {@link AsynchronousServerSocketChannel} whose accept is one io_uring ACCEPT request; each accepted
 * connection is a {@link UringAsynchronousSocketChannel} in the same group, on the group's next loop. As the
 * JDK's: SO_REUSEADDR is on, one accept pending at a time ({@link AcceptPendingException}), a cancelled accept
 * future refuses further accepts, and a close fails a pending accept with
 * {@link java.nio.channels.AsynchronousCloseException}.
 */
public final class UringAsynchronousServerSocketChannel extends AsynchronousServerSocketChannel {
    private static final int ADDRESS_LENGTH_AT = 32;

    private final UringAsynchronousChannelGroup group;
    private final EventLoop loop;
    private final int fd;
    private final FdGuard guard;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final AtomicBoolean accepting = new AtomicBoolean();
    private volatile boolean acceptKilled;
    private volatile InetSocketAddress local;
    /**
     * The peer's sockaddr and its length, written by the kernel: this channel's own memory (one accept at a time),
     * held by the accept op until its final CQE and read in its completion.
     */
    private final MemorySegment peer = Arena.ofAuto().allocate(ADDRESS_LENGTH_AT + 4, 8);
    private final Op accept;

    UringAsynchronousServerSocketChannel(UringAsynchronousChannelGroup group) throws IOException {
        super(group.provider());
        this.group = group;
        this.loop = group.nextLoop();
        this.fd = ChannelSockets.open(ChannelSockets.IP);
        this.guard = new FdGuard(loop, fd);
        this.accept = (sqe, scratch) -> {
            peer.set(JAVA_INT, ADDRESS_LENGTH_AT, SocketAddresses.SOCKADDR_IN6_SIZE);
            sqe.prepAccept(fd, peer, peer.asSlice(ADDRESS_LENGTH_AT, 4), Sockets.SOCK_CLOEXEC);
        };
        try {
            SocketOptions.reuseAddress(fd, true);       // as the JDK's server sockets
            int ret = Sockets.nonBlocking(fd, true);    // for accepts tried in place; the ring's wait regardless
            if (ret < 0) {
                throw NetErrors.of("fcntl(O_NONBLOCK)", ret);
            }
            group.register(this);
        } catch (IOException | RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    @Override
    public AsynchronousServerSocketChannel bind(SocketAddress address, int backlog) throws IOException {
        InetSocketAddress checked = address == null ? new InetSocketAddress(0)
                : ChannelSockets.check(address, ChannelSockets.IP_DOMAIN);
        ensureOpen();
        synchronized (this) {
            if (local != null) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, checked, ChannelSockets.IP_DOMAIN);
            int ret = Sockets.listen(fd, backlog < 1 ? 50 : backlog);
            if (ret < 0) {
                throw NetErrors.of("listen", ret);
            }
            local = (InetSocketAddress) ChannelSockets.name(fd, true);
        }
        return this;
    }

    @Override
    public Future<AsynchronousSocketChannel> accept() {
        return startAccept(null, null);
    }

    @Override
    public <A> void accept(A attachment, CompletionHandler<AsynchronousSocketChannel, ? super A> handler) {
        Objects.requireNonNull(handler, "'handler' is null");
        startAccept(attachment, handler);
    }

    private <A> Future<AsynchronousSocketChannel> startAccept(A attachment,
                                                             CompletionHandler<AsynchronousSocketChannel, ? super A> handler) {
        if (!isOpen()) {
            ClosedChannelException closed = new ClosedChannelException();
            if (handler == null) {
                return CompletableFuture.failedFuture(closed);
            }
            group.handlers().invoke(handler, attachment, null, closed);
            return null;
        }
        if (local == null) {
            throw new NotYetBoundException();
        }
        if (acceptKilled) {
            throw new RuntimeException("Accept not allowed due cancellation");      // the JDK's words
        }
        if (!accepting.compareAndSet(false, true)) {
            throw new AcceptPendingException();
        }
        group.operationStarted();
        int now = acceptNow();
        if (now != -Errno.EAGAIN) {
            return acceptedInPlace(now, attachment, handler);
        }
        CompletableFuture<Integer> request = AsyncRequest.start(loop, guard, accept, 0, "accept");
        // Cancelling the future leaves the accept in the kernel (until a connection comes, or the close): an
        // accept cancelled there may still have taken a connection, whose fd only the completion can close.
        AsyncRequest.Pending<AsynchronousSocketChannel> future = handler != null ? null
                : new AsyncRequest.Pending<>(() -> acceptKilled = true, () -> { }, this, null);
        request.whenComplete((accepted, failure) -> {
            AsynchronousSocketChannel channel = null;
            Throwable exc = null;
            if (failure == null) {
                try {
                    channel = new UringAsynchronousSocketChannel(group, accepted, SocketAddresses.read(peer));
                } catch (IOException e) {
                    exc = e;
                } catch (RuntimeException e) {
                    exc = new IOException(e);       // as the JDK's: a group shut down meanwhile, say
                }
            } else {
                Throwable f = AsyncRequest.unwrap(failure);
                exc = isOpen() && f instanceof ErrnoException e ? NetErrors.of("accept", -e.errno())
                        : AsyncRequest.failure(f, isOpen(), false);
            }
            accepting.set(false);
            try {
                if (handler != null) {
                    if (!group.handlers().dispatch(handler, attachment, channel, exc) && channel != null) {
                        closeUndelivered(channel);
                    }
                } else if (exc == null) {
                    future.complete(channel);
                    if (future.isCancelled()) {
                        closeUndelivered(channel);
                    }
                } else {
                    future.completeExceptionally(exc);
                }
            } finally {
                group.operationEnded();
            }
        });
        return future;
    }

    /**
     * As the JDK's first try: accept4 on the calling thread without waiting (the listener is non-blocking), holding
     * the fd. A connection already waiting costs one system call instead of a request on the loop and a hand-over
     * to the executor; -EAGAIN when none is, or when the channel is closing (the request then fails as a close
     * makes it fail).
     */
    private int acceptNow() {
        try {
            guard.acquire();
        } catch (ClosedChannelException closing) {
            return -Errno.EAGAIN;
        }
        try {
            peer.set(JAVA_INT, ADDRESS_LENGTH_AT, SocketAddresses.SOCKADDR_IN6_SIZE);
            return Sockets.accept4(fd, peer, peer.asSlice(ADDRESS_LENGTH_AT, 4), Sockets.SOCK_CLOEXEC);
        } finally {
            guard.release();
        }
    }

    /** An accept over before it is returned: its handler runs here if this thread may, else on the executor. */
    private <A> Future<AsynchronousSocketChannel> acceptedInPlace(
            int accepted, A attachment, CompletionHandler<AsynchronousSocketChannel, ? super A> handler) {
        AsynchronousSocketChannel channel = null;
        Throwable exc = null;
        if (accepted >= 0) {
            try {
                channel = new UringAsynchronousSocketChannel(group, accepted, SocketAddresses.read(peer));
            } catch (IOException e) {
                exc = e;
            } catch (RuntimeException e) {
                exc = new IOException(e);
            }
        } else {
            exc = NetErrors.of("accept", accepted);
        }
        accepting.set(false);
        try {
            if (handler == null) {
                return exc == null ? CompletableFuture.completedFuture(channel) : CompletableFuture.failedFuture(exc);
            }
            group.handlers().invoke(handler, attachment, channel, exc);
            return null;
        } finally {
            group.operationEnded();
        }
    }

    /** A connection no handler will see: closed, not leaked. */
    private static void closeUndelivered(AsynchronousSocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closed whatever close reported
        }
    }

    @Override
    public <T> AsynchronousServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        Objects.requireNonNull(name);
        ChannelOptions.set(this, fd, name, value, supportedOptions());
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        Objects.requireNonNull(name);
        return ChannelOptions.get(this, fd, name, supportedOptions());
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return ChannelOptions.TCP_SERVER;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return local;
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }

    /** Fails a pending accept with AsynchronousCloseException and closes the fd once the accept has ended. */
    @Override
    public void close() throws IOException {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        try {
            ChannelSockets.close(guard, loop);
        } finally {
            group.unregister(this);
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        ChannelSockets.ensureOpen(this);
    }

    @Override
    public String toString() {
        return "UringAsynchronousServerSocketChannel[" + (isOpen() ? "fd " + fd : "closed")
                + (local != null ? " local=" + local : "") + "]";
    }
}
