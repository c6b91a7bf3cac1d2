package io.uring4j.net;

import io.uring4j.testkit.BothEngines;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readiness cleared on other threads than the selecting one, as servers hand reads to workers: a worker reads
 * until nothing is left (clearing the cached readiness) while the selector reaps the reports of new data and
 * passes over the keys a worker has. A lost report leaves a connection's last bytes unread for ever: the test would hang, so it is
 * bounded by a generous timeout instead; a spurious one only costs a read of 0.
 */
@BothEngines
class SelectorRaceTest {
    private static final int CONNECTIONS = 16;
    private static final int MESSAGES = 300;
    private static final int SIZE = 700;

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "uring"})
    void readsOnWorkerThreadsNeverLoseReadiness(String impl) throws Exception {
        SelectorProvider provider = impl.equals("jdk") ? SelectorProvider.provider() : new UringSelectorProvider();
        List<SocketChannel> channels = new ArrayList<>();
        AtomicLong received = new AtomicLong();
        try (ServerSocketChannel server = provider.openServerSocketChannel()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
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
}
