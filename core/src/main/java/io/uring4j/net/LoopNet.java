package io.uring4j.net;

import io.uring4j.ring.CqeFlags;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
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
    private static final System.Logger LOG = System.getLogger("io.uring4j.net");

    private final EventLoop loop;
    private final Tcp.Config config;
    private final RecvBuffers buffers;
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

    LoopNet(EventLoop loop, Tcp.Config config, int group) throws ErrnoException {
        this.loop = loop;
        this.config = config;
        this.buffers = new RecvBuffers(loop.ring(), group, config.recvBufferCount(), config.recvBufferSize());
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

    /** Starts a multishot accept on {@code listenFd}; each connection gets a handler from {@code handlers}. */
    void listen(int listenFd, Supplier<ConnectionHandler> handlers) {
        Acceptor a = new Acceptor(listenFd, handlers);
        acceptors.add(a);
        a.arm();
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
            done.complete(null);
        }
    }

    void log(String what, Throwable t) {
        LOG.log(System.Logger.Level.WARNING, "uring4j net loop " + loop.id() + ": " + what, t);
    }

    int openConnections() {
        return open.size();
    }

    /** One listening socket's multishot accept on this loop. */
    private final class Acceptor implements CompletionHandler {
        final int fd;
        private final Supplier<ConnectionHandler> handlers;
        private boolean armed;
        private boolean stopped;
        private long userData;
        private final Op op;

        Acceptor(int fd, Supplier<ConnectionHandler> handlers) {
            this.fd = fd;
            this.handlers = handlers;
            this.op = (sqe, scratch) -> {
                sqe.prepMultishotAccept(fd, java.lang.foreign.MemorySegment.NULL, java.lang.foreign.MemorySegment.NULL,
                        Sockets.SOCK_CLOEXEC);
                userData = sqe.userData();
            };
        }

        void arm() {
            armed = true;
            loop.submit(op, this);
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
                if (stopped || shuttingDown) {
                    LibC.close(result);
                } else {
                    accepted++;
                    try {
                        adopt(result, handlers.get());
                    } catch (Throwable t) {
                        log("connection handler factory failed", t);
                        LibC.close(result);
                    }
                }
            } else if (result == -Errno.ECANCELED) {
                stopped = true;             // asked for, or the runtime is closing
            } else if (result != -Errno.EAGAIN && result != -Errno.ECONNABORTED && result != -Errno.EINTR) {
                // EMFILE and the like: log, and keep accepting (the next connection may succeed).
                log("accept failed: " + Errno.name(result), null);
            }
            if (!armed) {
                if (stopped || loop.runtime().isClosed()) {
                    end();
                } else {
                    arm();
                }
            }
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
