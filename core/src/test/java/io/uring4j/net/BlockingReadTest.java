package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking read's wait ({@link ReadWait}) on a runtime of the test's own: one that waits when the runtime closes,
 * and one that starts after, end with ClosedChannelException, as a request the closed runtime refuses does —
 * instead of trying the socket again and again.
 */
@BothEngines
class BlockingReadTest {
    @Test
    void aReadWhoseRuntimeClosesEndsWithClosedChannelException() throws Exception {
        Uring uring = Uring.builder().loops(1).build();
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             UringSocketChannel client = UringSocketChannel.open(uring, server.getLocalAddress());
             SocketChannel peer = server.accept()) {
            var reader = ClosesAfterEach.blockedOnAVirtualThread(() -> client.read(ByteBuffer.allocate(8)));
            uring.close();
            assertThat(reader.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedChannelException.class);
            CompletableFuture<Throwable> later = CompletableFuture.supplyAsync(() -> {
                try {
                    return new AssertionError("read " + client.read(ByteBuffer.allocate(8)));
                } catch (Throwable e) {
                    return e;
                }
            });
            assertThat(later.get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedChannelException.class);
            assertThat(peer.isOpen()).isTrue();
        } finally {
            uring.close();
        }
    }

    /**
     * The loop runs the arming of a read's poll only in its last round of tasks, after the close began: the read
     * must still hear of it. The loop is held in a task of the test's until the runtime refuses new work.
     */
    @Test
    void aReadWhosePollIsArmedOnlyAsTheRuntimeClosesEnds() throws Exception {
        Uring uring = Uring.builder().loops(1).build();
        CountDownLatch hold = new CountDownLatch(1);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             UringSocketChannel client = UringSocketChannel.open(uring, server.getLocalAddress());
             SocketChannel peer = server.accept()) {
            uring.loop().execute(() -> {
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            var reader = ClosesAfterEach.blockedOnAVirtualThread(() -> client.read(ByteBuffer.allocate(8)));
            Thread closer = Thread.ofPlatform().start(uring::close);
            awaitCondition(() -> {
                try {
                    uring.loop().execute(() -> { });
                    return false;
                } catch (RejectedExecutionException closing) {
                    return true;
                }
            });
            hold.countDown();
            assertThat(reader.failure().get(10, TimeUnit.SECONDS)).isInstanceOf(ClosedChannelException.class);
            closer.join();
            assertThat(peer.isOpen()).isTrue();
        } finally {
            hold.countDown();
            uring.close();
        }
    }
}
