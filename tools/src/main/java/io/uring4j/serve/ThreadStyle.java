package io.uring4j.serve;

import io.uring4j.net.TcpListener;
import io.uring4j.net.TcpSocket;
import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The virtual-thread style: a thread per connection writing plain blocking code — read, answer, write — where
 * every read is an io_uring request the thread parks on (a virtual thread unmounts, so a carrier serves other
 * connections meanwhile); HTTP answers are sent without waiting, so they travel with the next read.
 */
final class ThreadStyle implements AutoCloseable {
    private static final int BUFFER = 16 * 1024;
    private static final long FIRST_PAUSE_MILLIS = 10;
    private static final long LONGEST_PAUSE_MILLIS = 1000;

    private final TcpListener listener;
    private final boolean http;
    private final Thread acceptor;
    private final AtomicLong acceptPauses = new AtomicLong();

    /** With {@code reusePort}, the listener shares its port with other servers (SO_REUSEPORT). */
    ThreadStyle(Uring uring, InetSocketAddress address, boolean http, boolean reusePort) throws IOException {
        this.listener = TcpListener.bind(uring, address, 1024, reusePort);
        this.http = http;
        this.acceptor = Thread.ofVirtual().name("uring4j-serve-accept").start(this::acceptLoop);
    }

    InetSocketAddress address() throws IOException {
        return listener.localAddress();
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
                serveHttp(socket, in, arena);
            } else {
                for (int n; (n = socket.read(in)) > 0; ) {
                    socket.write(in.asSlice(0, n));
                }
            }
        } catch (SocketException peerGoneOrServerClosing) {
            // connection reset, broken pipe, or the listener closing: the connection simply ends
        } catch (IOException e) {
            System.err.println("uring4j serve: " + e);
        }
    }

    /**
     * Answers each batch of pipelined requests with one send that is not waited for: the next read goes out with
     * it, and the thread parks once per request instead of twice. The send owns {@code out} until it completes,
     * so it is joined (by then long done: the next request comes after its answer) before {@code out} is reused.
     */
    private static void serveHttp(TcpSocket socket, MemorySegment in, Arena arena) throws IOException {
        RequestSplitter splitter = new RequestSplitter();
        MemorySegment out = arena.allocate(BUFFER);
        CompletableFuture<Void> sending = null;
        try {
            for (int n; (n = socket.read(in)) > 0; ) {
                int requests = splitter.scan(in, n);
                if (requests == 0) {
                    continue;
                }
                sending = finish(sending);
                long used = 0;
                while (requests-- > 0) {
                    byte[] response = HttpResponse.bytes();
                    if (used + response.length > out.byteSize()) {
                        socket.write(out.asSlice(0, used));    // a deep pipeline: flush and go on
                        used = 0;
                    }
                    MemorySegment.copy(response, 0, out, JAVA_BYTE, used, response.length);
                    used += response.length;
                }
                sending = writeAll(socket, out.asSlice(0, used));
            }
        } finally {
            finish(sending);       // the arena (and out) must outlive the send
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
    }
}
