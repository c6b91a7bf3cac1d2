package io.uring4j.net;

import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Logs;
import io.uring4j.sys.Sockets;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * What a {@link Tcp} holds on one event loop: its receive buffer ring, its connections, its listening sockets.
 * Loop thread only, apart from construction.
 *
 * <p>It ends when it was asked to close (or the runtime is closing) and nothing is left: no connection that
 * may still have a request in flight, no armed accept. Only then is the buffer ring unregistered and freed,
 * since a receive in flight may still pick a buffer from it.
 */
final class LoopNet {
    private final EventLoop loop;
    private final Tcp.Config config;
    private final RecvBuffers buffers;
    private final OutputSlabs outputs;
    private final Set<Connection> open = new HashSet<>();
    /** Connections closed whose requests have not all completed yet. */
    private int closing;
    private final List<Acceptor> acceptors = new ArrayList<>();
    private boolean shuttingDown;
    private boolean terminated;
    final CompletableFuture<Void> done = new CompletableFuture<>();

    // Counters, written by the loop thread.
    long enobufs;
    long backPressurePauses;
    long accepted;
    /** Times an acceptor paused for lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM). */
    long acceptPauses;
    /** Connections closed as soon as accepted, the loop's request table being near its bound. */
    long acceptRefusals;

    /**
     * Request slots kept for the connections the loop has, an eighth of the table: their receives and accepts are
     * standing requests, outside the table's bound, but each send takes a slot. With no more than this free, the
     * loop is busy sending and new connections are refused.
     */
    private final int reservedSlots;

    LoopNet(EventLoop loop, Tcp.Config config, int group) throws ErrnoException {
        this.loop = loop;
        this.config = config;
        this.buffers = new RecvBuffers(loop.ring(), group, config.recvBufferCount(), config.recvBufferSize());
        this.outputs = new OutputSlabs(config.initialWriteBuffer());
        this.reservedSlots = Math.max(1, loop.maxInFlight() / 8);
    }

    EventLoop loop() {
        return loop;
    }

    Tcp.Config config() {
        return config;
    }

    RecvBuffers buffers() {
        return buffers;
    }

    OutputSlabs outputs() {
        return outputs;
    }

    /** Adopts a connected socket and opens it. */
    Connection adopt(int fd, ConnectionHandler handler) {
        if (config.noDelay()) {
            Sockets.setsockopt(fd, Sockets.IPPROTO_TCP, Sockets.TCP_NODELAY, 1);
        }
        Connection c = new Connection(this, fd, handler);
        open.add(c);
        c.open();
        return c;
    }

    void closed(Connection c) {
        open.remove(c);
        closing++;
    }

    void released(Connection c) {
        closing--;
        checkTerminated();
    }

    /**
     * Starts a multishot accept on {@code listenFd}; each connection gets a handler from {@code handlers} and
     * lives on one of {@code spreadOver}, taken in turn ({@code this} alone: every connection stays here).
     */
    void listen(int listenFd, Supplier<ConnectionHandler> handlers, LoopNet[] spreadOver) {
        Acceptor a = new Acceptor(listenFd, handlers, spreadOver);
        acceptors.add(a);
        a.arm();
    }

    /**
     * Loop thread: takes a connection accepted here or on another loop. When the loop's request table is near its
     * bound (no more than {@link #reservedSlots} free) the connection is closed at once: its peer reads end of
     * stream, where a paused accept would leave it connected in the backlog with no answer — a hang — and the
     * connections the loop has keep the slots they need to go on sending. Idle connections take none of these.
     */
    void take(int fd, Supplier<ConnectionHandler> handlers) {
        if (shuttingDown || loop.runtime().isClosed()) {
            LibC.close(fd);
        } else if (loop.freeSlots() <= reservedSlots) {
            refuse(fd);
        } else {
            accepted++;
            try {
                adopt(fd, handlers.get());
            } catch (Throwable t) {
                log("connection handler factory failed", t);
                LibC.close(fd);
            }
        }
    }

    private void refuse(int connection) {
        if (acceptRefusals++ == 0) {
            log("refusing new connections while fewer than " + (reservedSlots + 1) + " of "
                    + loop.maxInFlight() + " request slots are free (sends in flight hold them;"
                    + " raise UringBuilder.maxInFlight to carry more)", null);
        }
        LibC.close(connection);
    }

    /** Stops accepting on {@code listenFd} and closes it. */
    void unlisten(int listenFd) {
        for (Acceptor a : acceptors) {
            if (a.fd == listenFd) {
                a.stop();
            }
        }
    }

    /** Stops every acceptor and closes every connection (pending output dropped); ends once all is released. */
    void shutdown() {
        shuttingDown = true;
        for (Acceptor a : List.copyOf(acceptors)) {
            a.stop();
        }
        for (Connection c : List.copyOf(open)) {
            c.abortForShutdown();
        }
        checkTerminated();
    }

    private void checkTerminated() {
        if (terminated || !(shuttingDown || loop.runtime().isClosed())) {
            return;
        }
        if (open.isEmpty() && closing == 0 && acceptors.isEmpty()) {
            terminated = true;
            buffers.close();
            outputs.close();
            done.complete(null);
        }
    }

    /**
     * Logs a warning, never throwing: out of descriptors, a logger may fail to load what it needs (its time-zone
     * data, a class), and that must not end the loop or its acceptor.
     */
    void log(String what, Throwable t) {
        try {
            Logs.net().log(System.Logger.Level.WARNING, "uring4j net loop " + loop.id() + ": " + what, t);
        } catch (Throwable unloggable) {
            // nothing better to do: the counters still show it
        }
    }

