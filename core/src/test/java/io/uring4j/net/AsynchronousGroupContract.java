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
}
