package io.uring4j.bench.peers;

import io.uring4j.serve.HttpResponse;
import io.uring4j.serve.RequestSplitter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The JDK's own thread-per-connection server: blocking {@code ServerSocketChannel}/{@code SocketChannel} and a
 * virtual thread per connection, the JDK's poller parking them — what uring4j's virtual-thread style is
 * measured against. Direct buffers, one write per pipelined batch, as in uring4j's {@code ThreadStyle}.
 */
final class JdkHttp implements Peer.Server {
    private static final int BUFFER = 16 * 1024;

    private final ServerSocketChannel server;

    JdkHttp(InetSocketAddress address) throws IOException {
        server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(address, 1024);
        } catch (IOException e) {
            server.close();
            throw e;
        }
        Thread.ofVirtual().name("jdk-http-accept").start(this::acceptLoop);
    }

    @Override
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void acceptLoop() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (IOException closed) {
                return;
            }
            Thread.ofVirtual().start(() -> serve(channel));
        }
    }

    private static void serve(SocketChannel channel) {
        try (channel) {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ByteBuffer in = ByteBuffer.allocateDirect(BUFFER);
            ByteBuffer out = ByteBuffer.allocateDirect(BUFFER);
            MemorySegment received = MemorySegment.ofBuffer(in);
            RequestSplitter splitter = new RequestSplitter();
            for (int n; (n = channel.read(in.clear())) > 0; ) {
                out.clear();
                for (int requests = splitter.scan(received, n); requests > 0; requests--) {
                    byte[] response = HttpResponse.bytes();
                    if (out.remaining() < response.length) {
                        writeFully(channel, out.flip());       // a deep pipeline: flush and go on
                        out.clear();
                    }
                    out.put(response);
                }
                writeFully(channel, out.flip());               // one write for the whole pipelined batch
            }
        } catch (IOException peerGoneOrServerClosing) {
            // connection reset, broken pipe, or the server closing: the connection simply ends
        }
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
