package io.uring4j.net;

import io.uring4j.net.AsyncKit.Recorder;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.Await;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.UringRuntime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousChannelGroup;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.AsynchronousSocketChannel;
import java.nio.channels.CompletionHandler;
import java.nio.channels.InterruptedByTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link AsyncOutbox}: what handlers write on their ring's poller goes out with the poller's next enter — in
 * order, after the handler has returned, before a close or a shutdown of the output — and what waits behind bytes
 * a peer does not take still times out, fails on close, and does not keep a group from terminating.
 */
@BothEngines
class AsyncOutboxTest {
    private static final int CHUNK = AsyncOutbox.CAPACITY;
    @UringRuntime(loops = 1)
    private static Uring uring;
    private static UringAsynchronousChannelProvider provider;

    private AsynchronousChannelGroup group;
    private ServerSocketChannel listener;
    private AsynchronousSocketChannel channel;
    private SocketChannel peer;

    @BeforeAll
    static void makeProvider() {
        provider = new UringAsynchronousChannelProvider(uring);
    }

    @BeforeEach
    void open() throws IOException {
        group = provider.openAsynchronousChannelGroup(2, AsyncKit.named("outbox-test-"));
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    @AfterEach
    void close() throws Exception {
        try (ServerSocketChannel l = listener; SocketChannel p = peer; AsynchronousSocketChannel c = channel) {
            group.shutdownNow();
            assertThat(group.awaitTermination(10, TimeUnit.SECONDS)).as("group terminated").isTrue();
        }
    }

    /** Connects {@code channel} to {@code peer}; {@code small}: both ends' socket buffers at their minimum. */
    private void connect(boolean small) throws Exception {
        if (small) {
            listener.setOption(StandardSocketOptions.SO_RCVBUF, 1);        // the accepted socket inherits it
        }
        channel = provider.openAsynchronousSocketChannel(group);
        if (small) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, 1);
        }
        AsyncKit.get(channel.connect(listener.getLocalAddress()));
        peer = listener.accept();
        // Once, so that no handler below loads classes for long enough to have its poller deposed (another
        // thread's enter would then send what it writes before it returns).
        onPoller(ch -> assertThat(ch.write(ByteBuffer.wrap(new byte[] {'!'})).get()).isEqualTo(1));
        assertThat(readFully(peer, 1)).isEqualTo(new byte[] {'!'});
    }

    /**
     * Runs {@code action} in a read's completion handler, which the channel's ring's poller runs: the read waits
     * on the ring until the peer sends a byte.
     */
    private void onPoller(ThrowingConsumer action) throws Exception {
        CompletableFuture<Void> ran = new CompletableFuture<>();
        channel.read(ByteBuffer.allocate(1), null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void a) {
                try {
                    action.accept(channel);
                    ran.complete(null);
                } catch (Throwable t) {
                    ran.completeExceptionally(t);
                }
            }

            @Override
            public void failed(Throwable exc, Void a) {
                ran.completeExceptionally(exc);
            }
        });
        peer.write(ByteBuffer.wrap(new byte[] {'?'}));
        AsyncKit.get(ran);
    }

    interface ThrowingConsumer {
        void accept(AsynchronousSocketChannel channel) throws Exception;
    }

    /**
     * Unless the watchdog deposed the handler's poller meanwhile (a handler stalled by the machine, when the
     * successor's enter sends the bytes at once): then the run is tried again.
     */
    @Test
    void aHandlersWriteIsDoneAtOnceAndReachesThePeerOnceTheHandlerHasReturned() throws Exception {
        connect(false);
        peer.configureBlocking(false);
        int[] seenInHandler = new int[1];
        boolean[] keptPolling = new boolean[1];
        for (int run = 0; run < 5 && !keptPolling[0]; run++) {
            onPoller(ch -> {
                Future<Integer> write = ch.write(ByteBuffer.wrap("abc".getBytes()));
                assertThat(write.isDone()).as("written when the call returns").isTrue();
                assertThat(write.get()).isEqualTo(3);
                seenInHandler[0] = peer.read(ByteBuffer.allocate(8));
                keptPolling[0] = ((UringAsynchronousChannelGroup) group).onAnyPoller();
            });
            peer.configureBlocking(true);
            readFully(peer, 3 - Math.max(0, seenInHandler[0]));
            peer.configureBlocking(false);
        }
        assumeTrue(keptPolling[0], "the handler's poller was deposed in every run: nothing to conclude");
        assertThat(seenInHandler[0]).as("bytes the peer had while the handler ran").isZero();
    }

    @Test
    void aChainOfHandlersWritesReachesThePeerInOrder() throws Exception {
        connect(false);
        int writes = 2_000;
        int size = 97;              // 194,000 bytes: the outbox fills, sends in part and waits, many times over
        CompletableFuture<Void> done = new CompletableFuture<>();
        onPoller(ch -> ch.write(block(0, size), 0, new CompletionHandler<Integer, Integer>() {
            @Override
            public void completed(Integer n, Integer i) {
                if (i + 1 == writes) {
                    done.complete(null);
                } else {
                    ch.write(block(i + 1, size), i + 1, this);
                }
            }

            @Override
            public void failed(Throwable exc, Integer i) {
                done.completeExceptionally(exc);
            }
        }));
        byte[] got = readFully(peer, writes * size);
        AsyncKit.get(done);
        for (int i = 0; i < writes; i++) {
            assertThat(ByteBuffer.wrap(got, i * size, size)).as("write %d", i).isEqualTo(block(i, size));
        }
    }

    @Test
    void aCloseAfterHandlersWritesSendsThemThenEndsTheStream() throws Exception {
        connect(false);
        onPoller(ch -> {
            for (int i = 0; i < 3; i++) {
                assertThat(ch.write(block(i, 1000)).get()).isEqualTo(1000);
            }
            ch.close();
        });
        byte[] got = readFully(peer, 3000);
        assertThat(ByteBuffer.wrap(got, 2000, 1000)).isEqualTo(block(2, 1000));
        assertThat(peer.read(ByteBuffer.allocate(1))).as("end of stream").isEqualTo(-1);
    }

    @Test
    void aCloseLetsWhatThePeerHasNotTakenYetGoOutFirst() throws Exception {
        connect(true);
        Recorder<Integer> read = new Recorder<>();
        onPoller(ch -> {
            assertThat(ch.write(block(3, CHUNK)).get()).isEqualTo(CHUNK);
            ch.read(ByteBuffer.allocate(8), "pending", read);
        });
        ByteBuffer first = ByteBuffer.allocate(1);
        peer.read(first);                   // the send has begun; what the buffers cannot hold waits in it
        channel.close();
        assertThat(read.failure()).isInstanceOf(AsynchronousCloseException.class);
        byte[] rest = readFully(peer, CHUNK - 1);
        assertThat(ByteBuffer.wrap(rest)).isEqualTo(block(3, CHUNK).position(1));
        assertThat(peer.read(ByteBuffer.allocate(1))).as("end of stream").isEqualTo(-1);
    }

    @Test
    void aClosedChannelsBytesThePeerNeverTakesAreDroppedOnceTheLingerRunsOut() throws Exception {
        connect(true);
        onPoller(ch -> assertThat(ch.write(ByteBuffer.allocateDirect(CHUNK)).get()).isEqualTo(CHUNK));
        Matcher number = Pattern.compile("fd (\\d+)").matcher(channel.toString());
        assertThat(number.find()).isTrue();
        Path fd = Path.of("/proc/self/fd", number.group(1));
        Path socket = Files.readSymbolicLink(fd);
        String before = System.setProperty("uring4j.async.closeLingerMillis", "100");
        try {
            channel.close();
        } finally {
            restore("uring4j.async.closeLingerMillis", before);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AsyncKit.WAIT_SECONDS);
        while (isLink(fd, socket)) {
            assertThat(System.nanoTime()).as("the fd is still open").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * As the kernel's close of a socket with unread input: a reset, which drops what was not sent yet — the fd
     * closes without waiting for the peer to take the outbox's bytes, and the peer reads what reached it, then
     * the reset.
     */
    @Test
    void aCloseWithInputLeftUnreadDropsWhatWasTakenAndResetsTheConnection() throws Exception {
        connect(true);
        onPoller(ch -> assertThat(ch.write(block(3, CHUNK)).get()).isEqualTo(CHUNK));
        Matcher number = Pattern.compile("fd (\\d+)").matcher(channel.toString());
        assertThat(number.find()).isTrue();
        int fdNumber = Integer.parseInt(number.group(1));
        Path fd = Path.of("/proc/self/fd", number.group(1));
        Path socket = Files.readSymbolicLink(fd);
        peer.write(ByteBuffer.wrap("unread".getBytes()));
        awaitCondition(() -> ChannelSockets.unreadInput(fdNumber));
        channel.close();
        awaitCondition(() -> {                              // long before the linger's 30 s
            try {
                return !isLink(fd, socket);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        ByteBuffer sink = ByteBuffer.allocate(1 << 16);
        assertThatThrownBy(() -> {
            while (peer.read(sink.clear()) >= 0) {
                sink.clear();
            }
        }).isInstanceOf(IOException.class).hasMessage("Connection reset");
    }

    @Test
    void aFailedSendFailsTheChannelsLaterWrites() throws Exception {
        connect(false);
        CompletableFuture<Integer> taken = new CompletableFuture<>();
        channel.read(ByteBuffer.allocate(1), null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void a) {
                taken.completeExceptionally(new AssertionError("read " + n + " instead of a reset"));
            }

            @Override
            public void failed(Throwable exc, Void a) {            // on the poller: the write goes to the outbox
                try {
                    taken.complete(channel.write(ByteBuffer.wrap("lost".getBytes())).get());
                } catch (Exception e) {
                    taken.completeExceptionally(e);
                }
            }
        });
        peer.setOption(StandardSocketOptions.SO_LINGER, 0);
        peer.close();                                           // a reset
        assertThat(AsyncKit.get(taken)).as("taken, as a socket's buffer takes it").isEqualTo(4);
        Throwable failure = AsyncKit.failureOf(channel.write(ByteBuffer.wrap("next".getBytes())));
        assertThat(failure).isInstanceOf(IOException.class).hasCauseInstanceOf(ErrnoException.class);
        assertThat(failure.getCause()).hasMessageMatching("send(msg)?: E(PIPE|CONNRESET).*");
    }

    @Test
    void aShutdownOfTheOutputAfterHandlersWritesComesAfterThem() throws Exception {
        connect(false);
        onPoller(ch -> {
            assertThat(ch.write(block(7, 3000)).get()).isEqualTo(3000);
            ch.shutdownOutput();
        });
        assertThat(ByteBuffer.wrap(readFully(peer, 3000))).isEqualTo(block(7, 3000));
        assertThat(peer.read(ByteBuffer.allocate(1))).as("end of stream").isEqualTo(-1);
        peer.write(ByteBuffer.wrap(new byte[] {'x'}));
        ByteBuffer in = ByteBuffer.allocate(1);
        assertThat(AsyncKit.get(channel.read(in))).as("the input is still open").isEqualTo(1);
    }

    /**
     * A shutdownOutput while the peer has not read what a handler wrote: it returns at once, as the kernel's does
     * with bytes in a socket's buffer (it never waits for a peer that may not read), and the FIN follows them.
     */
    @Test
    void aShutdownOfTheOutputReturnsAtOnceAndItsFinFollowsWhatWasTaken() throws Exception {
        connect(true);
        onPoller(ch -> assertThat(ch.write(block(5, CHUNK)).get()).isEqualTo(CHUNK));
        channel.shutdownOutput();
        assertThat(ByteBuffer.wrap(readFully(peer, CHUNK))).isEqualTo(block(5, CHUNK));
        assertThat(peer.read(ByteBuffer.allocate(1))).as("end of stream").isEqualTo(-1);
    }

    /** The peer resets the connection while bytes wait for it: a later shutdownOutput throws the send's failure. */
    @Test
    void aShutdownOfTheOutputAfterASendFailedThrowsTheFailure() throws Exception {
        connect(true);
        onPoller(ch -> assertThat(ch.write(block(5, CHUNK)).get()).isEqualTo(CHUNK));
        AsyncOutbox outbox = ((UringAsynchronousSocketChannel) channel).outbox();
        peer.setOption(StandardSocketOptions.SO_LINGER, 0);
        peer.close();                                           // a reset: the send fails for good
        Await.awaitCondition(outbox::idle);
        assertThatThrownBy(channel::shutdownOutput).isInstanceOf(IOException.class)
                .cause().hasMessageMatching("send: E(PIPE|CONNRESET).*");
        assertThatThrownBy(channel::shutdownOutput).as("and again").isInstanceOf(IOException.class)
                .cause().hasMessageMatching("send: E(PIPE|CONNRESET).*");
    }

    @Test
    void aWriteWaitingBehindBytesThePeerDoesNotTakeTimesOut() throws Exception {
        connect(true);
        Recorder<Integer> waiting = new Recorder<>();
        onPoller(ch -> waitBehindAFullOutbox(ch, 200, waiting));
        assertThat(waiting.failure()).isInstanceOf(InterruptedByTimeoutException.class);
    }

    @Test
    void aWriteWaitingBehindBytesThePeerDoesNotTakeFailsOnClose() throws Exception {
        connect(true);
        Recorder<Integer> waiting = new Recorder<>();
        onPoller(ch -> waitBehindAFullOutbox(ch, 0, waiting));
        channel.close();
        assertThat(waiting.failure()).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void sendsThePeerDoesNotTakeDoNotKeepTheGroupFromTerminating() throws Exception {
        connect(true);
        Recorder<Integer> waiting = new Recorder<>();
        onPoller(ch -> waitBehindAFullOutbox(ch, 0, waiting));
        channel.close();
        waiting.failure();
        group.shutdownNow();
        assertThat(group.awaitTermination(10, TimeUnit.SECONDS)).as("terminated").isTrue();
    }

    /**
     * Fills the outbox (more than both ends' minimal socket buffers hold, so its send cannot end while the peer does
     * not read) and starts a write that must wait behind it.
     */
    private static void waitBehindAFullOutbox(AsynchronousSocketChannel ch, long timeoutMillis,
                                              Recorder<Integer> waiting) throws Exception {
        assertThat(ch.write(ByteBuffer.allocateDirect(CHUNK)).get()).isEqualTo(CHUNK);
        ch.write(ByteBuffer.allocate(1000), timeoutMillis, TimeUnit.MILLISECONDS, "waiting", waiting);
        assertThat(waiting.outcome).as("a write behind a full outbox waits").isNotDone();
    }

    private static boolean isLink(Path fd, Path target) throws IOException {
        try {
            return Files.readSymbolicLink(fd).equals(target);
        } catch (NoSuchFileException gone) {
            return false;
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }

    private static ByteBuffer block(int i, int size) {
        byte[] b = new byte[size];
        for (int k = 0; k < size; k++) {
            b[k] = (byte) (i * 31 + k);
        }
        return ByteBuffer.wrap(b);
    }

    private static byte[] readFully(SocketChannel peer, int n) throws IOException {
        ByteBuffer in = ByteBuffer.allocate(n);
        while (in.hasRemaining()) {
            if (peer.read(in) < 0) {
                throw new IOException("end of stream after " + in.position() + " of " + n + " bytes");
            }
        }
        return in.array();
    }
}
