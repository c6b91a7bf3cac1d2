package io.uring4j.serve;

import io.uring4j.net.Connection;
import io.uring4j.net.ConnectionHandler;
import io.uring4j.net.Tcp;
import io.uring4j.net.TcpServer;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The loop style: connections live on the event loops, handlers run there and never block. One loop accepts and
 * hands connections to the loops in turn (with {@code --reuse-port}, each loop accepts its own on a socket of its
 * own), each receives into its buffer ring, and sends each batch of responses in one
 * SEND after the handler returns — pipelined requests in one read cost one write. HTTP connections idle longer
 * than the idle timeout are closed by a sweep on each loop's timer.
 */
final class LoopStyle implements Server {
    private final Tcp tcp;
    private final TcpServer server;
    private final List<Sweep> sweeps = new ArrayList<>();

    /** With {@code reusePort}, the port is shared with other servers (SO_REUSEPORT). */
    LoopStyle(Uring uring, InetSocketAddress address, boolean http, Duration idleTimeout, boolean reusePort)
            throws IOException {
        tcp = Tcp.open(uring);
        Supplier<ConnectionHandler> handlers = () -> ECHO;
        if (http) {
            Sweep[] byLoop = new Sweep[uring.loopCount()];
            for (int i = 0; i < byLoop.length; i++) {
                byLoop[i] = new Sweep(uring.loop(i), idleTimeout);
                sweeps.add(byLoop[i]);
                uring.loop(i).execute(byLoop[i]::arm);
            }
            handlers = () -> new Http(byLoop);
        }
        server = tcp.listen(address, handlers, reusePort);
    }

    @Override
    public InetSocketAddress address() {
        return server.localAddress();
    }

    /** Stateless, so one instance serves every connection. */
    private static final ConnectionHandler ECHO =
            (connection, data, offset, length) -> connection.write(data, offset, length);

    /** One per connection: the request framing carries a partial request across reads. */
    private static final class Http implements ConnectionHandler, HttpRequests.Responder {
        private final Sweep[] sweeps;
        private final HttpRequests requests = new HttpRequests(this);
        private Connection connection;
        private Sweep sweep;
        /** This connection's place in its sweep's list. */
        private int index;
        /** When the last response (or the connection) began this idle spell. */
        private long idleSince;
        /** A response was written in this callback: the idle spell starts again once it returns. */
        private boolean answered;

        Http(Sweep[] sweeps) {
            this.sweeps = sweeps;
        }

        @Override
        public void onOpen(Connection c) {
            connection = c;
            sweep = sweeps[c.loop().id()];
            sweep.add(this);
        }

        @Override
        public void onData(Connection c, MemorySegment data, long offset, int length) {
            try {
                boolean open = requests.feed(data, offset, length);
                if (answered) {
                    answered = false;
                    idleSince = System.nanoTime();      // once per read, however many requests it held
                }
                if (!open) {
                    // The last response sent, the peer reads end of stream; its own close (or the idle timeout)
                    // ends the connection, so requests it sent meanwhile do not make the kernel answer with a reset.
                    c.shutdownOutput();
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);     // a loop connection's writes do not throw
            }
        }

        @Override
        public void respond(byte[] response) {
            connection.write(response);
            answered = true;
        }

        @Override
        public void onClose(Connection c, IOException cause) {
            sweep.remove(this);
        }

        /**
         * Ends the connection now, dropping output a peer that never reads would hold forever: shutdown ends
         * the receive with end of stream and a blocked send with EPIPE, and the connection closes itself.
         */
        void expire() {
            Sockets.shutdown(connection.fd(), Sockets.SHUT_RDWR);
        }
    }

    /**
     * One loop's HTTP connections and a timer of that loop that closes those idle for the idle timeout
     * ({@link Server#sweepPeriod}): one request slot per loop, nothing allocated per request. The connections
     * read the real clock, not the sweep's: a busy loop may run its timer seconds late, and a time taken then
     * would make a connection answered just now look idle since the sweep before.
     */
    private static final class Sweep implements CompletionHandler {
        private final EventLoop loop;
        private final long timeoutNanos;
        private final Op timer;
        private final ArrayList<Http> connections = new ArrayList<>();
        private volatile boolean stopped;

        Sweep(EventLoop loop, Duration idleTimeout) {
            this.loop = loop;
            this.timeoutNanos = idleTimeout.toNanos();
            this.timer = Op.timeout(Server.sweepPeriod(idleTimeout));
        }

        void arm() {
            loop.submit(timer, this);
        }

        void add(Http h) {
            h.index = connections.size();
            h.idleSince = System.nanoTime();
            connections.add(h);
        }

        void remove(Http h) {
            Http last = connections.removeLast();
            if (last != h) {
                connections.set(h.index, last);
                last.index = h.index;
            }
        }

        @Override
        public void complete(int result, int flags) {
            if (!Op.isTimerExpiry(result) || stopped) {
                return;                                 // cancelled: the runtime is closing
            }
            long now = System.nanoTime();
            for (int i = 0; i < connections.size(); i++) {   // expire only asks: the list changes on later CQEs
                Http h = connections.get(i);
                if (now - h.idleSince >= timeoutNanos) {
                    h.expire();
                }
            }
            arm();
        }

        @Override
        public void failed(Throwable cause) {
            // the runtime is closing
        }
    }

    @Override
    public void close() {
        for (Sweep s : sweeps) {
            s.stopped = true;
        }
        server.close();
        tcp.close();
    }
}
