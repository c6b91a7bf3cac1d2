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
import java.net.SocketTimeoutException;
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
 * A {@link ServerSocketChannel} whose accept is an io_uring request in blocking mode and an accept4 system call
 * in non-blocking mode; it returns {@link UringSocketChannel}s (in blocking mode, as the JDK's), each on the next
 * of the runtime's loops. SO_REUSEADDR is on by default, as with the JDK's. Same contract as
 * {@link UringSocketChannel}.
 */
public final class UringServerSocketChannel extends ServerSocketChannel {
    private final Uring uring;
    private final EventLoop loop;
    private final int fd;
    /** The accept in progress is a user of the fd once prepared: close never closes the fd under it. */
    private final FdGuard guard;
    private final SelectorLink link;
    private final ReentrantLock acceptLock = new ReentrantLock();
    private final int domain;
    private volatile boolean bound;
    private ServerSocket adaptor;

    private UringServerSocketChannel(SelectorProvider provider, Uring uring, int fd, int domain) {
        super(provider);
        this.uring = uring;
        this.domain = domain;
        this.loop = uring.loop();
        this.fd = fd;
        this.guard = new FdGuard(loop, fd);
        this.link = new SelectorLink(this, guard);
    }

    /** A TCP server channel (dual-stack where IPv6 is available, as the JDK's). */
    public static UringServerSocketChannel open(Uring uring) throws IOException {
        return open(uring, ChannelSockets.IP);
    }

    /** A server channel of {@code family}: INET/INET6 or UNIX (bind it to a path that does not exist yet). */
    public static UringServerSocketChannel open(Uring uring, ProtocolFamily family) throws IOException {
        return open(UringSelectorProvider.DEFAULT, uring, family);
    }

    static UringServerSocketChannel open(SelectorProvider provider, Uring uring, ProtocolFamily family)
            throws IOException {
        int fd = ChannelSockets.open(family);
        try {
            if (family != StandardProtocolFamily.UNIX) {
                SocketOptions.reuseAddress(fd, true);
            }
            // Non-blocking in either mode: a blocking accept is first tried in place, and its ACCEPT request
            // waits for a connection regardless of the flag.
            int ret = Sockets.nonBlocking(fd, true);
            if (ret < 0) {
                throw NetErrors.of("fcntl(O_NONBLOCK)", ret);
            }
        } catch (IOException e) {
            LibC.close(fd);
            throw e;
        }
        return new UringServerSocketChannel(provider, uring, fd, ChannelSockets.domain(family));
    }

    /**
     * A listening socket the process was started with ({@link InheritedChannels}), made non-blocking as this
     * channel's own are; {@code afterClose} once closed.
     */
    static UringServerSocketChannel inherited(SelectorProvider provider, Uring uring, int fd, int domain,
                                              Runnable afterClose) throws IOException {
        int ret = Sockets.nonBlocking(fd, true);
        if (ret < 0) {
            throw NetErrors.of("fcntl(O_NONBLOCK)", ret);
        }
        UringServerSocketChannel channel = new UringServerSocketChannel(provider, uring, fd, domain);
        channel.bound = true;
        channel.link.afterClose(afterClose);
        return channel;
    }

    @Override
    public ServerSocketChannel bind(SocketAddress local, int backlog) throws IOException {
        synchronized (this) {
            ensureOpen();
            if (bound) {
                throw new AlreadyBoundException();
            }
            ChannelSockets.bind(fd, local, domain);
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
        return accept(0);
    }

    /**
     * {@link #accept()}, a blocking one bounded by {@code timeoutMillis} when positive (the server socket adaptor's
     * SO_TIMEOUT): SocketTimeoutException "Accept timed out" once it passes, the channel still open.
     */
    SocketChannel accept(int timeoutMillis) throws IOException {
        acceptLock.lock();
        try {
            ensureOpen();
            if (!bound) {
                throw new NotYetBoundException();
            }
            if (!isBlocking()) {
                return acceptNow();
            }
            int accepted = -1;
            boolean completed = false;
            boolean interrupted = false;
            try {
                begin();
                if (!isOpen()) {
                    return null;                     // end(false) throws AsynchronousCloseException
                }
                // First in place, as a busy acceptor finds a connection waiting; then, if none is, a request. It is
                // a user of the fd once prepared: a close does not wait while the accept waits for a slot, and the
                // accept then fails with ClosedChannelException, which end(false) replaces.
                accepted = NonBlockingCalls.accept(link);
                if (accepted == NonBlockingCalls.WOULD_BLOCK) {
                    accepted = ChannelSockets.call(loop, guard, NetOps.accept(fd), "accept", timeoutMillis,
                            "Accept timed out");
                } else if (accepted < 0) {
                    completed = true;
                    throw NetErrors.of("accept", accepted);
                }
                completed = true;
            } catch (ErrnoException e) {
                if (!(ChannelSockets.closedUnder(e) && !isOpen())) {
                    completed = true;
                    throw NetErrors.of("accept", -e.errno());
                }
                throw e;                             // replaced by end(false)'s exception
            } catch (SocketTimeoutException e) {
                completed = true;
                throw e;                             // not an interrupt, though an InterruptedIOException
            } catch (InterruptedIOException e) {
                interrupted = true;
                throw e;
            } finally {
                end(completed);
                if (interrupted) {
                    throw InterruptedCalls.closeOnInterrupt(this);
                }
            }
            return accepted(accepted);
        } finally {
            acceptLock.unlock();
        }
    }

    /** A non-blocking accept: a connection waiting, or null (as the JDK's). */
    private SocketChannel acceptNow() throws IOException {
        int accepted = NonBlockingCalls.accept(link);
        if (accepted == NonBlockingCalls.WOULD_BLOCK) {
            return null;
        }
        if (accepted < 0) {
            throw NetErrors.of("accept", accepted);
        }
        return accepted(accepted);
    }

    /** The channel for an accepted fd: in blocking mode, on the next of the runtime's loops. */
    private SocketChannel accepted(int accepted) throws IOException {
        try {
            return new UringSocketChannel(provider(), uring.loop(), accepted, domain,
                    ChannelSockets.name(accepted, false));
        } catch (IOException e) {
            LibC.close(accepted);           // the peer left before we asked who it was
            throw e;
        }
    }

    /** A {@link ServerSocket} that delegates to this channel, as the JDK's adaptor (one per channel). */
    @Override
    public synchronized ServerSocket socket() {
        if (adaptor == null) {
            adaptor = ServerSocketAdaptor.of(this);
        }
        return adaptor;
    }

    @Override
    public SocketAddress getLocalAddress() throws IOException {
        ensureOpen();
        return bound ? ChannelSockets.name(fd, true) : null;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        ChannelOptions.set(this, fd, name, value, supportedOptions());
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return ChannelOptions.get(this, fd, name, supportedOptions());
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return unixDomain() ? ChannelOptions.UNIX_SERVER : ChannelOptions.TCP_SERVER;
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        link.close(loop, false);
    }

    /** Waits for a blocking accept to end; the fd is non-blocking in both modes. */
    @Override
    protected void implConfigureBlocking(boolean block) {
        acceptLock.lock();
        acceptLock.unlock();
    }

    SelectorLink link() {
        return link;
    }

    boolean unixDomain() {
        return domain == Sockets.AF_UNIX;
    }

    private void ensureOpen() throws ClosedChannelException {
        ChannelSockets.ensureOpen(this);
    }
}
