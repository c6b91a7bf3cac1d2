package io.uring4j.serve;

import io.uring4j.net.Connection;
import io.uring4j.net.ConnectionHandler;
import io.uring4j.net.Tcp;
import io.uring4j.net.TcpServer;
import io.uring4j.runtime.Uring;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.function.Supplier;

/**
 * The loop style: connections live on the event loops, handlers run there and never block. Each loop accepts
 * its own connections (SO_REUSEPORT), receives into its buffer ring, and sends each batch of responses in one
 * SEND after the handler returns — pipelined requests in one read cost one write.
 */
final class LoopStyle implements AutoCloseable {
    private final Tcp tcp;
    private final TcpServer server;

    LoopStyle(Uring uring, InetSocketAddress address, boolean http) throws IOException {
        tcp = Tcp.open(uring);
        Supplier<ConnectionHandler> handlers = http ? Http::new : () -> ECHO;
        server = tcp.listen(address, handlers);
    }

    InetSocketAddress address() {
        return server.localAddress();
    }

    /** Stateless, so one instance serves every connection. */
    private static final ConnectionHandler ECHO = (connection, data, length) -> connection.write(data, 0, length);

    /** One per connection: the request splitter carries a partial request across reads. */
    private static final class Http implements ConnectionHandler {
        private final RequestSplitter splitter = new RequestSplitter();

        @Override
        public void onData(Connection connection, MemorySegment data, int length) {
            for (int n = splitter.scan(data, length); n > 0; n--) {
                connection.write(HttpResponse.bytes());
            }
        }
    }

    @Override
    public void close() {
        server.close();
        tcp.close();
    }
}
