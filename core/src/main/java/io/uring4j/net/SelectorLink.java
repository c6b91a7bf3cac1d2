package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@link UringSelector} needs of a drop-in channel: its fd (through the guard: a registration holds the fd
 * open until the selector's poll on it has ended), its cached {@link Readiness}, how many selectors hold it, and
 * the JDK's mapping between selection operations and poll events.
 */
final class SelectorLink {
    private static final int POLLIN = OpFlags.Poll.POLLIN;
    private static final int POLLOUT = OpFlags.Poll.POLLOUT;
    private static final int FAILED = OpFlags.Poll.POLLERR | OpFlags.Poll.POLLHUP;

    final FdGuard guard;
    final Readiness readiness = new Readiness();
    /** A socket channel's received bytes, when a selector receives for it; null for a listener. */
    final Inbox inbox;
    /** A socket channel's queued sends, when a selector sends for it; null for a listener. */
    final Outbox outbox;
    private final SelectableChannel channel;
    /** Registrations still holding the fd: counted before the hold is taken, so that a close never misses one. */
    private final AtomicInteger holds = new AtomicInteger();
    private volatile UringSelectionKey primary;
    private volatile int connectFailure;
    /** Closed with bytes queued: the peer is told (SHUT_WR) once they have gone. */
    private volatile boolean shutdownOnDrain;
    /**
     * A connected TCP socket, closed: input the application never read, found in the inbox when the fd is
     * finally closed, resets the connection ({@link #resetIfUnread}).
     */
    private volatile boolean closedConnected;
    /** Run once the channel is closed: an inherited channel lets go of standard input ({@link InheritedChannels}). */
    private Runnable afterClose;

    SelectorLink(SelectableChannel channel, FdGuard guard) {
        this.channel = channel;
        this.guard = guard;
        this.inbox = channel instanceof SocketChannel ? new Inbox(readiness) : null;
        this.outbox = channel instanceof SocketChannel ? new Outbox(readiness) : null;
    }

    /**
     * Whether {@code key}'s selector may take the channel's input over with a multishot receive: a connected
     * socket that asks for OP_READ and is registered with this selector only (another's polls would never see
     * the bytes it took).
     */
    boolean receivable(UringSelectionKey key) {
        return inbox != null && (key.interest() & SelectionKey.OP_READ) != 0 && exclusive()
                && ((SocketChannel) channel).isConnected();
    }

    /** The link of one of our channels, or null for anyone else's. */
    static SelectorLink of(SelectableChannel channel) {
        return switch (channel) {
            case UringSocketChannel s -> s.link();
            case UringServerSocketChannel s -> s.link();
            case UringDatagramChannel d -> d.link();
            case UringPipe.Source p -> p.link();
            case UringPipe.Sink p -> p.link();
            default -> null;
        };
    }

    /** A selector's registration holds the fd open; false if the channel is closing. */
    boolean hold(UringSelectionKey key) {
        holds.incrementAndGet();
        try {
            guard.acquire();
        } catch (java.nio.channels.ClosedChannelException closing) {
            holds.decrementAndGet();
            return false;
        }
        synchronized (this) {
            if (primary == null) {
                primary = key;
            }
        }
        return true;
    }

    /** A registration's poll has ended: its hold ends (and a closed channel's fd closes with the last). */
    void release(UringSelectionKey key) {
        synchronized (this) {
            if (primary == key) {
                primary = null;
            }
        }
        if (closedConnected && holds.get() == 1) {
            resetIfUnread(guard.fd(), false);   // bytes a receive delivered after the close, say; the hold keeps fd
        }
        holds.decrementAndGet();
        guard.release();
    }

    /**
     * The registration whose stale poll reports the channel's calls mark ({@link UringSelectionKey#stale}): the
     * first. With several selectors the others may report a readiness once more after it has gone — a
     * spurious readiness, which the contract allows — but never miss one.
     */
    UringSelectionKey primary() {
        return primary;
    }

    /** Registered with one selector only: its polls' reports are all there is to the cached readiness. */
    boolean exclusive() {
        return holds.get() == 1;
    }

    boolean held() {
        return holds.get() > 0;
    }

    /**
     * Closes the channel's fd once nothing uses it. Waits for that unless a selector still holds it: then the
     * fd closes when the selector deregisters the channel's key, at its next select — as with the JDK's.
     */
    void close(EventLoop loop, boolean connectedTcp) throws IOException {
        closedConnected = connectedTcp;
        if (connectedTcp && held()) {
            if (outbox.idle()) {
                shutdownOnDrain = true;
                shutdownOutput();   // the JDK's FIN; then, if input is left unread, a reset when the fd closes
                resetIfUnread(false);
            } else if (resetIfUnread(true)) {
                outbox.discard();   // a reset, which drops what was not sent yet (no FIN after a cut stream)
            } else {
                shutdownOnDrain = true;             // once the queued bytes have gone (drained)
            }
        } else if (connectedTcp) {
            resetIfUnread(false);   // the kernel resets for its own unread bytes, not for the inbox's
        }
        CompletableFuture<Void> closed = guard.close();
        try {
            if (!held()) {
                ChannelSockets.await(closed, loop);
            }
        } finally {
            if (afterClose != null) {
                afterClose.run();
            }
        }
    }

    /**
     * A closed channel's connection is reset if it received input the application never read — in the inbox, or
     * ({@code askKernel}) still in the socket: as the kernel's close does (RST instead of FIN, unsent data
     * dropped), which cannot see the bytes a selector's receive took. SO_LINGER {on, 0} makes the fd's close, when
     * the last hold lets go, the reset. True if it will be.
     */
    private boolean resetIfUnread(boolean askKernel) {
        try {
            int fd = guard.acquire();
            try {
                return resetIfUnread(fd, askKernel);
            } finally {
                guard.release();
            }
        } catch (IOException closing) {
            return false;
        }
    }

    /** {@link #resetIfUnread(boolean)} on {@code fd}, which the caller holds open. */
    private boolean resetIfUnread(int fd, boolean askKernel) {
        if (inbox.available() == 0 && !(askKernel && ChannelSockets.unreadInput(fd))) {
            return false;
        }
        try {
            SocketOptions.linger(fd, 0);
            return true;
        } catch (IOException best) {
            return false;           // best effort, as the kernel's: the peer sees a FIN
        }
    }

    /** What to do once the channel is closed; set before the channel is handed out. */
    void afterClose(Runnable action) {
        afterClose = action;
    }

    /** Selecting thread: the outbox has sent its last byte. */
    void drained() {
        if (shutdownOnDrain) {
            shutdownOutput();
        }
    }

    /**
     * As the JDK's, for a connected socket whose close waits for a selector: the peer is told at once (SHUT_WR)
     * unless SO_LINGER 0 asks for a reset, and lingering, which would make the deferred close wait, is turned off.
     */
    private void shutdownOutput() {
        try {
            int fd = guard.acquire();
            try {
                int linger = SocketOptions.linger(fd);
                if (linger != 0) {
                    if (linger > 0) {
                        SocketOptions.linger(fd, -1);
                    }
                    Sockets.shutdown(fd, Sockets.SHUT_WR);
                }
            } finally {
                guard.release();
            }
        } catch (IOException best) {
            // best effort, as the JDK's
        }
    }

    /** Sets the fd's O_NONBLOCK for the channel's mode (blocking mode's calls are requests, which wait anyway). */
    void blocking(boolean block) throws IOException {
        int fd = guard.acquire();
        try {
            int ret = Sockets.nonBlocking(fd, !block);
            if (ret < 0) {
                throw NetErrors.of("fcntl(O_NONBLOCK)", ret);
            }
        } finally {
            guard.release();
        }
    }

    /** The poll events the interest set {@code ops} waits for. */
    static int pollEvents(int ops) {
        int events = 0;
        if ((ops & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            events |= POLLIN;
        }
        if ((ops & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            events |= POLLOUT;
        }
        return events;
    }

    /**
     * The ready set for poll {@code events} under interest set {@code ops}, as the JDK's translateReadyOps: an
     * error or hang-up makes every operation of interest ready (the operation then reports it). OP_CONNECT is
     * made exact: code such as Netty's takes a finishConnect that returns false after it for a bug.
     */
    int readyOps(int events, int ops) {
        int ready = (events & FAILED) != 0 ? ops : translate(events, ops);
        if ((ready & SelectionKey.OP_CONNECT) != 0 && stillConnecting()) {
            ready &= ~SelectionKey.OP_CONNECT;
        }
        return ready;
    }

    private int translate(int events, int ops) {
        int ready = 0;
        if (channel instanceof SocketChannel socket) {
            boolean connected = socket.isConnected();
            if ((events & POLLIN) != 0 && (ops & SelectionKey.OP_READ) != 0 && connected) {
                ready |= SelectionKey.OP_READ;
            }
            if ((events & POLLOUT) != 0 && (ops & SelectionKey.OP_CONNECT) != 0 && socket.isConnectionPending()) {
                ready |= SelectionKey.OP_CONNECT;
            }
            if ((events & POLLOUT) != 0 && (ops & SelectionKey.OP_WRITE) != 0 && connected) {
                ready |= SelectionKey.OP_WRITE;
            }
        } else if (channel instanceof ServerSocketChannel) {
            if ((events & POLLIN) != 0 && (ops & SelectionKey.OP_ACCEPT) != 0) {
                ready |= SelectionKey.OP_ACCEPT;
            }
        } else {                                // a datagram channel or a pipe's end
            if ((events & POLLIN) != 0 && (ops & SelectionKey.OP_READ) != 0) {
                ready |= SelectionKey.OP_READ;
            }
            if ((events & POLLOUT) != 0 && (ops & SelectionKey.OP_WRITE) != 0) {
                ready |= SelectionKey.OP_WRITE;
            }
        }
        return ready;
    }

    /**
     * Whether a connect reported ready is in fact still in progress (a report of the socket's state before the
     * connect began, evaluated before and posted after the call): asked of the socket, which also forgets the
     * report, so that it is asked once.
     */
    private boolean stillConnecting() {
        if (!(channel instanceof SocketChannel socket) || !socket.isConnectionPending()) {
            return false;
        }
        try {
            int state = NonBlockingCalls.connectState(this);
            if (state < 0 && state != NonBlockingCalls.WOULD_BLOCK) {
                connectFailure = state;         // reading SO_ERROR cleared it: finishConnect reports it from here
            }
            return state == NonBlockingCalls.WOULD_BLOCK;
        } catch (IOException closedOrFailed) {
            return false;                       // finishConnect will say what
        }
    }

    /** A connect failure ({@code -errno}) that {@link #stillConnecting} found, once; else 0. */
    int takeConnectFailure() {
        int failure = connectFailure;
        connectFailure = 0;
        return failure;
    }
}
