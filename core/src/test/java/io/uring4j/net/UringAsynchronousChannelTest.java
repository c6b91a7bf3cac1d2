package io.uring4j.net;

import io.uring4j.net.AsyncKit.Pair;
import io.uring4j.net.AsyncKit.Recorder;
import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Fields;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.CompletionHandler;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The asynchronous channel contract against uring4j's provider, on a runtime of the test's own. */
@BothEngines
class UringAsynchronousChannelTest extends AsynchronousChannelContract {
    @UringRuntime(loops = 2)
    private static Uring uring;
    private static AsynchronousChannelProvider provider;

    @BeforeAll
    static void makeProvider() {
        provider = new UringAsynchronousChannelProvider(uring);
    }

    @Override
    AsynchronousChannelProvider provider() {
        return provider;
    }

    @Override
    AsynchronousChannelProvider otherProvider() {
        return AsynchronousChannelProvider.provider();
    }

    /**
     * As the JDK's first try: an accept that finds a connection waiting is made in place, one accept4 on the
     * calling thread: over when it returns, with no request on a loop (Tomcat's connector accepts so after each
     * connection, and pipelined load reconnects every hundred requests).
     */
    @Test
    void anAcceptThatFindsAConnectionWaitingIsMadeInPlace() throws Exception {
        try (AsynchronousServerSocketChannel server = provider.openAsynchronousServerSocketChannel(null);
             AsynchronousSocketChannel client = provider.openAsynchronousSocketChannel(null)) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.connect(server.getLocalAddress()).get(10, TimeUnit.SECONDS);
            long before = submitted();
            Future<AsynchronousSocketChannel> accepted = server.accept();
            assertThat(accepted.isDone()).isTrue();
            assertThat(submitted()).as("requests submitted to the loops").isEqualTo(before);
            try (AsynchronousSocketChannel ch = accepted.get()) {
                assertThat(ch.getRemoteAddress()).isEqualTo(client.getLocalAddress());
            }
        }
    }

    /**
     * A group has a ring per CPU, each with a poller of its own, and spreads its channels over them: the handlers
     * of two channels' reads run on two threads, so a server's handlers use every CPU (with one poller, one thread
     * ran every handler of the group, and Tomcat's connector, busy, used one CPU of two).
     */
    @Test
    void twoChannelsOfAGroupHaveTheirHandlersRunByTwoPollers() throws Exception {
        assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "one CPU: the group has one poller");
        AsynchronousChannelGroup group = provider.openAsynchronousChannelGroup(3, Thread.ofPlatform().factory());
        try (AsynchronousServerSocketChannel server = boundServer(group);
             AsynchronousSocketChannel clientA = provider.openAsynchronousSocketChannel(group);   // rings in turn
             AsynchronousSocketChannel clientB = provider.openAsynchronousSocketChannel(group);
             Pair a = Pair.connect(server, clientA);
             Pair b = Pair.connect(server, clientB)) {
            Recorder<Integer> ranA = readOnce(clientA);
            Recorder<Integer> ranB = readOnce(clientB);              // both wait on the rings: nothing sent yet
            AsyncKit.get(a.accepted().write(ByteBuffer.wrap(new byte[] {1})));
            AsyncKit.get(b.accepted().write(ByteBuffer.wrap(new byte[] {2})));
            ranA.get();
            ranB.get();
            assertThat(ranA.thread).as("the thread that ran b's handler, against a's").isNotSameAs(ranB.thread);
        } finally {
            shutDown(group);
        }
    }

    /**
     * On an executor of two threads (here a ForkJoinPool of parallelism 2), the pollers leave one free: with two
     * channels reading on two rings, an accept's handler, handed to the executor, still runs.
     */
    @Test
    void aGroupOnAForkJoinPoolKeepsAThreadForHandedOverHandlers() throws Exception {
        AsynchronousChannelGroup group = provider.openAsynchronousChannelGroup(new ForkJoinPool(2), 0);
        try (AsynchronousServerSocketChannel server = boundServer(group);
             AsynchronousSocketChannel clientA = provider.openAsynchronousSocketChannel(group);
             AsynchronousSocketChannel clientB = provider.openAsynchronousSocketChannel(group);
             AsynchronousSocketChannel clientC = provider.openAsynchronousSocketChannel(group);
             Pair a = Pair.connect(server, clientA);
             Pair b = Pair.connect(server, clientB)) {
            readOnce(clientA);
            readOnce(clientB);                  // both wait on the rings, whose pollers hold executor threads
            Recorder<AsynchronousSocketChannel> accepted = new Recorder<>();
            server.accept("c", accepted);
            AsyncKit.get(clientC.connect(server.getLocalAddress()));
            try (AsynchronousSocketChannel peerC = accepted.get()) {
                assertThat(peerC.getRemoteAddress()).isEqualTo(clientC.getLocalAddress());
            }
        } finally {
            shutDown(group);
        }
    }

    /**
     * A poller deposed in a blocked handler whose successor the executor refuses keeps the ring: it must not take
     * the deposition for good in the moment before it is given the ring back, and leave the ring with no poller.
     */
    @Test
    void aPollerWhoseSuccessorIsRefusedKeepsPolling() throws Exception {
        CountDownLatch handlerMayReturn = new CountDownLatch(1);
        RefusingSuccessor executor = new RefusingSuccessor(handlerMayReturn);
        AsynchronousChannelGroup group = provider.openAsynchronousChannelGroup(executor, 0);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             AsynchronousSocketChannel channel = provider.openAsynchronousSocketChannel(group)) {
            AsyncKit.get(channel.connect(server.getLocalSocketAddress()));
            try (Socket peer = server.accept()) {
                Recorder<Integer> second = new Recorder<>();
                ByteBuffer into = ByteBuffer.allocate(8);
                channel.read(into, "first", new CompletionHandler<Integer, String>() {
                    @Override
                    public void completed(Integer n, String a) {
                        try {
                            executor.ring = ((UringAsynchronousChannelGroup) group).ring(0);   // the only one
                            executor.poller = Thread.currentThread();
                            handlerMayReturn.await();    // blocked: the watchdog deposes this poller
                        } catch (IOException | InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        channel.read(into, "second", second);
                    }

                    @Override
                    public void failed(Throwable exc, String a) {
                        second.failed(exc, a);
                    }
                });
                peer.getOutputStream().write(1);
                assertThat(executor.refused.await(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                peer.getOutputStream().write(2);
                assertThat(second.get()).isEqualTo(1);
            }
        } finally {
            shutDown(group);
        }
    }

    /**
     * Runs the first poller on a thread of its own and refuses the next task — a deposed poller's successor —
     * once the handler the poller is stuck in has returned, and the poller has either left or waits for the ring's
     * lock to hear whether it is deposed. Runs later tasks on threads of their own.
     */
    private static final class RefusingSuccessor extends AbstractExecutorService {
        final CountDownLatch handlerMayReturn;
        final CountDownLatch refused = new CountDownLatch(1);
        final CountDownLatch pollerLeft = new CountDownLatch(1);
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        volatile AsyncRing ring;
        volatile Thread poller;
        volatile boolean shut;
        private int tasks;

        RefusingSuccessor(CountDownLatch handlerMayReturn) {
            this.handlerMayReturn = handlerMayReturn;
        }

        @Override
        public synchronized void execute(Runnable task) {
            if (shut) {
                throw new RejectedExecutionException("shut down");
            }
            if (++tasks == 2) {
                handlerMayReturn.countDown();
                ReentrantLock lock = ringLock(ring);
                while (pollerLeft.getCount() > 0 && !lock.hasQueuedThread(poller)) {
                    Thread.onSpinWait();
                }
                refused.countDown();
                throw new RejectedExecutionException("the successor");
            }
            boolean first = tasks == 1;
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                try {
                    task.run();
                } finally {
                    if (first) {
                        pollerLeft.countDown();
                    }
                }
            });
            threads.add(t);
        }

        private static ReentrantLock ringLock(AsyncRing ring) {
            return Fields.read(AsyncRing.class, "lock", ring);
        }

        @Override
        public void shutdown() {
            shut = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shut = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shut;
        }

        @Override
        public boolean isTerminated() {
            return shut && threads.stream().noneMatch(Thread::isAlive);
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                    return false;
                }
            }
            return shut;
        }
    }

    private static AsynchronousServerSocketChannel boundServer(AsynchronousChannelGroup group) throws IOException {
        return provider.openAsynchronousServerSocketChannel(group)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /** A read whose handler records the thread it ran on. */
    private static Recorder<Integer> readOnce(AsynchronousSocketChannel channel) {
        Recorder<Integer> recorder = new Recorder<>();
        channel.read(ByteBuffer.allocate(8), "read", recorder);
        return recorder;
    }

    private static void shutDown(AsynchronousChannelGroup group) throws Exception {
        group.shutdownNow();
        assertThat(group.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static long submitted() {
        return uring.loop(0).stats().submitted() + uring.loop(1).stats().submitted();
    }
}
