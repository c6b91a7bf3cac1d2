package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The loop's receive buffers consumed incrementally (IOU_PBUF_RING_INC): small receives pack into one buffer, so
 * the ring runs dry on bytes, not on the number of receives in a batch.
 */
@BothEngines
class IncrementalReceiveTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final long WAIT_SECONDS = 10;

    /** Where one onData's bytes were: the buffer's address and the offset in it. */
    private record Delivery(long buffer, long offset, int length) {
    }

    @Test
    void aConnectionsSecondReceiveLandsBehindItsFirstInTheSameBuffer() throws Exception {
        BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> (connection, data, offset, length) -> {
                deliveries.add(new Delivery(data.address(), offset, length));
                connection.write(data, offset, length);
            });
            try (SocketChannel client = SocketChannel.open(server.localAddress())) {
                Delivery first = echo(client, "abc", deliveries);
                Delivery second = echo(client, "defg", deliveries);
                if (tcp.incrementalReceives()) {
                    assertThat(second).isEqualTo(new Delivery(first.buffer, first.offset + 3, 4));
                } else {
                    assertThat(second.offset).as("a whole buffer per receive").isZero();
                }
            }
        }
    }

    /**
     * 64 connections' requests arrive while the loop is held in a handler, so the next enter receives all of them
     * at once, with 4 buffers in the ring: whole buffers run out after 4 (ENOBUFS, re-armed, nothing lost);
     * incrementally consumed ones hold every request.
     */
    @Test
    void aBatchOfMoreReceivesThanBuffersFitsWhenBuffersAreConsumedIncrementally() throws Exception {
        int connections = 64;
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Tcp.Config config = Tcp.Config.defaults().withRecvBuffers(4, 4096);
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring, config)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> (connection, data, offset, length) -> {
                if (data.get(ValueLayout.JAVA_BYTE, offset) == 'H') {
                    held.countDown();
                    awaitQuietly(release);
                }
                connection.write(data, offset, length);
            });
            List<SocketChannel> clients = new ArrayList<>();
            try {
                for (int i = 0; i < connections + 1; i++) {
                    SocketChannel client = SocketChannel.open(server.localAddress());
                    clients.add(client);
                    assertThat(echo(client, "x")).isEqualTo("x");      // accepted, and its receive armed
                }
                long enobufsBefore = tcp.enobufs();
                clients.getLast().write(ByteBuffer.wrap(new byte[] {'H'}));
                assertThat(held.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                for (int i = 0; i < connections; i++) {
                    clients.get(i).write(ByteBuffer.wrap(("request " + i).getBytes()));
                }
                release.countDown();
                for (int i = 0; i < connections; i++) {
                    assertThat(readString(clients.get(i), ("request " + i).length())).isEqualTo("request " + i);
                }
                assertThat(readString(clients.getLast(), 1)).isEqualTo("H");
                long enobufs = tcp.enobufs() - enobufsBefore;
                if (tcp.incrementalReceives()) {
                    assertThat(enobufs).as("ENOBUFS with %s", tcp.stats(0)).isZero();
                } else {
                    assertThat(enobufs).as("whole buffers run out: ENOBUFS with %s", tcp.stats(0)).isPositive();
                }
            } finally {
                release.countDown();
                for (SocketChannel client : clients) {
                    client.close();
                }
            }
        }
    }

    /**
     * A stream through four 4 KiB buffers, in odd-sized writes: receives start mid-buffer (incrementally) and the
     * ring cycles thousands of times; the handler gets at most a buffer's worth per call, and every byte in order.
     */
    @Test
    void aStreamThroughFourBuffersArrivesWholeAndInOrder() throws Exception {
        int bufferSize = 4096;
        AtomicInteger largest = new AtomicInteger();
        AtomicInteger midBuffer = new AtomicInteger();
        Tcp.Config config = Tcp.Config.defaults().withRecvBuffers(4, bufferSize);
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring, config)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> (connection, data, offset, length) -> {
                largest.accumulateAndGet(length, Math::max);
                if (offset > 0) {
                    midBuffer.incrementAndGet();
                }
                connection.write(data, offset, length);
            });
            Clients.echoAndCheck(server.localAddress(), 42, 8L << 20, 7_919);
            assertThat(largest.get()).as("at most a buffer per onData").isLessThanOrEqualTo(bufferSize);
            if (tcp.incrementalReceives()) {
                assertThat(midBuffer.get()).as("receives that started behind another's bytes").isPositive();
            }
        }
    }

    private static Delivery echo(SocketChannel client, String text, BlockingQueue<Delivery> deliveries)
            throws Exception {
        assertThat(echo(client, text)).isEqualTo(text);
        Delivery d = deliveries.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(d).isNotNull();
        assertThat(d.length).as("one receive").isEqualTo(text.length());
        return d;
    }

    private static String echo(SocketChannel client, String text) throws Exception {
        client.write(ByteBuffer.wrap(text.getBytes()));
        return readString(client, text.length());
    }

    private static String readString(SocketChannel client, int length) throws Exception {
        return new String(Clients.readFully(client, length));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
