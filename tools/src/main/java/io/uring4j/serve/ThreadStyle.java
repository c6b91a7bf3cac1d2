package io.uring4j.serve;

import io.uring4j.net.TcpListener;
import io.uring4j.net.TcpSocket;
import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The virtual-thread style: a thread per connection writing plain blocking code — read, answer, write — where
 * every read is an io_uring request the thread parks on (a virtual thread unmounts, so a carrier serves other
 * connections meanwhile); HTTP answers are sent without waiting, so they travel with the next read. A sweeping
 * thread closes HTTP connections idle longer than the idle timeout: their threads' reads end with "Socket closed".
 */
final class ThreadStyle implements Server {
    private static final int BUFFER = 16 * 1024;
    private static final long FIRST_PAUSE_MILLIS = 10;
    private static final long LONGEST_PAUSE_MILLIS = 1000;

    private final TcpListener listener;
    private final InetSocketAddress address;
    private final boolean http;
    private final long idleTimeoutNanos;
    private final Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private final AtomicLong acceptPauses = new AtomicLong();
    private final Thread sweeper;

    /** With {@code reusePort}, the listener shares its port with other servers (SO_REUSEPORT). */
    ThreadStyle(Uring uring, InetSocketAddress address, boolean http, Duration idleTimeout, boolean reusePort)
            throws IOException {
        this.listener = TcpListener.bind(uring, address, 1024, reusePort);
        this.address = listener.localAddress();
        this.http = http;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.acceptor = Thread.ofVirtual().name("uring4j-serve-accept").start(this::acceptLoop);
        this.sweeper = http ? Thread.ofVirtual().name("uring4j-serve-idle").start(() -> sweep(idleTimeout)) : null;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    /**
     * Accepts until the listener closes. A failed accept — out of descriptors or memory (EMFILE and the like), a
     * connection reset in the backlog, or a class that could not be loaded for lack of descriptors — pauses, 10 ms
     * at first and doubling up to a second while failures last, and is said once per run of failures: the
     * connection waits in the backlog, and an accept retried at once would fail at once, in a spin.
     */
    private void acceptLoop() {
        long pauseMillis = 0;
        while (true) {
            TcpSocket socket;
            try {
                socket = listener.accept();
            } catch (IOException | LinkageError e) {
                if (!listener.isOpen()) {
                    return;                     // our own close
                }
                if (pauseMillis == 0) {
                    System.err.println("uring4j serve: accept failed (" + e + "); retrying until it passes");
                }
                pauseMillis = Math.min(Math.max(2 * pauseMillis, FIRST_PAUSE_MILLIS), LONGEST_PAUSE_MILLIS);
                acceptPauses.incrementAndGet();
                try {
                    Thread.sleep(pauseMillis);
                } catch (InterruptedException stop) {
                    return;
                }
                continue;
            }
            pauseMillis = 0;
            Thread.ofVirtual().start(() -> serve(socket));
        }
    }

    /** Accepts that failed and paused the acceptor ({@link #acceptLoop}). */
    long acceptPauses() {
        return acceptPauses.get();
    }

    private void serve(TcpSocket socket) {
        try (socket; Arena arena = Arena.ofConfined()) {
            socket.setNoDelay(true);
            MemorySegment in = arena.allocate(BUFFER);
            if (http) {
                HttpConnection c = new HttpConnection(socket, arena.allocate(BUFFER));
                connections.add(c);
                try {
                    c.serve(in);
                } finally {
                    connections.remove(c);
                }
            } else {
                for (int n; (n = socket.read(in)) > 0; ) {
                    socket.write(in.asSlice(0, n));
                }
            }
        } catch (SocketException peerGoneOrServerClosing) {
            // connection reset, broken pipe, the idle timeout, or the listener closing: the connection simply ends
        } catch (IOException e) {
            System.err.println("uring4j serve: " + e);
        }
    }

    /** Closes the HTTP connections whose last response (or open) is an idle timeout ago, once a period. */
    private void sweep(Duration idleTimeout) {
        long period = Server.sweepPeriod(idleTimeout).toMillis();
        while (listener.isOpen()) {
            try {
                Thread.sleep(period);
            } catch (InterruptedException closing) {
                return;
            }
            long now = System.nanoTime();
            for (HttpConnection c : connections) {
                if (now - c.idleSince >= idleTimeoutNanos) {
                    c.expire();
                }
            }
        }
    }

    /**
     * One HTTP connection's thread: answers each batch of pipelined requests with one send that is not waited
     * for, so the next read goes out with it and the thread parks once per request instead of twice. The send
     * owns {@code out} until it completes, so it is joined (by then long done: the next request comes after its
     * answer) before {@code out} is written again.
     */
    private static final class HttpConnection implements HttpRequests.Responder {
        private final TcpSocket socket;
        private final MemorySegment out;
        private long used;
        private CompletableFuture<Void> sending;
        /** When the last response (or the connection) began this idle spell; read by the sweeper. */
        volatile long idleSince = System.nanoTime();

        HttpConnection(TcpSocket socket, MemorySegment out) {
            this.socket = socket;
            this.out = out;
        }

        void serve(MemorySegment in) throws IOException {
            HttpRequests requests = new HttpRequests(this);
            try {
                for (int n; (n = socket.read(in)) > 0; ) {
                    boolean open = requests.feed(in, 0, n);
                    if (used > 0) {
                        sending = writeAll(socket, out.asSlice(0, used));
                        used = 0;
                    }
                    if (!open) {
                        // The last response: the peer reads end of stream, and its own close (or the idle timeout)
                        // ends the connection, so requests it sent meanwhile do not make the kernel send a reset.
                        sending = finish(sending);
                        socket.shutdownOutput();
                        while (socket.read(in) > 0) {
                            // discarded
                        }
                        return;
                    }
                }
            } finally {
                finish(sending);       // the arena (and out) must outlive the send
            }
        }

        @Override
        public void respond(byte[] response) throws IOException {
            if (used == 0) {
                sending = finish(sending);
            }
            if (used + response.length > out.byteSize()) {
                socket.write(out.asSlice(0, used));    // a deep pipeline: flush and go on
                used = 0;
            }
            MemorySegment.copy(response, 0, out, JAVA_BYTE, used, response.length);
            used += response.length;
            idleSince = System.nanoTime();
        }

        void expire() {
            try {
                socket.close();
            } catch (IOException e) {
                System.err.println("uring4j serve: close of an idle connection: " + e);
            }
        }
    }

    /** Sends all of {@code data} without waiting: the future completes once the kernel has taken every byte. */
    private static CompletableFuture<Void> writeAll(TcpSocket socket, MemorySegment data) {
        return socket.writeAsync(data).thenCompose(n -> n == data.byteSize()
                ? CompletableFuture.completedFuture(null) : writeAll(socket, data.asSlice(n)));
    }

    /** Waits for a send (normally done already); its failure is this connection's. */
    private static CompletableFuture<Void> finish(CompletableFuture<Void> sending)
            throws IOException {
        if (sending != null) {
            try {
                sending.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        acceptor.interrupt();
        if (sweeper != null) {
            sweeper.interrupt();
        }
    }
}