    int openConnections() {
        return open.size();
    }

    /**
     * One listening socket's multishot accept on this loop. When accepting fails for lack of descriptors or
     * memory, the pending connection stays in the backlog and an accept re-armed at once would fail again at
     * once: the acceptor pauses instead, 10 ms at first and doubling up to a second while the shortage lasts,
     * and logs once per shortage.
     *
     * <p>A listener shared by the loops is accepted on one of them, which hands each connection to the loops in
     * turn: connections spread evenly and their peers' listeners need no SO_REUSEPORT (with it, a second server on
     * the port would silently take half of them).
     */
    private final class Acceptor implements CompletionHandler {
        private static final long FIRST_PAUSE_NANOS = 10_000_000L;
        private static final long LONGEST_PAUSE_NANOS = 1_000_000_000L;

        static {
            // A pause comes when descriptors have run out, and then no class file can be opened: what it uses
            // is loaded with the first acceptor.
            Timespec.set(MemorySegment.ofArray(new long[2]), FIRST_PAUSE_NANOS);
            Errno.name(Errno.EMFILE);
        }

        final int fd;
        private final Supplier<ConnectionHandler> handlers;
        private final LoopNet[] spreadOver;
        /** The loop that takes the next connection: an index into {@link #spreadOver}. */
        private int next;
        private boolean armed;
        private boolean stopped;
        private long userData;
        private final Op op;
        /** The next pause's length; 0 while accepts succeed. */
        private long pauseNanos;
        /** A pause's timer is pending: the accept is re-armed when it fires. */
        private boolean pausing;
        private final Op pauseOp = (sqe, scratch) -> {
            Timespec.set(scratch, pauseNanos);
            sqe.prepTimeout(scratch, 0, 0);
        };
        private final CompletionHandler resume = new CompletionHandler() {
            @Override
            public void complete(int result, int flags) {
                pausing = false;
                pauseNanos = Math.min(pauseNanos * 2, LONGEST_PAUSE_NANOS);
                rearm();
            }

            @Override
            public void failed(Throwable cause) {
                pausing = false;
                rearm();
            }
        };

        Acceptor(int fd, Supplier<ConnectionHandler> handlers, LoopNet[] spreadOver) {
            this.fd = fd;
            this.handlers = handlers;
            this.spreadOver = spreadOver;
            this.op = (sqe, scratch) -> {
                sqe.prepMultishotAccept(fd, MemorySegment.NULL, MemorySegment.NULL,
                        Sockets.SOCK_CLOEXEC);
                userData = sqe.userData();
            };
        }

        void arm() {
            armed = true;
            loop.submitStanding(op, this);
        }

        void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            if (armed) {
                loop.cancel(userData);
            } else {
                end();
            }
        }

        @Override
        public void complete(int result, int flags) {
            if ((flags & CqeFlags.F_MORE) == 0) {
                armed = false;
            }
            if (result >= 0) {
                pauseNanos = 0;
                if (stopped || shuttingDown) {
                    LibC.close(result);
                } else {
                    handOn(result);
                }
            } else if (result == -Errno.ECANCELED) {
                // Asked for by stop() or the runtime's close — or by pause(), which re-arms once the pause ends.
                stopped |= !pausing || loop.runtime().isClosed();
            } else if (isShortage(result)) {
                pause(result);
            } else if (result != -Errno.EAGAIN && result != -Errno.ECONNABORTED && result != -Errno.EINTR) {
                log("accept failed: " + Errno.name(result), null);     // keep accepting: the next may succeed
            }
            if (!armed && !pausing) {
                rearm();
            }
        }

        private void rearm() {
            if (stopped || loop.runtime().isClosed()) {
                end();
            } else {
                arm();
            }
        }

        /** Gives a connection to the next loop in turn: taken here at once, else on that loop's thread. */
        private void handOn(int connection) {
            LoopNet target = spreadOver[next];
            next = next + 1 == spreadOver.length ? 0 : next + 1;
            if (target == LoopNet.this) {
                take(connection, handlers);
                return;
            }
            try {
                target.loop.execute(() -> target.take(connection, handlers));
            } catch (RejectedExecutionException closing) {
                LibC.close(connection);
            }
        }

        private static boolean isShortage(int result) {
            return result == -Errno.EMFILE || result == -Errno.ENFILE || result == -Errno.ENOBUFS
                    || result == -Errno.ENOMEM;
        }

        private void pause(int result) {
            if (pausing || stopped) {
                return;
            }
            if (pauseNanos == 0) {
                pauseNanos = FIRST_PAUSE_NANOS;
                log("accept failed: " + Errno.name(result) + "; accepting again when it passes (retried from every "
                        + FIRST_PAUSE_NANOS / 1_000_000 + " ms to every second)", null);
            }
            acceptPauses++;
            pausing = true;
            if (armed) {
                loop.cancel(userData);          // a multishot accept that goes on failing: its end re-arms nothing
            }
            loop.submit(pauseOp, resume);
        }

        @Override
        public void failed(Throwable cause) {
            armed = false;
            stopped = true;
            end();
        }

        private void end() {
            if (acceptors.remove(this)) {
                LibC.close(fd);
            }
            checkTerminated();
        }
    }
}
