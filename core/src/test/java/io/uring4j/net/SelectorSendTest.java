package io.uring4j.net;

import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.Fields;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import static io.uring4j.testkit.Await.awaitCondition;
import static java.nio.channels.SelectionKey.OP_READ;
import static java.nio.channels.SelectionKey.OP_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link UringSelector}'s queued sends ({@link Outbox}) add to the channel contract: a write made between
 * selects returns at once and its bytes go out with the next enter, or with the flusher if nobody selects; what
 * was accepted before a close arrives, then the end of stream; a peer's reset is an IOException on that
 * channel's next write only; a blocking write after the key's cancel comes after the queued bytes; a full outbox
 * takes nothing and is writable again once its send has completed.
 */
@BothEngines
class SelectorSendTest extends ClosesAfterEach {
    private static final long WAIT = 30_000;
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final UringSelectorProvider PROVIDER = new UringSelectorProvider();


    /** [blocking client, non-blocking accepted and registered for OP_READ, its receive armed]. */
    private SocketChannel[] pair(ServerSocketChannel server, Selector selector) throws IOException {
        SocketChannel c = closing(PROVIDER.openSocketChannel());
        c.connect(server.getLocalAddress());
        SocketChannel s = closing(server.accept());
        s.configureBlocking(false);
        s.register(selector, OP_READ);
        selector.selectNow();
        return new SocketChannel[] {c, s};
    }

    private ServerSocketChannel server() throws IOException {
        return closing(PROVIDER.openServerSocketChannel()).bind(LOOPBACK);
    }

