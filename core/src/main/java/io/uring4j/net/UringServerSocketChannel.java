package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
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
    private final ReentrantLock acceptLock = new ReentrantLock();
    private volatile boolean bound;

    private UringServerSocketChannel(Uring uring, int fd) {
        super(SelectorProvider.provider());
        this.uring = uring;
        this.loop = uring.loop();
        this.fd = fd;
    }

    public static UringServerSocketChannel open(Uring uring) throws IOException {
        int fd = ChannelSockets.open();
        try {
            SocketOptions.reuseAddress(fd, true);
        } catch (IOException e) {
            LibC.close(fd);
            throw e;
        }
        return new UringServerSocketChannel(uring, fd);
    }

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (bound) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, local);
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
            try {
                begin();
                if (!isOpen()) {
                    return null;                     // end(false) throws AsynchronousCloseException
                }
                accepted = loop.call(NetOps.accept(fd));
                completed = true;
            } catch (ErrnoException e) {
                if (!(ChannelSockets.closedUnder(e) && !isOpen())) {
                    completed = true;
                    throw NetErrors.of("accept", -e.errno());
                }
                throw e;                             // replaced by end(false)'s exception
            } finally {
                end(completed);
            }
            try {
                return new UringSocketChannel(uring.loop(), accepted, TcpSocket.name(accepted, false));
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
        return bound ? TcpSocket.name(fd, true) : null;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ensureOpen();
        ChannelSockets.setOption(fd, name, value, ChannelSockets.SERVER_OPTIONS);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        ensureOpen();
        return ChannelSockets.getOption(fd, name, ChannelSockets.SERVER_OPTIONS);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return ChannelSockets.SERVER_OPTIONS;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        ChannelSockets.close(loop, fd);
    }

    @Override
    protected void implConfigureBlocking(boolean block) {
        if (!block) {
            throw new UnsupportedOperationException("uring4j channels are blocking only (made for virtual threads); "
                    + "for event-driven, non-blocking I/O use io.uring4j.net.Tcp");
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }
}
