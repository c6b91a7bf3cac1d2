package io.uring4j.net;

import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.IllegalSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static java.nio.channels.SelectionKey.OP_ACCEPT;
import static java.nio.channels.SelectionKey.OP_CONNECT;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The selector contract, run against the JDK's provider ({@link JdkSelectorTest}) and uring4j's
 * ({@link UringSelectorTest}) with the same code: where ours differs from the JDK, exactly one of the pair fails.
 * Waits are bounded by generous timeouts only; nothing depends on the machine's speed.
 */
abstract class SelectorContract extends ClosesAfterEach {
    private static final long WAIT = 10_000;
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** The provider under test. */
    abstract SelectorProvider provider();

    /** Another provider, whose channels the tested provider's selectors must refuse. */
    abstract SelectorProvider otherProvider();


    Selector selector() throws IOException {
        return closing(provider().openSelector());
    }

    ServerSocketChannel server() throws IOException {
        return closing(provider().openServerSocketChannel()).bind(LOOPBACK);
    }

    SocketChannel client() throws IOException {
        return closing(provider().openSocketChannel());
    }

    /** [blocking client, non-blocking accepted]. */
    SocketChannel[] pair(ServerSocketChannel server) throws IOException {
        SocketChannel c = client();
        c.connect(server.getLocalAddress());
        SocketChannel s = closing(server.accept());
        s.configureBlocking(false);
        return new SocketChannel[] {c, s};
    }

    private static ByteBuffer bytes(int n) {
        return ByteBuffer.wrap(new byte[n]);
    }

    private static SelectionKey only(Selector selector) {
        assertThat(selector.selectedKeys()).hasSize(1);
        return selector.selectedKeys().iterator().next();
    }

    @Test
    void acceptReadinessComesWithAConnectionAndGoesWithIt() throws Exception {
        Selector selector = selector();
        ServerSocketChannel server = server();
        server.configureBlocking(false);
        SelectionKey key = server.register(selector, OP_ACCEPT);
        assertThat(selector.selectNow()).isZero();
        assertThat(server.accept()).isNull();
        SocketChannel c = client();
        c.connect(server.getLocalAddress());
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(only(selector)).isSameAs(key);
        assertThat(key.readyOps()).isEqualTo(OP_ACCEPT);
        SocketChannel accepted = closing(server.accept());
        assertThat(accepted).isNotNull();
        assertThat(accepted.isBlocking()).as("accepted channels start blocking").isTrue();
        assertThat(accepted.getRemoteAddress()).isEqualTo(c.getLocalAddress());
        assertThat(server.accept()).isNull();
        selector.selectedKeys().clear();
        assertThat(selector.selectNow()).isZero();
    }

