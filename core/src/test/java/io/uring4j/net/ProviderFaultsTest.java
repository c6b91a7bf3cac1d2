package io.uring4j.net;

import io.uring4j.ring.FaultyEngine;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.FaultRuns;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.CompletionHandler;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.FaultRuns.RUN_NANOS;
import static io.uring4j.testkit.FaultRuns.goesOn;
import static io.uring4j.testkit.FaultRuns.SEED;
import static io.uring4j.testkit.FaultRuns.assertNamesAnInjectedErrno;
import static io.uring4j.testkit.FaultRuns.checked;
import static io.uring4j.testkit.FaultRuns.echo;
import static io.uring4j.testkit.FaultRuns.faulty;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The two java.nio providers under the faults of {@code FaultInjectionTest} ({@link FaultyEngine}: enters failing,
 * requests failing with ENOMEM, EAGAIN or EBADF, short transfers), on a runtime whose engine their selectors' and
 * channel groups' rings share: a client sends a random stream in random pieces to a JDK peer that echoes it. What
 * arrives must be the stream's prefix, byte for byte; whatever fails must fail by name; every completion handler
 * runs once per operation; and after the runtime's close no fd or native byte is left.
 */
class ProviderFaultsTest {
    private static final long WAIT_SECONDS = 20;

    @BeforeAll
    static void probeKernelAndWarmUpTheJdk() throws Exception {
        FaultRuns.probeKernelAndWarmUpTheJdk();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aSelectedChannelDeliversAPrefixOfTheStreamOrFailsByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        checked(faulty, 1, 8, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            UringSelectorProvider provider = new UringSelectorProvider(uring);
            try (ServerSocketChannel server = ServerSocketChannel.open(); Selector selector = provider.openSelector()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                long end = System.nanoTime() + RUN_NANOS;
                while (goesOn(end, faulty::faults)) {
                    exchangeSelected(provider, selector, server, rnd);
                }
            }
        });
        assertThat(faulty.faults()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void anAsynchronousChannelDeliversAPrefixOfTheStreamOrFailsByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        checked(faulty, 1, 8, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            UringAsynchronousChannelProvider provider = new UringAsynchronousChannelProvider(uring);
            AsynchronousChannelGroup group = provider.openAsynchronousChannelGroup(1, Thread.ofPlatform().factory());
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                long end = System.nanoTime() + RUN_NANOS;
                while (goesOn(end, faulty::faults)) {
                    exchangeAsynchronously(provider, group, server, rnd);
                }
            } finally {
                group.shutdownNow();
                assertThat(group.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).as("the group ended").isTrue();
            }
        });
        assertThat(faulty.faults()).isPositive();
    }

    /** io_uring_enter's "not now" (no memory, overflowed CQEs not flushed) is tried again by the next enter. */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aSelectWhoseEnterTheKernelRefusesForNowDoesNotFail(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(FaultRuns.engine(engineName), FaultyEngine.Schedule.none());
        try (Uring uring = Uring.builder().engine(faulty).loops(1).build();
             Selector selector = new UringSelectorProvider(uring).openSelector()) {
            selector.selectNow();
            faulty.failEnters(Errno.EAGAIN, Errno.EBUSY, Errno.ENOMEM);     // the loop waits: these are the select's
            assertThat(selector.selectNow()).isZero();
            assertThat(selector.select(1)).isZero();
            assertThat(selector.selectNow()).isZero();
            assertThat(faulty.enterFailures()).isEqualTo(3);
        }
    }

    /**
     * A write the outbox took is one the channel answered for: a SEND the kernel could not take now (ENOMEM) goes
     * again; one that failed for good loses the bytes, and the shutdown that would have followed them says so.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aQueuedSendGoesAgainAfterNoMemoryAndALostOneFailsTheShutdown(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(FaultRuns.engine(engineName), FaultyEngine.Schedule.none());
        try (Uring uring = Uring.builder().engine(faulty).loops(1).build();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            UringSelectorProvider provider = new UringSelectorProvider(uring);
            try (Selector selector = provider.openSelector(); SocketChannel client = provider.openSocketChannel()) {
                client.connect(server.getLocalAddress());
                try (SocketChannel peer = server.accept()) {
                    client.configureBlocking(false);
                    client.register(selector, SelectionKey.OP_READ);
                    selector.selectNow();               // arms the receive: the next request is the SEND
                    faulty.failRequests(Errno.ENOMEM);
                    assertThat(client.write(ByteBuffer.wrap(new byte[] {1, 2, 3}))).isEqualTo(3);
                    selector.selectNow();               // the SEND, failed
                    selector.selectNow();               // and again
                    CompletableFuture<ByteBuffer> in = CompletableFuture.supplyAsync(() -> {
                        ByteBuffer b = ByteBuffer.allocate(3);
                        try {
                            while (b.hasRemaining() && peer.read(b) > 0) {
                                // until the three bytes are in
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                        return b.flip();
                    }, Thread::startVirtualThread);
                    assertThat(in.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));

                    faulty.failRequests(Errno.EBADF);
                    assertThat(client.write(ByteBuffer.wrap(new byte[] {4}))).isEqualTo(1);
                    selector.selectNow();
                    assertThatThrownBy(client::shutdownOutput).isInstanceOf(IOException.class)
                            .hasMessageContaining(Errno.describe(Errno.EBADF));
                }
            }
            assertThat(faulty.requestFailures()).isEqualTo(2);
        }
    }

    /**
     * A kernel before 6.17 refuses a multishot receive's byte limit with EINVAL: the selector arms the receive again
     * without one, and the channel reads its bytes (not that EINVAL).
     */
    @Test
    void aReceiveWhoseLimitIsRefusedIsArmedAgainWithoutOne() throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(FaultRuns.engine("kernel"), FaultyEngine.Schedule.none());
        try (Uring uring = Uring.builder().engine(faulty).loops(1).build();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            UringSelectorProvider provider = new UringSelectorProvider(uring);
            try (Selector selector = provider.openSelector();
                 SocketChannel client = provider.openSocketChannel()) {
                client.connect(server.getLocalAddress());
                try (SocketChannel peer = server.accept()) {
                    client.configureBlocking(false);
                    client.register(selector, SelectionKey.OP_READ);
                    faulty.failRequests(Errno.EINVAL);
                    selector.selectNow();               // arms the receive, with a limit: refused
                    assertThat(faulty.requestFailures()).isEqualTo(1);

                    peer.write(ByteBuffer.wrap(new byte[] {7, 8, 9}));
                    ByteBuffer got = ByteBuffer.allocate(3);
                    while (got.hasRemaining()) {
                        selector.select(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                        selector.selectedKeys().clear();
                        assertThat(client.read(got)).as("read").isNotNegative();
                    }
                    assertThat(got.array()).containsExactly(7, 8, 9);
                }
            }
        }
    }

    /**
     * A closed channel's key deregistered while its receive (or poll) has not ended — here its cancel ends nothing
     * — holds the fd until that request's last CQE. A selector closed meanwhile brings no more CQEs: its close must
     * let go of the fd.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void closingTheSelectorClosesAChannelWhoseKeyWaitedForItsRequests(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(FaultRuns.engine(engineName), FaultyEngine.Schedule.none());
        try (Uring uring = Uring.builder().engine(faulty).loops(1).build();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            UringSelectorProvider provider = new UringSelectorProvider(uring);
            Selector selector = provider.openSelector();
            UringSocketChannel client = (UringSocketChannel) provider.openSocketChannel();
            client.connect(server.getLocalAddress());
            try (SocketChannel peer = server.accept()) {
                int fd = client.link().guard.fd();
                client.configureBlocking(false);
                client.register(selector, SelectionKey.OP_READ);
                selector.selectNow();                   // arms the channel's receive
                faulty.ignoreCancels();
                client.close();
                selector.selectNow();                   // deregisters the key; the receive stays
                assertThat(Sockets.localPort(fd)).as("held while the receive may still name it").isNotNegative();

                selector.close();
                assertThat(Sockets.localPort(fd)).as("closed with the selector").isNegative();
            }
        }
    }

    /**
     * A channel closed, then deregistered by a select whose enter the kernel refused for now: its poll's removal
     * waits in the SQ, and nobody selects again (the program waits for its peer, say). As with the JDK's selector,
     * the channel must be closed all the same: the flusher submits what waits and reaps the poll's end.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aChannelDeregisteredByASelectThatCouldNotEnterIsClosedWithoutAnotherSelect(String engineName)
            throws Exception {
        closedAndDeregistered(engineName, faulty -> faulty.failEnters(Errno.EAGAIN),
                faulty -> assertThat(faulty.enterFailures()).isEqualTo(1));
    }

    /**
     * The kernel answers a poll's removal EALREADY when it finds the poll being run elsewhere, and the poll stays:
     * the removal must go again, or the closed channel's fd stays open for ever (and its poll goes on firing).
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aPollRemovalRefusedForNowGoesAgain(String engineName) throws Exception {
        closedAndDeregistered(engineName, faulty -> faulty.refuseRemovals(1), faulty -> { });
    }

    /**
     * A channel with a poll armed, closed; then {@code fault} and a selectNow that deregisters its key, checked by
     * {@code check}. The fd must close without another select.
     */
    private static void closedAndDeregistered(String engineName, Consumer<FaultyEngine> fault,
                                              Consumer<FaultyEngine> check) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(FaultRuns.engine(engineName), FaultyEngine.Schedule.none());
        try (Uring uring = Uring.builder().engine(faulty).loops(1).build();
             ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            UringSelectorProvider provider = new UringSelectorProvider(uring);
            try (Selector selector = provider.openSelector()) {
                UringSocketChannel client = (UringSocketChannel) provider.openSocketChannel();
                client.connect(server.getLocalAddress());
                try (SocketChannel peer = server.accept()) {
                    int fd = client.link().guard.fd();
                    client.configureBlocking(false);
                    client.register(selector, SelectionKey.OP_WRITE);
                    selector.selectNow();                               // arms the channel's poll
                    client.close();
                    uring.loop().submitAsync(Op.nop()).get(WAIT_SECONDS, TimeUnit.SECONDS);  // the close's cancel
                    fault.accept(faulty);                               // went through the loop: the rest is the
                    selector.selectNow();                               // select's
                    check.accept(faulty);
                    awaitCondition(() -> Sockets.localPort(fd) < 0);
                }
            }
        }
    }

    /** One connection, non-blocking, driven by {@code selector}: sends and reads as the keys say they are ready. */
    private static void exchangeSelected(UringSelectorProvider provider, Selector selector,
                                         ServerSocketChannel server, SplittableRandom rnd) throws Exception {
        byte[] stream = randomStream(rnd);
        SocketChannel client = provider.openSocketChannel();
        client.configureBlocking(false);
        SelectionKey key;
        try {
            key = client.register(selector, SelectionKey.OP_CONNECT);
            if (!client.connect(server.getLocalAddress())) {
                while (!client.finishConnect()) {
                    select(selector);
                }
            }
        } catch (IOException e) {
            assertNamesAnInjectedErrno(e);
            client.close();
            selector.selectNow();           // flushes the cancelled key
            acceptWhatCame(server);
            return;
        }
        try (client; SocketChannel peer = server.accept()) {
            CompletableFuture<Long> echo = echo(peer, stream);
            key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
            ByteBuffer in = rnd.nextBoolean() ? ByteBuffer.allocateDirect(16384) : ByteBuffer.allocate(16384);
            ByteBuffer out = ByteBuffer.allocate(0);
            int sent = 0;
            int received = 0;
            try {
                while (received < stream.length) {
                    select(selector);
                    if (key.isWritable()) {
                        if (!out.hasRemaining()) {
                            int piece = Math.min(stream.length - sent, 1 + rnd.nextInt(16384));
                            out = ByteBuffer.allocate(piece).put(stream, sent, piece).flip();
                        }
                        sent += client.write(out);
                        if (sent == stream.length && !out.hasRemaining()) {
                            client.shutdownOutput();
                            key.interestOps(SelectionKey.OP_READ);
                        }
                    }
                    if (key.isReadable()) {
                        int n = client.read(in.clear());
                        assertThat(n).as("the echo ended early, at %d of %d", received, stream.length)
                                .isNotNegative();
                        checkEchoed(in.flip(), stream, received);
                        received += n;
                    }
                }
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
                endPeer(peer);
            }
            client.close();
            selector.selectNow();
            echo.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Waits for a key; a bound that only turns a readiness lost into a failure. */
    private static void select(Selector selector) throws IOException {
        selector.selectedKeys().clear();
        int ready = selector.select(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(ready).as("a key ready within %d s", WAIT_SECONDS).isPositive();
    }

    /**
     * One connection, in the completion model: reads through a CompletionHandler that asks for the next read from
     * its completion, writes through Futures from this thread, both in flight at once.
     */
    private static void exchangeAsynchronously(UringAsynchronousChannelProvider provider,
                                               AsynchronousChannelGroup group, ServerSocketChannel server,
                                               SplittableRandom rnd) throws Exception {
        byte[] stream = randomStream(rnd);
        AsynchronousSocketChannel client = provider.openAsynchronousSocketChannel(group);
        try {
            client.connect(server.getLocalAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertNamesAnInjectedErrno(e.getCause());
            client.close();
            acceptWhatCame(server);
            return;
        }
        try (client; SocketChannel peer = server.accept()) {
            CompletableFuture<Long> echo = echo(peer, stream);
            Reader reader = new Reader(client, stream, rnd.nextBoolean());
            reader.next();
            int sent = 0;
            try {
                while (sent < stream.length) {
                    int piece = Math.min(stream.length - sent, 1 + rnd.nextInt(16384));
                    ByteBuffer out = ByteBuffer.allocateDirect(piece).put(stream, sent, piece).flip();
                    while (out.hasRemaining()) {
                        sent += client.write(out).get(WAIT_SECONDS, TimeUnit.SECONDS);
                    }
                }
                client.shutdownOutput();
            } catch (ExecutionException e) {
                assertNamesAnInjectedErrnoOrTheClose(e.getCause());
                client.close();             // the stream is broken: the read in flight ends with the close
            } catch (IOException e) {
                // shutdownOutput waits for the last send: it failed, or a failed read closed the channel meanwhile
                assertNamesAnInjectedErrnoOrTheClose(e);
                client.close();
            }
            try {
                assertThat(reader.done.get(WAIT_SECONDS, TimeUnit.SECONDS)).as("echoed").isEqualTo(stream.length);
            } catch (ExecutionException e) {
                assertNamesAnInjectedErrnoOrTheClose(e.getCause());
                endPeer(peer);
            }
            assertThat(reader.calls.get()).as("handler calls, one per read").isEqualTo(reader.reads.get());
            client.close();
            echo.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Reads the echo, one read in flight at a time; closes the channel when a read fails. */
    private static final class Reader implements CompletionHandler<Integer, Void> {
        final CompletableFuture<Integer> done = new CompletableFuture<>();
        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();
        private final AtomicBoolean pending = new AtomicBoolean();
        private final AsynchronousSocketChannel channel;
        private final byte[] stream;
        private final ByteBuffer in;
        private int received;

        Reader(AsynchronousSocketChannel channel, byte[] stream, boolean direct) {
            this.channel = channel;
            this.stream = stream;
            this.in = direct ? ByteBuffer.allocateDirect(16384) : ByteBuffer.allocate(16384);
        }

        void next() {
            reads.incrementAndGet();
            pending.set(true);
            channel.read(in.clear(), null, this);
        }

        @Override
        public void completed(Integer n, Void attachment) {
            if (ended()) {
                return;
            }
            try {
                assertThat(n).as("the echo ended early, at %d of %d", received, stream.length).isNotNegative();
                checkEchoed(in.flip(), stream, received);
            } catch (AssertionError e) {
                fail(e);
                return;
            }
            received += n;
            if (received == stream.length) {
                done.complete(received);
            } else {
                next();
            }
        }

        @Override
        public void failed(Throwable cause, Void attachment) {
            if (!ended()) {
                fail(cause);
            }
        }

        /** Counts the call; whether it is a second one for the same read (then the read's outcome stands). */
        private boolean ended() {
            calls.incrementAndGet();
            return !pending.getAndSet(false);
        }

        private void fail(Throwable cause) {
            done.completeExceptionally(cause);
            try {
                channel.close();
            } catch (IOException e) {
                cause.addSuppressed(e);
            }
        }
    }

    /**
     * After a failure the client stops reading; the peer, writing the echo, may wait for it while the client's last
     * queued bytes wait for the peer to read. The client's close resets the connection if input was left unread
     * (as the JDK's does), but none may be left yet when it closes. The peer is closed here so that its echo ends.
     */
    private static void endPeer(SocketChannel peer) throws IOException {
        peer.close();
    }

    /** What a failed operation may throw: its injected errno by name, or the close that followed another failure. */
    private static void assertNamesAnInjectedErrnoOrTheClose(Throwable e) {
        if (!(e instanceof AsynchronousCloseException || e instanceof ClosedChannelException)) {
            assertNamesAnInjectedErrno(e);
        }
    }

    private static void checkEchoed(ByteBuffer in, byte[] stream, int received) {
        for (int i = 0; i < in.remaining(); i++) {
            assertThat(in.get(i)).as("echoed byte %d", received + i).isEqualTo(stream[received + i]);
        }
    }

    /**
     * After a failed connect: a connect failed before it left reached no one; one failed later (its CQE lost to a
     * fault, say) may have reached the server, whose end is then closed here. Nothing is left either way.
     */
    private static void acceptWhatCame(ServerSocketChannel server) throws IOException {
        server.configureBlocking(false);
        try {
            SocketChannel came;
            while ((came = server.accept()) != null) {
                came.close();
            }
        } finally {
            server.configureBlocking(true);
        }
    }

    private static byte[] randomStream(SplittableRandom rnd) {
        byte[] stream = new byte[64 * 1024 + rnd.nextInt(64 * 1024)];
        rnd.nextBytes(stream);
        return stream;
    }
}
