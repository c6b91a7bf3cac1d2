package io.uring4j.net;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousServerSocketChannel;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.IllegalChannelGroupException;
import java.nio.channels.ShutdownChannelGroupException;
import java.nio.channels.spi.AsynchronousChannelProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.uring4j.net.AsyncKit.Pair;
import static io.uring4j.net.AsyncKit.Recorder;
import static io.uring4j.net.AsyncKit.get;
import static io.uring4j.net.AsyncKit.named;
import static io.uring4j.testkit.Patterns.pattern;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The channel groups' contract — lifecycle, and which thread runs a handler — and what the channel contract
 * ({@link AsynchronousChannelContract}) builds on: the provider under test and a group per test.
 */
abstract class AsynchronousGroupContract {
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** The provider under test. */
    abstract AsynchronousChannelProvider provider();

    /** Another provider, whose groups the one under test must refuse. */
    abstract AsynchronousChannelProvider otherProvider();

    /** A withThreadPool group whose handler threads are named "contract-handler-N"; shut down after each test. */
    AsynchronousChannelGroup group;

    @BeforeEach
    void openGroup() throws IOException {
        group = provider().openAsynchronousChannelGroup(Executors.newCachedThreadPool(named("contract-handler-")), 0);
    }

    @AfterEach
    void shutDownGroup() throws Exception {
        group.shutdownNow();
        assertThat(group.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).as("group terminated").isTrue();
        assertThat(group.isTerminated()).isTrue();
    }

    AsynchronousServerSocketChannel server() throws IOException {
        return provider().openAsynchronousServerSocketChannel(group).bind(LOOPBACK);
    }

    AsynchronousSocketChannel client() throws IOException {
        return provider().openAsynchronousSocketChannel(group);
    }

    Pair pair(AsynchronousServerSocketChannel server) throws Exception {
        return Pair.connect(server, client());
    }