    private static byte[] pattern(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 7 + i / 251);
        }
        return b;
    }

    private static byte[] readAll(SocketChannel blocking, int length) throws IOException {
        ByteBuffer got = ByteBuffer.allocate(length);
        while (got.hasRemaining()) {
            assertThat(blocking.read(got)).as("end of stream too early").isPositive();
        }
        return got.array();
    }

    @Test
    void aWriteBetweenSelectsIsQueuedAndArrivesWithoutAnotherSelect() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(1000);
        assertThat(p[1].write(ByteBuffer.wrap(data))).isEqualTo(1000);
        assertThat(readAll(p[0], 1000)).isEqualTo(data);       // the flusher sends it: nobody selects
    }

    /**
     * Another selector selecting without pause (writing as it goes) spaces out the flusher's looks; they still come,
     * and send what a selector nobody selects has queued.
     */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWriteNobodySelectsForArrivesWhileAnotherSelectorKeepsSelecting() throws Exception {
        ServerSocketChannel server = server();
        Selector busy = closing(PROVIDER.openSelector());
        SocketChannel[] busyPair = pair(server, busy);
        Selector quiet = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server, quiet);
        AtomicBoolean stop = new AtomicBoolean();
        Thread selecting = Thread.ofPlatform().start(() -> {
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (!stop.get()) {
                    busyPair[1].write(one.clear());        // queued, then sent by this selector's own select
                    busy.selectNow();
                    busyPair[0].read(ByteBuffer.allocate(64));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            Thread.sleep(100);                              // the flusher's looks find the busy one selecting
            byte[] data = pattern(1000);
            assertThat(p[1].write(ByteBuffer.wrap(data))).isEqualTo(1000);
            assertThat(readAll(p[0], 1000)).isEqualTo(data);
        } finally {
            stop.set(true);
            selecting.join();
        }
    }

    /** Gathering writes (heap and direct buffers, as Jetty writes a header and a body) queue in order. */
    @Test
    void gatheringWritesBetweenSelectsAreQueuedInOrder() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(60_000);
        int at = 0;
        for (int i = 0; at < data.length; i++) {
            int head = Math.min(100 + i, data.length - at);
            int body = Math.min(900 + 37 * i, data.length - at - head);
            ByteBuffer direct = ByteBuffer.allocateDirect(body).put(data, at + head, body).flip();
            ByteBuffer[] srcs = {ByteBuffer.wrap(data, at, head), direct};
            while (srcs[0].hasRemaining() || srcs[1].hasRemaining()) {
                if (p[1].write(srcs) == 0) {
                    selector.selectNow();
                }
            }
            at += head + body;
        }
        assertThat(readAll(p[0], data.length)).isEqualTo(data);
    }

    @Test
    void bytesQueuedBeforeACloseArriveAndThenTheEndOfStream() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(Outbox.CAPACITY);
        ByteBuffer src = ByteBuffer.wrap(data);
        while (src.hasRemaining()) {
            if (p[1].write(src) == 0) {
                selector.selectNow();
            }
        }
        p[1].close();
        assertThat(readAll(p[0], data.length)).isEqualTo(data);
        selector.selectNow();                                  // deregisters: the fd closes after the last send
        assertThat(p[0].read(ByteBuffer.allocate(1))).isEqualTo(-1);
    }

    /**
     * A closed channel's queued bytes go out as a closed socket's buffer does — but to a peer that never reads
     * they cannot, and the fd (with the chunk) must not be held for ever: after the linger their send is given
     * up and the fd closed, though nobody selects again.
     */
    @Test
    void aClosedChannelsBytesThatThePeerNeverReadsAreGivenUpAfterTheLinger() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        int fd = ((UringSocketChannel) p[1]).link().guard.fd();
        ByteBuffer src = ByteBuffer.allocate(4096);             // small enough for the outbox to take
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (p[1].write(src.clear()) > 0) {                   // until the socket's buffers and the outbox are full
            selector.selectNow();
            assertThat(System.nanoTime() - deadline).as("never full").isNegative();
        }
        p[1].close();
        String before = System.setProperty(UringSelector.LINGER_PROPERTY, "100");
        try {
            selector.selectNow();                               // deregisters: the send waits for the peer
        } finally {
            if (before == null) {
                System.clearProperty(UringSelector.LINGER_PROPERTY);
            } else {
                System.setProperty(UringSelector.LINGER_PROPERTY, before);
            }
        }
        assertThat(Sockets.localPort(fd)).as("held while the send may go").isNotNegative();
        awaitCondition(() -> Sockets.localPort(fd) < 0);
    }

    /**
     * A close with input left unread resets the connection, as the kernel's close does: the bytes still queued are
     * dropped (the send cancelled, its chunk given back) and the fd closes without waiting for the peer to take
     * them; the peer reads what reached it, then the reset.
     */
    @Test
    void aCloseWithInputLeftUnreadDropsTheQueuedBytesAndResetsTheConnection() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        SelectorLink link = ((UringSocketChannel) p[1]).link();
        int fd = link.guard.fd();
        ByteBuffer src = ByteBuffer.allocate(4096);             // small enough for the outbox to take
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (p[1].write(src.clear()) > 0) {                   // until the socket's buffers and the outbox are full
            selector.selectNow();
            assertThat(System.nanoTime() - deadline).as("never full").isNegative();
        }
        p[0].write(ByteBuffer.wrap("unread".getBytes()));
        awaitCondition(() -> {
            try {
                selector.selectNow();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return link.inbox.available() == 6;
        });
        assertThat(link.outbox.idle()).as("bytes queued").isFalse();
        p[1].close();
        selector.selectNow();                                   // deregisters: the send is cancelled
        awaitCondition(() -> Sockets.localPort(fd) < 0);        // long before the linger's 30 s
        assertThat(link.outbox.idle()).as("the chunk given back").isTrue();
        ByteBuffer sink = ByteBuffer.allocate(1 << 16);
        assertThatThrownBy(() -> {
            while (p[0].read(sink.clear()) >= 0) {
                assertThat(System.nanoTime() - deadline).as("never reset").isNegative();
            }
        }).isInstanceOf(IOException.class).hasMessage("Connection reset");
    }

    @Test
    void aFullOutboxTakesNothingUntilItsSendCompletes() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        p[0].setOption(StandardSocketOptions.SO_RCVBUF, 4096);
        SelectionKey key = p[1].keyFor(selector);
        ByteBuffer src = ByteBuffer.allocate(1 << 20);          // far more than the socket buffers hold
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (p[1].write(src) > 0) {
            selector.selectNow();
            assertThat(System.nanoTime() - deadline).as("never full").isNegative();
        }
        key.interestOps(OP_READ | OP_WRITE);
        selector.selectNow();
        selector.selectedKeys().clear();
        int written = src.position();
        ByteBuffer sink = ByteBuffer.allocate(1 << 16);
        int read = 0;
        while (read < written) {                               // the peer drains: the outbox becomes writable
            int n = p[0].read(sink.clear());
            assertThat(n).isPositive();
            read += n;
            if (selector.selectNow() > 0) {
                break;
            }
        }
        assertThat(key.isWritable() || read >= written).isTrue();
        assertThat(p[1].write(ByteBuffer.allocate(1))).isEqualTo(1);
    }

    @Test
    void aResetFailsTheNextWriteOfThatChannelOnly() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        ServerSocketChannel server = server();
        SocketChannel[] a = pair(server, selector);
        SocketChannel[] b = pair(server, selector);
        a[0].setOption(StandardSocketOptions.SO_LINGER, 0);
        a[0].close();                                           // a reset
        IOException failure = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (failure == null && System.nanoTime() - deadline < 0) {
            try {
                a[1].write(ByteBuffer.wrap(pattern(100)));
                selector.select(10);
            } catch (IOException e) {
                failure = e;
            }
        }
        assertThat(failure).isNotNull();
        assertThat(b[1].write(ByteBuffer.wrap(pattern(100)))).isEqualTo(100);
        assertThat(readAll(b[0], 100)).isEqualTo(pattern(100));
    }

    @Test
    void aBlockingWriteAfterTheKeysCancelComesAfterTheQueuedBytes() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(3000);
        assertThat(p[1].write(ByteBuffer.wrap(data, 0, 1000))).isEqualTo(1000);
        p[1].keyFor(selector).cancel();
        p[1].configureBlocking(true);
        assertThat(p[1].write(ByteBuffer.wrap(data, 1000, 2000))).isEqualTo(2000);
        assertThat(readAll(p[0], 3000)).isEqualTo(data);
    }

    /**
     * A select's action that queues a write, cancels the key and writes the rest in blocking mode: the blocking
     * write waits for the queued bytes, which nobody else can send while the action holds the select.
     */
    @Test
    void aBlockingWriteInsideASelectActionAfterTheKeysCancel() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(3000);
        p[0].write(ByteBuffer.wrap(new byte[] {1}));            // makes the key selected
        CompletableFuture<Integer> selecting = CompletableFuture.supplyAsync(() -> {
            try {
                return selector.select(key -> {
                    try {
                        assertThat(p[1].write(ByteBuffer.wrap(data, 0, 1000))).isEqualTo(1000);
                        key.cancel();
                        p[1].configureBlocking(true);
                        assertThat(p[1].write(ByteBuffer.wrap(data, 1000, 2000))).isEqualTo(2000);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, WAIT);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(selecting.get(WAIT, TimeUnit.MILLISECONDS)).isEqualTo(1);
        assertThat(readAll(p[0], 3000)).isEqualTo(data);
    }

    /**
     * A write's outbox turns queued under its monitor and goes on the send queue after it: a cancel deregistering
     * the key in between must still send the bytes, and the send's completion must still come back to the outbox
     * (it was lost, the key's slot given up: the outbox stayed sending, and a blocking write waited for ever).
     */
    @Test
    void aWriteQueuedAsItsKeyIsDeregisteredGoesOutAndCompletes() throws Exception {
        UringSelector selector = (UringSelector) closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        UringSelectionKey key = (UringSelectionKey) p[1].keyFor(selector);
        byte[] data = pattern(3000);
        writeNotYetOnTheSendQueue(selector, p[1], ByteBuffer.wrap(data, 0, 1000));
        key.cancel();
        selector.selectNow();                                  // deregisters the key
        selector.sends().queue(key);                           // the writer goes on
        selector.selectNow();
        p[1].configureBlocking(true);
        CompletableFuture<Integer> write = CompletableFuture.supplyAsync(() -> {
            try {
                return p[1].write(ByteBuffer.wrap(data, 1000, 2000));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(write.get(WAIT, TimeUnit.MILLISECONDS)).isEqualTo(2000);
        assertThat(readAll(p[0], 3000)).isEqualTo(data);
    }

    /** A writer's bytes queued as the selector closes (not on its send queue yet) go out with the close. */
    @Test
    void bytesQueuedAsTheSelectorClosesArrive() throws Exception {
        UringSelector selector = (UringSelector) PROVIDER.openSelector();
        SocketChannel[] p = pair(server(), selector);
        byte[] data = pattern(1000);
        UringSelectionKey key = (UringSelectionKey) p[1].keyFor(selector);
        writeNotYetOnTheSendQueue(selector, p[1], ByteBuffer.wrap(data));
        selector.close();
        selector.sends().queue(key);                           // the writer goes on
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                return readAll(p[0], 1000);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(read.get(WAIT, TimeUnit.MILLISECONDS)).isEqualTo(data);
    }

    /**
     * A channel registered with two selectors has its outbox with the one that receives for it: the other's close
     * must leave it alone (it reset it under a send in flight, whose completion then failed the first's select).
     */
    @Test
    void anotherSelectorsCloseLeavesTheOutboxAlone() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server(), selector);
        p[0].setOption(StandardSocketOptions.SO_RCVBUF, 4096);
        p[1].setOption(StandardSocketOptions.SO_SNDBUF, 4096);
        Selector other = PROVIDER.openSelector();
        p[1].register(other, OP_WRITE);
        other.selectNow();
        byte[] data = pattern(1 << 22);                        // far more than the socket buffers hold
        int written = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        int n;
        while ((n = p[1].write(ByteBuffer.wrap(data, written, 1000))) > 0) {   // small: queued, not sent in place
            written += n;
            selector.selectNow();
            assertThat(System.nanoTime() - deadline).as("never full").isNegative();
        }
        assertThat(((UringSocketChannel) p[1]).link().outbox.idle()).as("a send waiting").isFalse();
        other.close();
        int total = written;
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                return readAll(p[0], total);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        while (!read.isDone()) {
            selector.select(10);
        }
        assertThat(read.get()).isEqualTo(Arrays.copyOf(data, total));
    }

    /**
     * Writes {@code src} (all of it queued in the outbox) and takes the key off the send queue again: the state a
     * writer leaves between its outbox's monitor and the queue. The select lock keeps the flusher out meanwhile.
     */
    private static void writeNotYetOnTheSendQueue(UringSelector selector, SocketChannel channel, ByteBuffer src)
            throws Exception {
        ArrayDeque<?> sendQueue = Fields.read(SelectorSends.class, "queued", selector.sends());
        ReentrantLock selectLock = Fields.read(UringSelector.class, "selectLock", selector);
        int length = src.remaining();
        selectLock.lock();
        try {
            assertThat(channel.write(src)).isEqualTo(length);
            synchronized (sendQueue) {
                assertThat(sendQueue.remove(channel.keyFor(selector))).isTrue();
            }
        } finally {
            selectLock.unlock();
        }
    }
}
