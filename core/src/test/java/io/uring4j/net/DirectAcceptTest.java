package io.uring4j.net;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Accepts straight into a loop's registered file table (single and multishot), and the direct descriptors they
 * give used for recv, send, cancel and close. One loop, so every request meets the table it needs.
 */
@BothEngines
class DirectAcceptTest {
    private static final int SLOTS = 8;

    private Uring uring;
    private EventLoop loop;
    private Arena arena;
    private TcpListener listener;
    private final List<SocketChannel> clients = new ArrayList<>();

    @BeforeEach
    void open() throws Exception {
        uring = Uring.builder().loops(1).directDescriptors(SLOTS).build();
        loop = uring.loop();
        arena = Arena.ofShared();
        listener = TcpListener.bind(uring, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    }

    @AfterEach
    void close() throws Exception {
        for (SocketChannel c : clients) {
            c.close();
        }
        listener.close();
        uring.close();
        arena.close();
    }

    private SocketChannel client() throws Exception {
        SocketChannel c = SocketChannel.open(listener.localAddress());
        clients.add(c);
        return c;
    }

    private MemorySegment bytes(String s) {
        return arena.allocateFrom(s).asSlice(0, s.length());
    }

    private String receive(int slot) throws Exception {
        MemorySegment in = arena.allocate(64);
        int n = loop.call(NetOps.recvDirect(slot, in));
        return new String(in.asSlice(0, n).toArray(JAVA_BYTE));
    }

    private static String read(SocketChannel c, int n) throws Exception {
        return new String(Clients.readFully(c, n));
    }

    @Test
    void anAcceptedSlotCarriesRecvSendAndClose() throws Exception {
        CompletableFuture<Integer> accepted = loop.submitAsync(NetOps.acceptDirect(listener.fd()));
        SocketChannel c = client();
        int slot = accepted.get(10, TimeUnit.SECONDS);
        assertThat(slot).isBetween(0, SLOTS - 1);

        c.write(ByteBuffer.wrap("hello".getBytes()));
        assertThat(receive(slot)).isEqualTo("hello");
        assertThat(loop.call(NetOps.sendDirect(slot, bytes("world")))).isEqualTo(5);
        assertThat(read(c, 5)).isEqualTo("world");

        assertThat(loop.call(Op.closeDirect(slot))).isZero();
        assertThat(c.read(ByteBuffer.allocate(8))).as("the peer sees the close").isEqualTo(-1);
        assertThatThrownBy(() -> receive(slot))
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("RECV: EBADF");
    }

    @Test
    void aMultishotAcceptFillsDistinctSlotsUntilCancelled() throws Exception {
        LinkedBlockingQueue<int[]> cqes = new LinkedBlockingQueue<>();
        loop.submit(NetOps.acceptDirectMultishot(listener.fd()), (result, flags) -> cqes.add(new int[]{result, flags}));
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            client();
            int[] cqe = cqes.poll(10, TimeUnit.SECONDS);
            assertThat(cqe).as("accept %d within 10 s", i).isNotNull();
            assertThat(CqeFlags.hasMore(cqe[1])).as("F_MORE on accept %d", i).isTrue();
            slots.add(cqe[0]);
        }
        assertThat(slots).doesNotHaveDuplicates().allMatch(s -> s >= 0 && s < SLOTS);

        for (int i = 0; i < 3; i++) {                       // each slot is its own connection, in accept order
            clients.get(i).write(ByteBuffer.wrap(("to " + i).getBytes()));
            assertThat(receive(slots.get(i))).isEqualTo("to " + i);
            loop.call(NetOps.sendDirect(slots.get(i), bytes("from " + i)));
            assertThat(read(clients.get(i), 6)).isEqualTo("from " + i);
        }

        assertThat(loop.call(Op.cancelFd(listener.fd()))).isEqualTo(1);
        int[] last = cqes.poll(10, TimeUnit.SECONDS);
        assertThat(last).isNotNull();
        assertThat(CqeFlags.hasMore(last[1])).as("the cancelled accept's last CQE ends it").isFalse();
        for (int slot : slots) {
            assertThat(loop.call(Op.closeDirect(slot))).isZero();
        }
    }

    @Test
    void aRecvInFlightOnASlotIsCancelledByFixedFdBeforeTheClose() throws Exception {
        CompletableFuture<Integer> accepted = loop.submitAsync(NetOps.acceptDirect(listener.fd()));
        SocketChannel c = client();
        int slot = accepted.get(10, TimeUnit.SECONDS);
        CompletableFuture<Integer> recv = loop.submitAsync(NetOps.recvDirect(slot, arena.allocate(16)));

        assertThat(loop.call(Op.cancelDirect(slot))).as("requests cancelled on the slot").isEqualTo(1);
        assertThatThrownBy(() -> recv.join()).cause()
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("RECV: ECANCELED");
        assertThat(loop.call(Op.closeDirect(slot))).isZero();
        assertThat(c.read(ByteBuffer.allocate(8))).isEqualTo(-1);
    }

    @Test
    void aFullTableRefusesTheAccept() throws Exception {
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            CompletableFuture<Integer> accepted = loop.submitAsync(NetOps.acceptDirect(listener.fd()));
            client();
            slots.add(accepted.get(10, TimeUnit.SECONDS));
        }
        CompletableFuture<Integer> ninth = loop.submitAsync(NetOps.acceptDirect(listener.fd()));
        client();
        assertThatThrownBy(() -> ninth.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("ACCEPT: ENFILE");
        for (int slot : slots) {
            loop.call(Op.closeDirect(slot));
        }
    }
}