    @Test
    void readReadinessIsLevelTriggeredUntilDrained() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ, "att");
        assertThat(key.attachment()).isEqualTo("att");
        assertThat(selector.selectNow()).isZero();
        p[0].write(ByteBuffer.wrap("0123456789".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(only(selector).isReadable()).isTrue();
        ByteBuffer part = ByteBuffer.allocate(4);
        assertThat(p[1].read(part)).isEqualTo(4);
        selector.selectedKeys().clear();
        assertThat(selector.selectNow()).as("data left unread is reported again").isEqualTo(1);
        assertThat(selector.select(WAIT)).as("a selected key with nothing new counts 0, at once").isZero();
        ByteBuffer rest = ByteBuffer.allocateDirect(100);
        assertThat(p[1].read(rest)).isEqualTo(6);
        assertThat(p[1].read(rest)).isZero();
        selector.selectedKeys().clear();
        assertThat(selector.selectNow()).as("drained: not ready").isZero();
        p[0].write(ByteBuffer.wrap("x".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
    }

    /**
     * As the JDK's HTTP server does: a readable key is cancelled, the request read in blocking mode, and the
     * channel registered again for the next request. Readiness cached from before must not select it again: the
     * server would block reading a request that is not there.
     */
    @Test
    void aNewRegistrationReportsOnlyWhatHoldsNow() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        p[0].write(ByteBuffer.wrap("request".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        key.cancel();
        selector.selectNow();
        p[1].configureBlocking(true);
        assertThat(p[1].read(bytes(100))).isEqualTo(7);
        p[1].configureBlocking(false);
        SelectionKey again = p[1].register(selector, OP_READ);
        selector.selectedKeys().clear();
        assertThat(selector.selectNow()).as("nothing to read").isZero();
        p[0].write(ByteBuffer.wrap("next".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(only(selector)).isSameAs(again);
    }

    @Test
    void writeReadinessGoesWhenTheBufferFillsAndReturnsWhenItDrains() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        p[1].setOption(StandardSocketOptions.SO_SNDBUF, 8192);
        SelectionKey key = p[1].register(selector, OP_WRITE);
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(key.isWritable()).isTrue();
        ByteBuffer chunk = ByteBuffer.allocateDirect(64 * 1024);
        long written = 0;
        int n;
        while ((n = p[1].write(chunk.clear())) > 0) {
            written += n;
        }
        selector.selectedKeys().clear();
        assertThat(selector.selectNow()).as("full: not writable").isZero();
        ByteBuffer sink = ByteBuffer.allocate(64 * 1024);
        for (long read = 0; read < written; ) {
            read += p[0].read(sink.clear());
        }
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(key.isWritable()).isTrue();
    }

    @Test
    void connectReadinessThenFinishConnect() throws Exception {
        Selector selector = selector();
        ServerSocketChannel server = server();
        SocketChannel c = client();
        c.configureBlocking(false);
        boolean connected = c.connect(server.getLocalAddress());
        if (!connected) {
            assertThat(c.isConnectionPending()).isTrue();
            assertThat(c.getRemoteAddress()).isEqualTo(server.getLocalAddress());
            assertThatThrownBy(() -> c.read(bytes(1))).isInstanceOf(java.nio.channels.NotYetConnectedException.class);
            SelectionKey key = c.register(selector, OP_CONNECT);
            assertThat(selector.select(WAIT)).isEqualTo(1);
            assertThat(key.isConnectable()).isTrue();
            assertThat(c.finishConnect()).isTrue();
        }
        assertThat(c.isConnected()).isTrue();
        assertThat(c.isConnectionPending()).isFalse();
        assertThat(c.finishConnect()).isTrue();
        SocketChannel accepted = closing(server.accept());
        c.write(ByteBuffer.wrap(new byte[] {7}));
        ByteBuffer one = bytes(1);
        assertThat(accepted.read(one)).isEqualTo(1);
        assertThat(one.get(0)).isEqualTo((byte) 7);
    }

    /**
     * Registered before its connect, a socket polls as writable and hung up; once the connect is under way it is
     * neither until the connect ends. The listener's full backlog keeps the connect pending meanwhile.
     */
    @Test
    void aSocketRegisteredBeforeItsConnectIsNotConnectableWhileItIsPending() throws Exception {
        Selector selector = selector();
        ServerSocketChannel server = closing(provider().openServerSocketChannel()).bind(LOOPBACK, 1);
        List<SocketChannel> queued = new ArrayList<>();
        SocketChannel c;
        while (true) {              // until a connect stays pending: the SYN dropped by the full accept queue
            c = client();
            c.configureBlocking(false);
            SelectionKey key = c.register(selector, OP_CONNECT);
            selector.selectNow();
            if (c.connect(server.getLocalAddress())) {
                queued.add(c);
                continue;
            }
            selector.selectedKeys().clear();
            if (selector.select(200) == 0) {
                break;
            }
            assertThat(c.finishConnect()).as("connectable only when connected").isTrue();
            key.cancel();
            queued.add(c);
            assertThat(queued).as("the backlog fills").hasSizeLessThan(10);
        }
        assertThat(c.isConnectionPending()).isTrue();
        for (int i = 0; i <= queued.size(); i++) {
            closing(server.accept());       // the queue drains; the pending connect's SYN is answered on a retry
        }
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(c.finishConnect()).isTrue();
    }

    @Test
    void aRefusedConnectFailsWithConnectExceptionAndClosesTheChannel() throws Exception {
        InetSocketAddress nobody;
        try (ServerSocketChannel gone = provider().openServerSocketChannel().bind(LOOPBACK)) {
            nobody = (InetSocketAddress) gone.getLocalAddress();
        }
        Selector selector = selector();
        SocketChannel c = client();
        c.configureBlocking(false);
        try {
            if (!c.connect(nobody)) {
                c.register(selector, OP_CONNECT);
                assertThat(selector.select(WAIT)).isEqualTo(1);
                assertThatThrownBy(c::finishConnect).isInstanceOf(ConnectException.class);
            }
        } catch (ConnectException refusedAtOnce) {
            // as allowed: the kernel may refuse a loopback connect before connect returns
        }
        assertThat(c.isOpen()).isFalse();
    }

    @Test
    void endOfStreamAndResetAreReportedOnTheirChannelOnly() throws Exception {
        Selector selector = selector();
        ServerSocketChannel server = server();
        SocketChannel[] eof = pair(server);
        SocketChannel[] reset = pair(server);
        SocketChannel[] bystander = pair(server);
        SelectionKey eofKey = eof[1].register(selector, OP_READ);
        SelectionKey resetKey = reset[1].register(selector, OP_READ);
        SelectionKey otherKey = bystander[1].register(selector, OP_READ);
        eof[0].close();
        reset[0].setOption(StandardSocketOptions.SO_LINGER, 0);
        reset[0].close();
        awaitSelected(selector, eofKey, resetKey);
        assertThat(eof[1].read(bytes(10))).isEqualTo(-1);
        assertThatThrownBy(() -> reset[1].read(bytes(10))).isInstanceOf(IOException.class);
        assertThat(selector.selectedKeys()).doesNotContain(otherKey);
        bystander[0].write(ByteBuffer.wrap("still here".getBytes()));
        selector.selectedKeys().clear();
        eofKey.cancel();
        resetKey.cancel();
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(only(selector)).isSameAs(otherKey);
        assertThat(bystander[1].read(bytes(100))).isEqualTo(10);
    }

    /** Selects until every one of {@code keys} has been selected. */
    private static void awaitSelected(Selector selector, SelectionKey... keys) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (!selector.selectedKeys().containsAll(List.of(keys))) {
            assertThat(System.nanoTime() - deadline).as("keys selected in time").isNegative();
            selector.select(WAIT);
        }
    }

    @Test
    void wakeupBeforeSelectMakesTheNextSelectReturnOnceAndCoalesces() throws Exception {
        Selector selector = selector();
        selector.wakeup();
        selector.wakeup();
        selector.wakeup();
        assertThat(selector.select()).isZero();
        long start = System.nanoTime();
        assertThat(selector.select(300)).isZero();
        assertThat(System.nanoTime() - start).as("coalesced: the second select waits its time")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
        selector.wakeup();
        assertThat(selector.selectNow()).isZero();
        start = System.nanoTime();
        assertThat(selector.select(300)).as("selectNow cleared the wakeup").isZero();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    /** A wakeup made while a select is returning (here: in its action) is for the next select, as the JDK's. */
    @Test
    void aWakeupAfterTheWaitIsKeptForTheNextSelect() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_WRITE);
        assertThat(selector.select(k -> selector.wakeup(), WAIT)).isEqualTo(1);
        key.interestOps(0);
        long start = System.nanoTime();
        assertThat(selector.select(WAIT)).isZero();
        assertThat(System.nanoTime() - start).as("returned at once, not after the timeout")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(WAIT / 2));
    }

    @Test
    void wakeupEndsASelectInProgress() throws Exception {
        Selector selector = selector();
        CompletableFuture<Integer> selecting = CompletableFuture.supplyAsync(() -> {
            try {
                return selector.select();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        Thread.sleep(100);
        selector.wakeup();
        assertThat(selecting.get(WAIT, TimeUnit.MILLISECONDS)).isZero();
    }

    @Test
    void anInterruptEndsASelectAndStaysSet() throws Exception {
        Selector selector = selector();
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                selector.select();
                interrupted.complete(Thread.currentThread().isInterrupted());
            } catch (IOException e) {
                interrupted.completeExceptionally(e);
            }
        });
        Thread.sleep(100);
        t.interrupt();
        assertThat(interrupted.get(WAIT, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(selector.isOpen()).isTrue();
    }

    @Test
    void selectWithATimeoutReturnsZeroWhenNothingHappens() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        p[1].register(selector, OP_READ);
        assertThat(selector.select(50)).isZero();
        assertThat(selector.selectNow()).isZero();
        assertThatThrownBy(() -> selector.select(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void selectWithAnActionLeavesTheSelectedSetAlone() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ | OP_WRITE);
        p[0].write(ByteBuffer.wrap(new byte[3]));
        List<Integer> seen = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (seen.isEmpty() || seen.getLast() != (OP_READ | OP_WRITE)) {
            assertThat(System.nanoTime() - deadline).isNegative();
            seen.clear();
            selector.select(k -> seen.add(k.readyOps()), WAIT);
        }
        assertThat(selector.selectedKeys()).isEmpty();
        seen.clear();
        assertThat(selector.selectNow(k -> seen.add(k.readyOps()))).isEqualTo(1);
        assertThat(seen).containsExactly(OP_READ | OP_WRITE);
        assertThat(selector.select(k -> assertThat(k).isSameAs(key))).isEqualTo(1);
    }

    @Test
    void cancelledKeysAreDeregisteredByTheNextSelect() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        key.cancel();
        assertThat(key.isValid()).isFalse();
        assertThatThrownBy(key::interestOps).isInstanceOf(CancelledKeyException.class);
        assertThatThrownBy(key::readyOps).isInstanceOf(CancelledKeyException.class);
        assertThatThrownBy(() -> p[1].register(selector, OP_READ)).isInstanceOf(CancelledKeyException.class);
        assertThat(selector.keys()).contains(key);
        assertThat(p[1].isRegistered()).isTrue();
        p[0].write(ByteBuffer.wrap(new byte[1]));
        assertThat(selector.select(50)).isZero();
        assertThat(selector.keys()).isEmpty();
        assertThat(p[1].isRegistered()).isFalse();
        assertThat(p[1].keyFor(selector)).isNull();
        p[1].configureBlocking(true);
        p[1].configureBlocking(false);
        SelectionKey again = p[1].register(selector, OP_READ);
        assertThat(again).isNotSameAs(key);
        assertThat(selector.select(WAIT)).isEqualTo(1);
    }

    @Test
    void interestChangesTakeEffectAtTheNextSelect() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, 0);
        p[0].write(ByteBuffer.wrap(new byte[5]));
        assertThat(selector.select(50)).isZero();
        key.interestOps(OP_READ);
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(key.readyOps()).isEqualTo(OP_READ);
        selector.selectedKeys().clear();
        key.interestOps(0);
        assertThat(selector.select(50)).isZero();
        key.interestOpsOr(OP_WRITE);
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(key.readyOps()).isEqualTo(OP_WRITE);
        selector.selectedKeys().clear();
        key.interestOps(OP_READ | OP_WRITE);
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(key.readyOps()).isEqualTo(OP_READ | OP_WRITE);
        assertThatThrownBy(() -> key.interestOps(OP_ACCEPT)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void closingARegisteredChannelInvalidatesItsKeyAndTheNextSelectClosesItsFd() throws Exception {
        Selector selector = selector();
        ServerSocketChannel server = server();
        SocketChannel[] warm = pair(server);
        warm[1].register(selector, OP_READ);
        selector.selectNow();
        OpenFds before = OpenFds.snapshot();
        SocketChannel[] p = pair(server);
        SelectionKey key = p[1].register(selector, OP_READ);
        selector.selectNow();
        assertThat(before.openedSince()).hasSizeGreaterThanOrEqualTo(2);
        p[1].close();
        assertThat(key.isValid()).isFalse();
        ByteBuffer b = bytes(1);
        assertThat(p[0].read(b)).as("the peer sees the close at once").isEqualTo(-1);
        selector.selectNow();
        assertThat(selector.keys()).doesNotContain(key);
        p[0].close();
        before.awaitNoneOpenedSince();
    }

    /**
     * As the kernel's close of a socket with unread input, which the JDK's close is: a reset, not a FIN — though
     * what was received was received by the selector (uring4j's takes it into the channel's inbox).
     */
    @Test
    void aChannelClosedWithReceivedInputLeftUnreadResetsTheConnection() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        p[0].write(ByteBuffer.wrap("0123456789".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(p[1].read(bytes(4))).isEqualTo(4);
        key.cancel();
        selector.selectNow();                                   // deregistered: the close is the fd's
        p[1].close();
        assertThatThrownBy(() -> p[0].read(bytes(8))).isInstanceOf(IOException.class)
                .hasMessage("Connection reset");
    }

    /**
     * A registered channel's close shuts its output down at once (the peer reads the end of stream), and the next
     * select, which closes the fd, resets the connection if input was left unread: the peer's socket is gone (so
     * its writes fail) without any write of its own drawing the reset.
     */
    @Test
    void aRegisteredChannelClosedWithInputLeftUnreadResetsTheConnectionWhenItsFdCloses() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        p[1].register(selector, OP_READ);
        p[0].write(ByteBuffer.wrap("0123456789".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(p[1].read(bytes(4))).isEqualTo(4);
        p[1].close();
        assertThat(p[0].read(bytes(8))).as("the peer sees the close at once").isEqualTo(-1);
        selector.selectNow();
        int port = ((InetSocketAddress) p[0].getLocalAddress()).getPort();
        awaitCondition(() -> !inTcpTable(port));                // reset: no CLOSE_WAIT left behind
        assertThatThrownBy(() -> p[0].write(bytes(8))).isInstanceOf(IOException.class);
    }

    @Test
    void aRegisteredChannelClosedWithAllInputReadSendsWhatItWroteThenTheEndOfStream() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        p[1].register(selector, OP_READ);
        p[0].write(ByteBuffer.wrap("0123456789".getBytes()));
        assertThat(selector.select(WAIT)).isEqualTo(1);
        assertThat(p[1].read(bytes(16))).isEqualTo(10);
        byte[] data = new byte[3000];
        Arrays.fill(data, (byte) 'x');
        assertThat(p[1].write(ByteBuffer.wrap(data))).isEqualTo(data.length);
        p[1].close();
        selector.selectNow();
        ByteBuffer got = ByteBuffer.allocate(data.length);
        while (got.hasRemaining()) {
            assertThat(p[0].read(got)).as("end of stream too early").isPositive();
        }
        assertThat(got.array()).isEqualTo(data);
        assertThat(p[0].read(bytes(1))).as("end of stream").isEqualTo(-1);
    }

    /** Whether a socket bound to {@code localPort} is in the kernel's TCP tables (not in TIME_WAIT). */
    private static boolean inTcpTable(int localPort) {
        String local = String.format(":%04X", localPort);
        try {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 4 && f[1].endsWith(local) && !f[3].equals("06")) {
                        return true;
                    }
                }
            }
            return false;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void closingTheSelectorEndsASelectInProgressAndDeregistersEveryKey() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        CompletableFuture<Integer> selecting = new CompletableFuture<>();
        Thread selectingThread = Thread.ofPlatform().start(() -> {
            try {
                selecting.complete(selector.select());
            } catch (Throwable t) {
                selecting.completeExceptionally(t);
            }
        });
        // In select, whatever the machine's load: a close before it would be a closed selector's refusal instead.
        awaitCondition(() -> Arrays.stream(selectingThread.getStackTrace())
                .anyMatch(f -> f.getMethodName().equals("select")));
        selector.close();
        assertThat(selecting.get(WAIT, TimeUnit.MILLISECONDS)).isZero();
        assertThat(key.isValid()).isFalse();
        assertThat(p[1].isRegistered()).isFalse();
        assertThat(p[1].isOpen()).isTrue();
        p[0].write(ByteBuffer.wrap(new byte[2]));
        p[1].configureBlocking(true);
        assertThat(p[1].read(bytes(2))).isEqualTo(2);
    }

    @Test
    void aClosedSelectorRefusesEverything() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        selector.close();
        selector.close();
        assertThatThrownBy(selector::select).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(() -> selector.select(10)).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(selector::selectNow).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(() -> selector.select(k -> { })).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(selector::keys).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(selector::selectedKeys).isInstanceOf(ClosedSelectorException.class);
        assertThatThrownBy(() -> p[1].register(selector, OP_READ)).isInstanceOf(ClosedSelectorException.class);
        selector.wakeup();
    }

    @Test
    void anotherProvidersChannelIsRefused() throws Exception {
        Selector selector = selector();
        try (SocketChannel foreign = otherProvider().openSocketChannel()) {
            foreign.configureBlocking(false);
            assertThatThrownBy(() -> foreign.register(selector, OP_READ)).isInstanceOf(IllegalSelectorException.class);
        }
    }

    @Test
    void blockingChannelsCannotRegisterNorRegisteredOnesBlock() throws Exception {
        Selector selector = selector();
        SocketChannel[] p = pair(server());
        assertThatThrownBy(() -> p[0].register(selector, OP_READ)).isInstanceOf(IllegalBlockingModeException.class);
        SelectionKey key = p[1].register(selector, OP_READ);
        assertThatThrownBy(() -> p[1].configureBlocking(true)).isInstanceOf(IllegalBlockingModeException.class);
        assertThatThrownBy(() -> p[1].register(selector, OP_ACCEPT)).isInstanceOf(IllegalArgumentException.class);
        assertThat(p[1].register(selector, OP_WRITE, "b")).isSameAs(key);
        assertThat(key.interestOps()).isEqualTo(OP_WRITE);
        assertThat(key.attachment()).isEqualTo("b");
        assertThatThrownBy(() -> selector.selectedKeys().add(key)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> selector.keys().remove(key)).isInstanceOf(UnsupportedOperationException.class);
    }

    /** Iterating the selected keys while removing some, as every event loop does, visits each key once. */
    @Test
    void theSelectedKeySetVisitsEachKeyOnceWhileKeysAreRemoved() throws Exception {
        Selector selector = selector();
        List<SelectionKey> all = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            java.nio.channels.Pipe pipe = provider().openPipe();
            closing(pipe.sink()).write(ByteBuffer.wrap(new byte[] {(byte) i}));
            closing(pipe.source()).configureBlocking(false);
            all.add(pipe.source().register(selector, OP_READ, i));
        }
        while (selector.selectedKeys().size() < all.size()) {
            selector.select(WAIT);
        }
        List<SelectionKey> seen = new ArrayList<>();
        List<SelectionKey> kept = new ArrayList<>();
        for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
            SelectionKey key = it.next();
            seen.add(key);
            if ((Integer) key.attachment() % 2 == 0) {
                it.remove();
            } else {
                kept.add(key);
            }
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(all);
        assertThat(selector.selectedKeys()).containsExactlyInAnyOrderElementsOf(kept).hasSize(10);
        var it = selector.selectedKeys().iterator();
        it.next();
        selector.selectedKeys().remove(kept.getLast());
        assertThatThrownBy(it::next).isInstanceOf(java.util.ConcurrentModificationException.class);
        assertThat(selector.selectedKeys().contains(all.getFirst())).isFalse();
        assertThatThrownBy(() -> selector.selectedKeys().iterator().remove()).isInstanceOf(IllegalStateException.class);
        selector.selectedKeys().clear();
        assertThat(selector.selectedKeys()).isEmpty();
    }

    @Test
    void unixDomainSocketsSelectToo() throws Exception {
        Path dir = Files.createTempDirectory("uring4j-sel");
        Path path = dir.resolve("s");
        try {
            Selector selector = selector();
            ServerSocketChannel server = closing(provider().openServerSocketChannel(StandardProtocolFamily.UNIX));
            server.bind(UnixDomainSocketAddress.of(path));
            server.configureBlocking(false);
            server.register(selector, OP_ACCEPT);
            SocketChannel c = closing(provider().openSocketChannel(StandardProtocolFamily.UNIX));
            c.connect(server.getLocalAddress());
            assertThat(selector.select(WAIT)).isEqualTo(1);
            SocketChannel s = closing(server.accept());
            // Until an accept has found nothing, uring4j may report the listener ready once more (spurious
            // readiness, which the contract allows); the JDK's epoll asks the socket again.
            assertThat(server.accept()).isNull();
            s.configureBlocking(false);
            SelectionKey key = s.register(selector, OP_READ);
            selector.selectedKeys().clear();
            assertThat(selector.selectNow()).isZero();
            c.write(ByteBuffer.wrap("unix".getBytes()));
            assertThat(selector.select(WAIT)).isEqualTo(1);
            assertThat(only(selector)).isSameAs(key);
            ByteBuffer in = bytes(10);
            assertThat(s.read(in)).isEqualTo(4);
            assertThat(s.read(in)).isZero();
            assertThatThrownBy(s::socket).isInstanceOf(UnsupportedOperationException.class);
        } finally {
            Files.deleteIfExists(path);
            Files.delete(dir);
        }
    }
}
