package io.uring4j.net;

import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking read's wait ({@link ReadWait}) on a runtime of the test's own: one that waits when the runtime closes,
 * and one that starts after, end with ClosedChannelException, as a request the closed runtime refuses does —
 * instead of trying the socket again and again; and a crowd of waiting readers, each woken by its own bytes and
 * ended by a close or the peer's EOF, which leaves no poll in flight and no fd open.
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
     * Readers parked at once, each on its own standing poll: every round of bytes wakes each of them (each waits
     * parked before the round is written), then a close ends half of the waits with AsynchronousCloseException and
     * the peers' close the other half with EOF. Nothing stays in flight on the loop, and no fd stays open.
     */
    @Test
    void aCrowdOfParkedReadersEachGetTheirBytesAndTheirEndsLeaveNothingBehind() throws Exception {
        int readers = 500;
        int rounds = 3;
        OpenFds before = OpenFds.snapshot();        // the runtime's too: a portable ring opens its epoll set lazily
        try (Uring uring = Uring.builder().loops(1).build();
             ServerSocketChannel server = ServerSocketChannel.open()
                     .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            List<UringSocketChannel> clients = new ArrayList<>();
            List<SocketChannel> peers = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            List<CompletableFuture<Object>> ends = new ArrayList<>();
            AtomicInteger received = new AtomicInteger();
            for (int i = 0; i < readers; i++) {
                UringSocketChannel client = UringSocketChannel.open(uring, server.getLocalAddress());
                clients.add(client);
                peers.add(server.accept());
                CompletableFuture<Object> end = new CompletableFuture<>();
                ends.add(end);
                threads.add(Thread.ofVirtual().start(() -> {
                    ByteBuffer one = ByteBuffer.allocate(1);
                    try {
                        for (int expected = 1; ; expected++) {
                            one.clear();
                            int n = client.read(one);
                            if (n < 0) {
                                end.complete(n);
                                return;
                            }
                            if (n != 1 || one.get(0) != expected) {
                                end.complete(new AssertionError("read " + n + ", byte " + one.get(0)));
                                return;
                            }
                            received.incrementAndGet();
                        }
                    } catch (Throwable e) {
                        end.complete(e);
                    }
                }));
            }
            for (int round = 1; round <= rounds; round++) {
                awaitCondition(() -> threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
                for (SocketChannel peer : peers) {
                    peer.write(ByteBuffer.wrap(new byte[] {(byte) round}));
                }
                int expected = readers * round;
                awaitCondition(() -> received.get() == expected || ends.stream().anyMatch(CompletableFuture::isDone));
                assertThat(ends).noneMatch(CompletableFuture::isDone);
            }
            awaitCondition(() -> threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
            for (int i = 0; i < readers; i++) {
                (i % 2 == 0 ? clients.get(i) : peers.get(i)).close();
            }
            for (int i = 0; i < readers; i++) {
                Object end = ends.get(i).get(10, TimeUnit.SECONDS);
                if (i % 2 == 0) {
                    assertThat(end).as("reader %d", i).isInstanceOf(AsynchronousCloseException.class);
                } else {
                    assertThat(end).as("reader %d", i).isEqualTo(-1);
                }
            }
            for (int i = 0; i < readers; i++) {
                (i % 2 == 0 ? peers.get(i) : clients.get(i)).close();
            }
            awaitCondition(() -> uring.loop().stats().inFlight() == 0);
        }
        before.awaitNoneOpenedSince();
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
