package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.InterruptedCalls;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ProtocolFamily;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.nio.channels.AlreadyBoundException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NotYetBoundException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A blocking {@link ServerSocketChannel} whose accept is an io_uring request; it returns
 * {@link UringSocketChannel}s, each on the next of the runtime's loops. SO_REUSEADDR is on by default, as with
 * the JDK's. Same contract and the same refusals (non-blocking mode, selectors, {@link #socket()}) as
 * {@link UringSocketChannel}.
 */
public final class UringServerSocketChannel extends ServerSocketChannel {
    private final Uring uring;
    private final EventLoop loop;
    private final int fd;
    /** The accept in progress is a user of the fd once prepared: close never closes the fd under it. */
    private final FdGuard guard;
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final boolean unix;
    private volatile boolean bound;

    private UringServerSocketChannel(Uring uring, int fd, boolean unix) {
        super(SelectorProvider.provider());
        this.uring = uring;
        this.unix = unix;
        this.loop = uring.loop();
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
    }

    /** A TCP server channel (dual-stack). */
    public static UringServerSocketChannel open(Uring uring) throws IOException {
        return open(uring, StandardProtocolFamily.INET6);
    }

    /** A server channel of {@code family}: INET/INET6 or UNIX (bind it to a path that does not exist yet). */
    public static UringServerSocketChannel open(Uring uring, ProtocolFamily family) throws IOException {
        boolean unix = family == StandardProtocolFamily.UNIX;
        int fd = ChannelSockets.open(family);
        try {
            if (!unix) {
                SocketOptions.reuseAddress(fd, true);
            }
        } catch (IOException e) {
            LibC.close(fd);
            throw e;
        }
        return new UringServerSocketChannel(uring, fd, unix);
    }

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (bound) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, local, unix);
            int ret = Sockets.listen(fd, backlog < 1 ? 50 : backlog);
            if (ret < 0) {
                throw NetErrors.of("listen", ret);
            }
            bound = true;
        }
        return this;
    }

    @Override
    public SocketChannel accept() throws IOException {
        acceptLock.lock();
        try {
            ensureOpen();
            if (!bound) {
                throw new NotYetBoundException();
            }
            int accepted = -1;
            boolean completed = false;
            boolean interrupted = false;
            try {
                begin();
                if (!isOpen()) {
                    return null;                     // end(false) throws AsynchronousCloseException
                }
                // A user of the fd once prepared: a close does not wait while the accept waits for a slot, and
                // the accept then fails with ClosedChannelException, which end(false) replaces.
                accepted = loop.call(NetOps.accept(fd), guard, false);
                completed = true;
            } catch (ErrnoException e) {
                if (!(ChannelSockets.closedUnder(e) && !isOpen())) {
                    completed = true;
                    throw NetErrors.of("accept", -e.errno());
                }
                throw e;                             // replaced by end(false)'s exception
            } catch (InterruptedIOException e) {
                interrupted = true;
                throw e;
            } finally {
                end(completed);
                if (interrupted) {
                    throw InterruptedCalls.closeOnInterrupt(this);
                }
            }
            try {
                return new UringSocketChannel(uring.loop(), accepted, unix, ChannelSockets.name(accepted, false));
            } catch (IOException e) {
                LibC.close(accepted);           // the peer left before we asked who it was
                throw e;
            }
        } finally {
            acceptLock.unlock();
        }
    }

    /** Not supported: use the channel. */
    @Override
    public ServerSocket socket() {
        throw new UnsupportedOperationException("uring4j channels have no ServerSocket adaptor: use accept()");
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return bound ? ChannelSockets.name(fd, true) : null;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ChannelSockets.setOption(this, fd, name, value, supportedOptions());
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return ChannelSockets.getOption(this, fd, name, supportedOptions());
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return unix ? ChannelSockets.UNIX_SERVER_OPTIONS : ChannelSockets.SERVER_OPTIONS;
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
}
