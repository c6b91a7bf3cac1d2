package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many connections through one selector, against the JDK's with the same code: an echo of 200, and readiness
 * cleared on other threads than the selecting one, as servers hand reads to workers: a worker reads
 * until nothing is left (clearing the cached readiness) while the selector reaps the reports of new data and
 * passes over the keys a worker has. A lost report leaves a connection's last bytes unread for ever: the test would hang, so it is
 * bounded by a generous timeout instead; a spurious one only costs a read of 0.
 */
@BothEngines
class SelectorLoadTest extends ClosesAfterEach {
    private static final int CONNECTIONS = 16;
    private static final int MESSAGES = 300;
    private static final int SIZE = 700;

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);


    private static SelectorProvider provider(String impl) {
        return impl.equals("jdk") ? SelectorProvider.provider() : new UringSelectorProvider();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void readsOnWorkerThreadsNeverLoseReadiness(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        List<SocketChannel> channels = new ArrayList<>();
        AtomicLong received = new AtomicLong();
        try (ServerSocketChannel server = provider.openServerSocketChannel()
                .bind(LOOPBACK);
             Selector selector = provider.openSelector();
             ExecutorService workers = Executors.newFixedThreadPool(4);
             ExecutorService writers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel c = provider.openSocketChannel();
                c.connect(server.getLocalAddress());
                SocketChannel s = server.accept();
                s.configureBlocking(false);
                s.register(selector, SelectionKey.OP_READ, new AtomicBoolean());
                channels.add(c);
                channels.add(s);
            }
            for (int i = 0; i < channels.size(); i += 2) {
                SocketChannel c = channels.get(i);
                writers.submit(() -> {
                    for (int m = 0; m < MESSAGES; m++) {
                        c.write(ByteBuffer.allocate(SIZE));
                        Thread.yield();
                    }
                    return null;
                });
            }
            long expected = (long) CONNECTIONS * MESSAGES * SIZE;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received.get() < expected) {
                assertThat(System.nanoTime() - deadline).as("all data read in time: " + received.get()).isNegative();
                selector.select(100);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    AtomicBoolean busy = (AtomicBoolean) key.attachment();
                    if (busy.compareAndSet(false, true)) {       // the interest stays: no re-arm hides a lost report
                        workers.submit(() -> {
                            drain((SocketChannel) key.channel(), received);
                            busy.set(false);
                            selector.wakeup();
                            return null;
                        });
                    }
                }
            }
            assertThat(received.get()).isEqualTo(expected);
        } finally {
            for (SocketChannel c : channels) {
                c.close();
            }
        }
    }

    private static void drain(SocketChannel channel, AtomicLong received) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE / 3);
        int n;
        while ((n = channel.read(buffer.clear())) > 0) {
            received.addAndGet(n);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void twoHundredConnectionsEchoThroughOneSelector(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        Selector selector = closing(provider.openSelector());
        ServerSocketChannel server = closing(provider.openServerSocketChannel()).bind(LOOPBACK);
        server.configureBlocking(false);
        server.register(selector, OP_ACCEPT);
        int connections = 200;
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            try {
                serveEcho(selector, server, connections);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        List<SocketChannel> clients = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SocketChannel c = closing(provider.openSocketChannel());
            c.connect(server.getLocalAddress());
            clients.add(c);
        }
        for (int i = 0; i < connections; i++) {
            clients.get(i).write(ByteBuffer.wrap(("hello " + i + " ").repeat(100).getBytes()));
        }
        for (int i = 0; i < connections; i++) {
            byte[] expected = ("hello " + i + " ").repeat(100).getBytes();
            ByteBuffer in = ByteBuffer.allocate(expected.length);
            while (in.hasRemaining()) {
                assertThat(clients.get(i).read(in)).isPositive();
            }
            assertThat(in.array()).isEqualTo(expected);
            clients.get(i).close();
        }
        echo.get(30, TimeUnit.SECONDS);
    }

    /**
     * 10,000 connections, one after another, each accepted, registered, echoed and closed through one selector:
     * afterwards every fd they had is closed, the selector holds no key of theirs, and uring4j's tracked native
     * memory is what it was.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void tenThousandConnectionsComeAndGoLeavingNothingBehind(String impl) throws Exception {
        SelectorProvider provider = provider(impl);
        Selector selector = closing(provider.openSelector());
        ServerSocketChannel server = closing(provider.openServerSocketChannel()).bind(LOOPBACK);
        server.configureBlocking(false);
        server.register(selector, OP_ACCEPT);
        int connections = 10_000;
        CompletableFuture<Void> echo = CompletableFuture.runAsync(() -> {
            try {
                serveEcho(selector, server, connections);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        ByteBuffer in = ByteBuffer.allocate(1);
        OpenFds fds = null;
        long nativeBefore = 0;
        for (int i = 0; i < connections; i++) {
            try (SocketChannel c = provider.openSocketChannel()) {
                c.connect(server.getLocalAddress());
                c.write(ByteBuffer.wrap(new byte[] {(byte) i}));
                assertThat(c.read(in.clear())).isEqualTo(1);
                assertThat(in.get(0)).isEqualTo((byte) i);
            }
            if (i == 0) {
                fds = OpenFds.snapshot();                   // with the first one's loops and rings up
                nativeBefore = NativeMemory.inUse();
            }
        }
        echo.get(120, TimeUnit.SECONDS);
        selector.selectNow();           // the last closed channel's key goes, and its fd with it, at a select
        fds.awaitNoneOpenedSince();
        assertThat(selector.keys()).hasSize(1);             // the listener's
        assertThat(NativeMemory.inUse()).as("tracked native memory").isEqualTo(nativeBefore);
    }

    /** Echoes on every connection until {@code connections} have come and gone. */
    private void serveEcho(Selector selector, ServerSocketChannel server, int connections) throws IOException {
        int closed = 0;
        ByteBuffer buffer = ByteBuffer.allocateDirect(512);
        while (closed < connections) {
            selector.select(10_000);
            for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                if (key.isAcceptable()) {
                    SocketChannel c;
                    while ((c = server.accept()) != null) {
                        closing(c).configureBlocking(false);
                        c.register(selector, OP_READ, ByteBuffer.allocate(0));
                    }
                    continue;
                }
                SocketChannel c = (SocketChannel) key.channel();
                ByteBuffer pending = (ByteBuffer) key.attachment();
                if (key.isValid() && key.isWritable()) {
                    c.write(pending);
                }
                if (key.isValid() && key.isReadable() && !pending.hasRemaining()) {
                    int n = c.read(buffer.clear());
                    if (n < 0) {
                        c.close();
                        closed++;
                        continue;
                    }
                    pending = ByteBuffer.allocate(n).put(buffer.flip()).flip();
                    c.write(pending);
                    key.attach(pending);
                }
                key.interestOps(pending.hasRemaining() ? OP_WRITE : OP_READ);
            }
        }
    }
}
