package io.uring4j.net;

import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The loop style of TCP: servers and clients whose connections live on the runtime's event loops, with
 * per-connection {@link ConnectionHandler}s called on the loop thread. It owns, on every loop, a ring of
 * provided receive buffers shared by that loop's connections.
 *
 * <pre>{@code
 * try (Uring uring = Uring.builder().loops(2).build(); Tcp tcp = Tcp.open(uring)) {
 *     TcpServer server = tcp.listen(new InetSocketAddress(8080), () -> (c, data, n) -> c.write(data, 0, n));
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #listen} binds one listening socket, whose multishot ACCEPT runs on one loop that hands the connections
 * to the loops in turn; with {@code reusePort}, one socket per loop with SO_REUSEPORT, so the kernel spreads
 * connections over the loops and each accepts its own. {@link #close()} closes every
 * listener and connection and waits until the loops have released what the kernel could still touch.
 *
 * <p>Sizing: a connection's receive (and a listener's accept) is a standing request, outside
 * {@link io.uring4j.runtime.UringBuilder#maxInFlight}: descriptors, not the request table, bound how many
 * connections a loop carries, and idle ones take no slot. Each send in flight takes one slot. A server keeps an
 * eighth of the slots for the connections it has: with fewer free — the loop is that busy sending — it closes each
 * new connection as soon as it is accepted (counted as {@code refused} in {@link #stats}) until sends complete.
 */
public final class Tcp implements AutoCloseable {
    /** Buffer group ids, unique per runtime instance of this class. */
    private static final AtomicInteger GROUPS = new AtomicInteger(0x4000);

    /**
     * @param recvBufferCount buffers in each loop's receive ring (a power of two)
     * @param recvBufferSize  bytes per receive buffer: the most one {@code onData} delivers
     * @param writeHighWater  pending output above which a connection stops reading
     * @param initialWriteBuffer first size of a connection's output buffer (it grows as needed)
     * @param noDelay         TCP_NODELAY on every connection (request/response protocols want it)
     */
    public record Config(int recvBufferCount, int recvBufferSize, long writeHighWater, int initialWriteBuffer,
                         boolean noDelay, int backlog) {
        public static Config defaults() {
            return new Config(1024, 16 * 1024, 1 << 20, 16 * 1024, true, 1024);
        }

        public Config withRecvBuffers(int count, int size) {
            return new Config(count, size, writeHighWater, initialWriteBuffer, noDelay, backlog);
        }

        public Config withWriteHighWater(long bytes) {
            return new Config(recvBufferCount, recvBufferSize, bytes, initialWriteBuffer, noDelay, backlog);
        }
    }

    private final Uring uring;
    private final Config config;
    private final LoopNet[] loops;
    private final List<TcpServer> servers = new ArrayList<>();
    private boolean closed;

    private Tcp(Uring uring, Config config) throws IOException {
        this.uring = uring;
        this.config = config;
        this.loops = new LoopNet[uring.loopCount()];
        int group = GROUPS.getAndIncrement() & 0xffff;
        try {
            for (int i = 0; i < loops.length; i++) {
                EventLoop loop = uring.loop(i);
                loops[i] = onLoop(loop, () -> new LoopNet(loop, config, group));
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    public static Tcp open(Uring uring) throws IOException {
        return new Tcp(uring, Config.defaults());
    }

    public static Tcp open(Uring uring, Config config) throws IOException {
        return new Tcp(uring, config);
    }

    /**
     * Listens on {@code address}: one socket, accepted by one loop (each server's by the next), which hands the
     * connections to the loops in turn. Like the JDK's {@code bind}, this fails with EADDRINUSE when anything
     * listens there. Each accepted connection gets a new handler from {@code handlers}, called on the loop it
     * lives on.
     */
    public TcpServer listen(InetSocketAddress address, Supplier<ConnectionHandler> handlers) throws IOException {
        return listen(address, handlers, false);
    }

    /**
     * {@link #listen(InetSocketAddress, Supplier)}, or with {@code reusePort} one socket per loop with SO_REUSEPORT:
     * each loop accepts its own connections (the kernel spreads them, no hand-off), and the port is shared with
     * any other socket that sets SO_REUSEPORT on it — another server's too.
     */
    public TcpServer listen(InetSocketAddress address, Supplier<ConnectionHandler> handlers, boolean reusePort)
            throws IOException {
        int[] fds = new int[reusePort ? loops.length : 1];
        InetSocketAddress bound = address;
        try {
            for (int i = 0; i < fds.length; i++) {
                fds[i] = TcpListener.listen(bound, config.backlog(), reusePort);
                if (i == 0) {
                    bound = TcpSocket.name(fds[0], true);       // port 0: the others join the port picked
                }
            }
        } catch (IOException e) {
            for (int fd : fds) {
                if (fd > 0) {
                    LibC.close(fd);
                }
            }
            throw e;
        }
        LoopNet[] accepting = new LoopNet[fds.length];
        synchronized (servers) {
            for (int i = 0; i < fds.length; i++) {
                accepting[i] = reusePort ? loops[i] : loops[servers.size() % loops.length];
            }
        }
        for (int i = 0; i < fds.length; i++) {
            LoopNet net = accepting[i];
            int fd = fds[i];
            LoopNet[] spreadOver = reusePort ? new LoopNet[] {net} : loops;
            net.loop().execute(() -> net.listen(fd, handlers, spreadOver));
        }
        TcpServer server = new TcpServer(this, bound, fds, accepting);
        synchronized (servers) {
            servers.add(server);
        }
        return server;
    }

    /** Connects to {@code address} from the next loop; the connection opens on it with {@code handler}. */
    public CompletableFuture<Connection> connect(InetSocketAddress address, ConnectionHandler handler) {
        EventLoop loop = uring.loop();
        LoopNet net = loops[loop.id()];
        int fd = Sockets.socket(SocketAddresses.family(address), Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            return CompletableFuture.failedFuture(NetErrors.of("socket", fd));
        }
        CompletableFuture<Connection> result = new CompletableFuture<>();
        try {
            submitConnect(loop, net, fd, address, handler, result);
        } catch (RejectedExecutionException e) {
            LibC.close(fd);
            result.completeExceptionally(e);
        }
        return result;
    }

    private static void submitConnect(EventLoop loop, LoopNet net, int fd, InetSocketAddress address,
                                      ConnectionHandler handler, CompletableFuture<Connection> result) {
        loop.submit(NetOps.connect(fd, address), new io.uring4j.runtime.CompletionHandler() {
            @Override
            public void complete(int res, int flags) {
                if (res < 0) {
                    LibC.close(fd);
                    result.completeExceptionally(NetErrors.of("connect " + address, res));
                } else {
                    result.complete(net.adopt(fd, handler));
                }
            }

            @Override
            public void failed(Throwable cause) {
                LibC.close(fd);
                result.completeExceptionally(cause);
            }
        });
    }

    /** Stops {@code server}'s listeners (open connections stay). */
    void stop(TcpServer server) {
        int[] fds = server.fds();
        for (int i = 0; i < fds.length; i++) {
            LoopNet net = server.acceptors()[i];
            int fd = fds[i];
            try {
                net.loop().execute(() -> net.unlisten(fd));
            } catch (RejectedExecutionException runtimeClosed) {
                // the runtime's close ended the accepts and closed the sockets
            }
        }
    }

    public Config config() {
        return config;
    }

    /**
     * Counters of loop {@code index}: ENOBUFS re-arms, back-pressure pauses, accepted connections, accept pauses
     * for lack of descriptors or memory, connections refused for lack of request slots, whether receive buffers are
     * consumed incrementally, open connections.
     */
    public String stats(int index) {
        LoopNet n = loops[index];
        return "enobufs=" + n.enobufs + " pauses=" + n.backPressurePauses + " accepted=" + n.accepted
                + " acceptPauses=" + n.acceptPauses + " refused=" + n.acceptRefusals
                + " incremental=" + n.buffers().incremental() + " open=" + n.openConnections();
    }

    /** Whether the loops' receive buffers are consumed incrementally (6.12; not on the portable engine). */
    boolean incrementalReceives() {
        return loops[0].buffers().incremental();
    }

    long enobufs() {
        return sum(n -> n.enobufs);
    }

    long accepted() {
        return sum(n -> n.accepted);
    }

    long acceptPauses() {
        return sum(n -> n.acceptPauses);
    }

    long acceptRefusals() {
        return sum(n -> n.acceptRefusals);
    }

    long backPressurePauses() {
        return sum(n -> n.backPressurePauses);
    }

    private long sum(ToLongFunction<LoopNet> counter) {
        long sum = 0;
        for (LoopNet n : loops) {
            sum += counter.applyAsLong(n);
        }
        return sum;
    }

    /**
     * Closes every listener and connection (pending output is dropped) and waits until each loop has released
     * its buffer ring. Idempotent. If the runtime closed first, its close already ended every request.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        for (LoopNet net : loops) {
            if (net != null && net.loop().inLoop()) {
                throw new IllegalStateException("Tcp.close() waits for the loops: call it from another thread");
            }
        }
        closed = true;
        for (LoopNet net : loops) {
            if (net == null) {
                continue;
            }
            try {
                net.loop().execute(net::shutdown);
                net.done.get(30, TimeUnit.SECONDS);
            } catch (RejectedExecutionException runtimeClosed) {
                uring.close();            // waits for the loop: afterwards nothing runs on it any more
                if (!net.done.isDone()) {
                    net.buffers().close();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("uring4j net: loop " + net.loop().id() + " did not shut down", e);
            }
        }
    }

    /** Runs {@code init} on {@code loop}'s thread (the ring is the loop's alone) and returns what it made. */
    private static <T> T onLoop(EventLoop loop, LoopInit<T> init) throws IOException {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                f.complete(init.make());
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    @FunctionalInterface
    private interface LoopInit<T> {
        T make() throws ErrnoException;
    }
}
