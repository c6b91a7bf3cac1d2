package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.Await.someoneBlockedOn;
import static java.nio.channels.SelectionKey.OP_READ;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link UringSelector}'s multishot receives add to the selector contract: a registered channel's reads come
 * from its {@link Inbox}, in order and complete when the selector's provided buffers run out (ENOBUFS ends the
 * receives, which are armed again), bounded when nobody reads, a reset reported to that channel only, the bytes
 * received before a cancel read first in blocking mode, and nothing left behind by many connections.
 */
@BothEngines
class SelectorReceiveTest extends ClosesAfterEach {
    private static final long WAIT = 30_000;
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final UringSelectorProvider PROVIDER = new UringSelectorProvider();


    /** [blocking client, non-blocking accepted], both uring4j's. */
    private SocketChannel[] pair(ServerSocketChannel server) throws IOException {
        SocketChannel c = closing(PROVIDER.openSocketChannel());
        c.connect(server.getLocalAddress());
        SocketChannel s = closing(server.accept());
        s.configureBlocking(false);
        return new SocketChannel[] {c, s};
    }

    private ServerSocketChannel server() throws IOException {
        return closing(PROVIDER.openServerSocketChannel()).bind(LOOPBACK, 1024);
    }

    private static byte[] pattern(int connection, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (connection * 31 + i * 7 + i / 251);
        }
        return b;
    }

    private static void writeAll(SocketChannel ch, byte[] data) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(data);
        while (src.hasRemaining()) {
            ch.write(src);
        }
    }

    /** Reads {@code into} full through {@code selector}, selecting whenever a read finds nothing. */
    private static void readFully(Selector selector, SocketChannel ch, ByteBuffer into) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        while (into.hasRemaining()) {
            int n = ch.read(into);
            assertThat(n).as("end of stream before all bytes came").isNotNegative();
            if (n == 0) {
                assertThat(System.nanoTime() - deadline).as("bytes never came").isNegative();
                selector.select(100);
                selector.selectedKeys().clear();
            }
        }
    }

    @Test
    void moreThanTheProvidedBuffersHoldArrivesWholeAndInOrder() throws Exception {
        // 300 connections whose 20 KiB are all there before the receives are armed: they need more buffers than the
        // selector's ring has, so receives end with ENOBUFS and are armed again.
        int connections = 300;
        int size = 20 * 1024;
        Selector selector = closing(PROVIDER.openSelector());
        ServerSocketChannel server = server();
        List<SocketChannel[]> pairs = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            SocketChannel[] p = pair(server);
            p[1].register(selector, OP_READ);
            writeAll(p[0], pattern(i, size));
            pairs.add(p);
        }
        selector.selectNow();                               // arms the 300 receives at once
        for (int i = 0; i < connections; i++) {
            ByteBuffer got = ByteBuffer.allocate(size);
            readFully(selector, pairs.get(i)[1], got);
            assertThat(got.array()).as("connection %d", i).isEqualTo(pattern(i, size));
        }
        assertThat(((UringSelector) selector).enobufs).as("receives ended by ENOBUFS").isPositive();
    }

    @Test
    void anUnreadInboxStopsGrowingAndEverythingArrivesOnceRead() throws Exception {
        // The pause above the high-water mark is a cancel that goes out with the next enter. Until it lands, the
        // receive may fill the selector's whole ring in the enter that crossed the mark and again in the next one
        // (the buffers return to the ring as they are copied): that is what an unread channel can hold, a fraction
        // of what the peer sends.
        long bound = Inbox.HIGH_WATER + 2L * SelectorRing.BUFFERS * SelectorRing.BUFFER_SIZE;
        int size = 32 * 1024 * 1024;
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        selector.selectNow();
        byte[] data = pattern(7, size);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                writeAll(p[0], data);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        for (int i = 0; i < 50; i++) {
            selector.select(20);
            selector.selectedKeys().clear();
        }
        UringSelectionKey k = (UringSelectionKey) key;
        assertThat((long) k.link.inbox.available()).as("bytes held for a channel nobody reads")
                .isLessThanOrEqualTo(bound);
        assertThat(writer).as("the peer must wait for the reader").isNotDone();
        ByteBuffer got = ByteBuffer.allocate(size);
        readFully(selector, p[1], got);
        writer.get(WAIT, TimeUnit.MILLISECONDS);
        assertThat(got.array()).isEqualTo(data);
    }

    @Test
    void aResetIsTheNextReadsErrorOnThatChannelOnly() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        ServerSocketChannel server = server();
        SocketChannel[] a = pair(server);
        SocketChannel[] b = pair(server);
        a[1].register(selector, OP_READ);
        b[1].register(selector, OP_READ);
        selector.selectNow();
        writeAll(a[0], new byte[] {1, 2, 3});
        ByteBuffer got = ByteBuffer.allocate(3);
        readFully(selector, a[1], got);
        writeAll(a[0], new byte[] {4});
        a[0].setOption(StandardSocketOptions.SO_LINGER, 0);
        a[0].close();                                   // a reset, behind the byte before it
        ByteBuffer next = ByteBuffer.allocate(8);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT);
        IOException failure = null;
        while (failure == null && System.nanoTime() - deadline < 0) {
            try {
                if (a[1].read(next) == 0) {
                    selector.select(100);
                    selector.selectedKeys().clear();
                }
            } catch (IOException e) {
                failure = e;
            }
        }
        assertThat(failure).isInstanceOf(SocketException.class).hasMessage("Connection reset");
        assertThatThrownBy(() -> a[1].read(ByteBuffer.allocate(1))).hasMessage("Connection reset");
        writeAll(b[0], new byte[] {9});
        ByteBuffer other = ByteBuffer.allocate(1);
        readFully(selector, b[1], other);
        assertThat(other.get(0)).isEqualTo((byte) 9);
    }

    @Test
    void bytesReceivedBeforeACancelAreReadFirstInBlockingMode() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        writeAll(p[0], new byte[] {1, 2});
        assertThat(selector.select(WAIT)).isEqualTo(1);   // the inbox has them: the socket does not any more
        key.cancel();
        p[1].configureBlocking(true);                       // the receive is still armed until the next select
        writeAll(p[0], new byte[] {3, 4});
        CompletableFuture<Void> selecting = CompletableFuture.runAsync(() -> {
            try {
                selector.select(WAIT);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        ByteBuffer got = ByteBuffer.allocate(4);
        while (got.hasRemaining()) {
            assertThat(p[1].read(got)).isPositive();
        }
        assertThat(got.array()).containsExactly(1, 2, 3, 4);
        selector.wakeup();
        selecting.get(WAIT, TimeUnit.MILLISECONDS);
    }

    /**
     * As the JDK's HTTP server with its default executor does: the selecting thread cancels a readable key and
     * reads the rest of the request itself, in blocking mode, with no select to end the receive still armed.
     */
    @Test
    void theSelectingThreadReadsInBlockingModeAfterACancel() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server());
        SelectionKey key = p[1].register(selector, OP_READ);
        writeAll(p[0], new byte[] {1, 2});
        assertThat(selector.select(WAIT)).isEqualTo(1);
        key.cancel();
        p[1].configureBlocking(true);
        ByteBuffer got = ByteBuffer.allocate(4);
        assertThat(p[1].read(got)).isEqualTo(2);
        writeAll(p[0], new byte[] {3, 4});                  // taken by the receive: in the ring, not the socket
        CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
            try {
                while (got.hasRemaining()) {
                    assertThat(p[1].read(got)).isPositive();
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        reading.get(WAIT, TimeUnit.MILLISECONDS);           // nobody selects: the read must end the receive
        assertThat(got.array()).containsExactly(1, 2, 3, 4);
    }

    /**
     * A key cancelled while its select is about to arm its receive (and its channel turned blocking): the receive
     * must not be armed, or a blocking read that already found the inbox idle would call recv alongside it, and
     * bytes could come out of order.
     */
    @Test
    void aKeyCancelledAsItsReceiveIsArmedGetsNone() throws Exception {
        UringSelector selector = (UringSelector) closing(PROVIDER.openSelector());
        SocketChannel[] p = pair(server());
        Inbox inbox = ((UringSocketChannel) p[1]).link().inbox;
        CompletableFuture<Integer> selecting;
        synchronized (inbox) {              // the select stops where it arms the receive, past its validity check
            SelectionKey key = p[1].register(selector, OP_READ);
            selecting = CompletableFuture.supplyAsync(() -> {
                try {
                    return selector.select();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            awaitCondition(() -> someoneBlockedOn(inbox));
            key.cancel();
            p[1].configureBlocking(true);
        }
        awaitCondition(() -> selector.sends().waiting());      // past the arm, waiting in the kernel
        assertThat(inbox.armed()).as("a receive armed for a cancelled key").isFalse();
        selector.wakeup();
        selecting.get(WAIT, TimeUnit.MILLISECONDS);
    }

    @Test
    void tenThousandConnectionsLeaveNoFdsNorNativeMemoryBehind() throws Exception {
        Selector selector = closing(PROVIDER.openSelector());
        ServerSocketChannel server = server();
        SocketChannel[] warm = pair(server);                // the selector's buffers exist from here on
        warm[1].register(selector, OP_READ);
        selector.selectNow();                               // arms the first receive
        writeAll(warm[0], new byte[] {1});
        readFully(selector, warm[1], ByteBuffer.allocate(1));
        writeAll(warm[1], new byte[] {2});                  // and the outboxes' chunks
        selector.selectNow();
        assertThat(warm[0].read(ByteBuffer.allocate(1))).isEqualTo(1);
        OpenFds fds = OpenFds.snapshot();
        long memory = NativeMemory.inUse();
        ByteBuffer one = ByteBuffer.allocate(1);
        for (int i = 0; i < 10_000; i++) {
            try (SocketChannel c = PROVIDER.openSocketChannel()) {
                c.connect(server.getLocalAddress());
                try (SocketChannel s = server.accept()) {
                    s.configureBlocking(false);
                    s.register(selector, OP_READ);
                    selector.selectNow();
                    writeAll(c, new byte[] {(byte) i});
                    readFully(selector, s, one.clear());
                    assertThat(one.get(0)).isEqualTo((byte) i);
                    writeAll(s, new byte[] {(byte) ~i});     // queued: sent by the select below
                    selector.selectNow();
                    assertThat(c.read(one.clear())).isEqualTo(1);
                    assertThat(one.get(0)).isEqualTo((byte) ~i);
                }
            }
            if (i % 100 == 0) {
                selector.selectNow();                       // deregisters the closed channels, closing their fds
            }
        }
        selector.selectNow();
        fds.awaitNoneOpenedSince();
        assertThat(NativeMemory.inUse()).isEqualTo(memory);
    }
}