    @Test
    void groupShutdownWaitsForItsChannels() throws Exception {
        AsynchronousChannelGroup g = provider().openAsynchronousChannelGroup(
                Executors.newCachedThreadPool(named("shutdown-")), 0);
        AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(g).bind(LOOPBACK);
        g.shutdown();
        assertThat(g.isShutdown()).isTrue();
        assertThatThrownBy(() -> provider().openAsynchronousSocketChannel(g))
                .isExactlyInstanceOf(ShutdownChannelGroupException.class);
        assertThat(g.awaitTermination(10, TimeUnit.MILLISECONDS)).as("a channel is open").isFalse();
        assertThat(g.isTerminated()).isFalse();
        server.close();
        assertThat(g.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(g.isTerminated()).isTrue();
    }


    @Test
    void groupShutdownNowClosesItsChannels() throws Exception {
        AsynchronousChannelGroup g = provider().openAsynchronousChannelGroup(2, named("fixed-"));
        AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(g).bind(LOOPBACK);
        Recorder<AsynchronousSocketChannel> accept = new Recorder<>();
        server.accept("pending", accept);
        try (AsynchronousServerSocketChannel other = server(); Pair p = pair(other)) {
            AsynchronousSocketChannel inG = provider().openAsynchronousSocketChannel(g);
            Future<AsynchronousSocketChannel> accepting = other.accept();
            get(inG.connect(other.getLocalAddress()));
            AsynchronousSocketChannel peer = get(accepting);
            Recorder<Integer> read = new Recorder<>();
            inG.read(ByteBuffer.allocate(4), 0, TimeUnit.SECONDS, "read", read);
            g.shutdownNow();
            assertThat(server.isOpen()).isFalse();
            assertThat(inG.isOpen()).isFalse();
            assertThat(accept.failure()).isExactlyInstanceOf(AsynchronousCloseException.class);
            assertThat(accept.thread.getName()).startsWith("fixed-");
            assertThat(read.failure()).isExactlyInstanceOf(AsynchronousCloseException.class);
            assertThat(g.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            peer.close();
            assertThat(p.client().isOpen()).as("another group's channel").isTrue();
        }
    }


    @Test
    void fixedThreadPoolGroupsRunHandlersOnTheirThreads() throws Exception {
        AsynchronousChannelGroup g = provider().openAsynchronousChannelGroup(2, named("fixed-"));
        try (AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(g).bind(LOOPBACK)) {
            AsyncKit.echoServer(server, true);
            AsynchronousSocketChannel ch = provider().openAsynchronousSocketChannel(g);
            Recorder<Void> connect = new Recorder<>();
            ch.connect(server.getLocalAddress(), "c", connect);
            connect.get();
            assertThat(connect.thread.getName()).startsWith("fixed-");
            assertThat(get(AsyncKit.roundTrip(ch, pattern(8, 100_000), false))).isEqualTo(pattern(8, 100_000));
            ch.close();
        } finally {
            g.shutdownNow();
            assertThat(g.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
        assertThatThrownBy(() -> provider().openAsynchronousChannelGroup(0, named("none-")))
                .isExactlyInstanceOf(IllegalArgumentException.class);
    }


    @Test
    void theDefaultGroupNeedsNoGroupCode() throws Exception {
        try (AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(null).bind(LOOPBACK);
             AsynchronousSocketChannel ch = provider().openAsynchronousSocketChannel(null)) {
            AsyncKit.echoServer(server, false);
            Recorder<Void> connect = new Recorder<>();
            ch.connect(server.getLocalAddress(), "c", connect);
            connect.get();
            assertThat(get(AsyncKit.roundTrip(ch, pattern(9, 50_000), true))).isEqualTo(pattern(9, 50_000));
        }
    }


    @Test
    void aGroupOfAnotherProviderIsRefused() throws Exception {
        AsynchronousChannelGroup foreign = otherProvider().openAsynchronousChannelGroup(
                Executors.newCachedThreadPool(named("foreign-")), 0);
        try {
            assertThatThrownBy(() -> provider().openAsynchronousSocketChannel(foreign))
                    .isExactlyInstanceOf(IllegalChannelGroupException.class);
            assertThatThrownBy(() -> provider().openAsynchronousServerSocketChannel(foreign))
                    .isExactlyInstanceOf(IllegalChannelGroupException.class);
        } finally {
            foreign.shutdownNow();
        }
    }


    /** An executor the group was given is the one handlers run on; after the group ends it is shut down. */
    @Test
    void withThreadPoolShutsTheExecutorDownAtTermination() throws Exception {
        ExecutorService executor = Executors.newCachedThreadPool(named("given-"));
        AsynchronousChannelGroup g = provider().openAsynchronousChannelGroup(executor, 0);
        g.shutdown();
        assertThat(g.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(executor.isShutdown()).isTrue();
    }

    /** An outcome known at once, started on a thread outside the group, is handed to the group's executor. */
    @Test
    void anImmediateOutcomeOffTheGroupRunsOnTheGroupsExecutor() throws Exception {
        AsynchronousSocketChannel closed = client();
        closed.close();
        Recorder<Integer> read = new Recorder<>();
        closed.read(ByteBuffer.allocate(1), 0, TimeUnit.SECONDS, "closed", read);
        assertThat(read.failure()).isExactlyInstanceOf(ClosedChannelException.class);
        assertThat(read.thread.getName()).startsWith("contract-handler-");
    }

    /**
     * Handlers that start operations completing at once run directly on the group's thread — but at most 16
     * nested (the JDK's sun.nio.ch.maxCompletionHandlersOnStack): then the next goes to the executor.
     */
    @Test
    void handlersStartingImmediateOperationsNestAtMostSixteenDeep() throws Exception {
        AsynchronousSocketChannel closed = client();
        closed.close();
        ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
        AtomicInteger deepest = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        CompletableFuture<Void> done = new CompletableFuture<>();
        closed.read(ByteBuffer.allocate(1), null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void unused) {
                done.completeExceptionally(new AssertionError("read " + n + " from a closed channel"));
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                int[] d = depth.get();
                deepest.accumulateAndGet(++d[0], Math::max);
                try {
                    if (handled.incrementAndGet() < 100) {
                        closed.read(ByteBuffer.allocate(1), null, this);
                    } else {
                        done.complete(null);
                    }
                } finally {
                    d[0]--;
                }
            }
        });
        get(done);
        assertThat(deepest.get()).isEqualTo(16);
    }

    /**
     * A read of data already there and a write the socket has room for are done in place, as the JDK's: on one of
     * the group's threads the handler runs before the call returns, on that thread.
     */
    @Test
    void operationsTheSocketIsReadyForCompleteOnTheGroupsThreadInPlace() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            get(p.client().write(ByteBuffer.wrap(new byte[] {1, 2, 3})));
            CompletableFuture<String> seen = new CompletableFuture<>();
            onGroupThread(() -> {
                Thread caller = Thread.currentThread();
                Recorder<Integer> read = new Recorder<>();
                Recorder<Integer> write = new Recorder<>();
                p.accepted().read(ByteBuffer.allocate(8), 0, TimeUnit.SECONDS, "read", read);
                boolean readInPlace = read.outcome.isDone() && read.thread == caller;
                p.accepted().write(ByteBuffer.allocateDirect(3).put(new byte[] {4, 5, 6}).flip(), 0, TimeUnit.SECONDS,
                        "write", write);
                boolean writeInPlace = write.outcome.isDone() && write.thread == caller;
                seen.complete("read in place: " + readInPlace + " (" + read.outcome.getNow(null) + " bytes)"
                        + ", write in place: " + writeInPlace + " (" + write.outcome.getNow(null) + " bytes)");
            });
            assertThat(get(seen)).isEqualTo("read in place: true (3 bytes), write in place: true (3 bytes)");
        }
    }

    /** The same started off the group: done at once, but the handler runs on the group's executor. */
    @Test
    void operationsDoneInPlaceOffTheGroupRunTheirHandlersOnTheExecutor() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            Future<Integer> written = p.client().write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertThat(written.isDone()).as("a write the socket has room for is done when write returns").isTrue();
            assertThat(written.get()).isEqualTo(3);
            Recorder<Integer> read = new Recorder<>();
            p.accepted().read(ByteBuffer.allocate(8), 0, TimeUnit.SECONDS, "read", read);
            assertThat(read.get()).isEqualTo(3);
            assertThat(read.thread.getName()).startsWith("contract-handler-");
        }
    }

    /**
     * As the JDK binds them: an executor thread that has run one of the group's handlers stays one of the group's
     * threads, so a task of the application's own on it runs the handler of an operation done in place directly.
     */
    @Test
    void anExecutorThreadStaysTheGroupsOnceItRanAHandler() throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor(named("single-"));
        AsynchronousChannelGroup g = provider().openAsynchronousChannelGroup(executor, 0);
        try (AsynchronousServerSocketChannel server = provider().openAsynchronousServerSocketChannel(g).bind(LOOPBACK);
             Pair p = Pair.connect(server, provider().openAsynchronousSocketChannel(g))) {
            AsynchronousSocketChannel closed = provider().openAsynchronousSocketChannel(g);
            closed.close();
            Recorder<Integer> first = new Recorder<>();
            closed.read(ByteBuffer.allocate(1), 0, TimeUnit.SECONDS, "closed", first);
            assertThat(first.failure()).isExactlyInstanceOf(ClosedChannelException.class);
            get(p.client().write(ByteBuffer.wrap(new byte[] {7})));
            Future<Boolean> direct = executor.submit(() -> {
                Recorder<Integer> read = new Recorder<>();
                p.accepted().read(ByteBuffer.allocate(8), 0, TimeUnit.SECONDS, "read", read);
                return read.outcome.isDone() && read.thread == Thread.currentThread();
            });
            assertThat(get(direct)).as("handler run directly by the application's task").isTrue();
        } finally {
            g.shutdownNow();
            assertThat(g.awaitTermination(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** A handler that blocks holds up its own channel only: another channel's read still completes meanwhile. */
    @Test
    void aBlockedHandlerDoesNotStallOtherChannels() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair a = pair(server); Pair b = pair(server)) {
            java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            a.accepted().read(ByteBuffer.allocate(8), null, new CompletionHandler<Integer, Void>() {
                @Override
                public void completed(Integer n, Void unused) {
                    blocked.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void failed(Throwable exc, Void unused) {
                    blocked.countDown();
                }
            });
            get(a.client().write(ByteBuffer.wrap(new byte[] {1})));
            assertThat(blocked.await(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            try {
                Recorder<Integer> other = new Recorder<>();
                b.accepted().read(ByteBuffer.allocate(8), 0, TimeUnit.SECONDS, "other", other);
                get(b.client().write(ByteBuffer.wrap(new byte[] {2, 3})));
                assertThat(other.get()).as("the other channel's read, while the first handler blocks").isEqualTo(2);
            } finally {
                release.countDown();
            }
        }
    }

    /**
     * Completions that arrive together with one whose handler blocks still run: on uring4j's provider they are
     * often reaped in one batch by the thread that then blocks, and go to the poller that takes over.
     */
    @Test
    void completionsArrivingWithABlockedHandlersStillRun() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair a = pair(server); Pair b = pair(server);
             Pair c = pair(server)) {
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            AtomicInteger blocked = new AtomicInteger();
            List<Recorder<Integer>> reads = new ArrayList<>();
            for (Pair p : List.of(a, b, c)) {
                Recorder<Integer> read = new Recorder<>();
                reads.add(read);
                p.accepted().read(ByteBuffer.allocate(8), 0, TimeUnit.SECONDS, "read",
                        new CompletionHandler<Integer, String>() {
                            @Override
                            public void completed(Integer n, String attachment) {
                                read.completed(n, attachment);
                                if (blocked.getAndIncrement() == 0) {       // the first handler blocks
                                    try {
                                        release.await();
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                }
                            }

                            @Override
                            public void failed(Throwable exc, String attachment) {
                                read.failed(exc, attachment);
                            }
                        });
            }
            try {
                for (Pair p : List.of(a, b, c)) {
                    p.client().write(ByteBuffer.wrap(new byte[] {1}));
                }
                for (Recorder<Integer> read : reads) {
                    assertThat(read.get()).as("each read, while one handler blocks").isEqualTo(1);
                }
            } finally {
                release.countDown();
            }
        }
    }

    /** A handler may wait on a future of the group's: the operation completes although it waits on a group thread. */
    @Test
    void aHandlerMayWaitForAFutureOfItsGroup() throws Exception {
        try (AsynchronousServerSocketChannel server = server(); Pair p = pair(server)) {
            CompletableFuture<Integer> waited = new CompletableFuture<>();
            java.util.concurrent.CountDownLatch reading = new java.util.concurrent.CountDownLatch(1);
            p.accepted().read(ByteBuffer.allocate(8), null, new CompletionHandler<Integer, Void>() {
                @Override
                public void completed(Integer n, Void unused) {
                    try {
                        Future<Integer> next = p.accepted().read(ByteBuffer.allocate(8));
                        reading.countDown();
                        waited.complete(get(next));
                    } catch (Exception e) {
                        waited.completeExceptionally(e);
                    }
                }

                @Override
                public void failed(Throwable exc, Void unused) {
                    waited.completeExceptionally(exc);
                }
            });
            get(p.client().write(ByteBuffer.wrap(new byte[] {1})));
            assertThat(reading.await(AsyncKit.WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            get(p.client().write(ByteBuffer.wrap(new byte[] {2, 3, 4})));
            assertThat(get(waited)).isEqualTo(3);
        }
    }

    /** Runs {@code action} on one of the test group's threads: in the handler of an outcome known at once. */
    private void onGroupThread(Runnable action) throws IOException {
        AsynchronousSocketChannel closed = client();
        closed.close();
        closed.read(ByteBuffer.allocate(1), null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void unused) {
                throw new AssertionError("read " + n + " from a closed channel");
            }

            @Override
            public void failed(Throwable exc, Void unused) {
                action.run();
            }
        });
    }
}
