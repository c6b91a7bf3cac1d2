package io.uring4j.net;

import java.net.InetSocketAddress;

/**
 * A listening address of a {@link Tcp}: one socket, or one per loop with SO_REUSEPORT. Closing it stops accepting;
 * connections stay open.
 */
public final class TcpServer implements AutoCloseable {
    private final Tcp tcp;
    private final InetSocketAddress address;
    private final int[] fds;
    /** The loop accepting on each of {@link #fds}. */
    private final LoopNet[] acceptors;
    private boolean closed;

    TcpServer(Tcp tcp, InetSocketAddress address, int[] fds, LoopNet[] acceptors) {
        this.tcp = tcp;
        this.address = address;
        this.fds = fds;
        this.acceptors = acceptors;
    }

    /** The bound address (with the port picked when asked for port 0). */
    public InetSocketAddress localAddress() {
        return address;
    }

    int[] fds() {
        return fds;
    }

    LoopNet[] acceptors() {
        return acceptors;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            tcp.stop(this);
        }
    }
}
