package io.uring4j.net;

import io.uring4j.ring.Probe;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.OnVirtualThread;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.sys.Sockets;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Zero-copy sends on the runtime: the bytes arrive intact, and the request — with the buffer it holds — ends at
 * the F_NOTIF CQE, not at the result. One loop, and the peer is a JDK channel, so the send is the loop's only
 * request and the loop's in-flight count shows whether its slot (and so the buffer) is still held.
 */
@BothEngines
class ZeroCopySendTest {
    private Uring uring;
    private EventLoop loop;
    private Arena arena;
    private TcpListener listener;
    private SocketChannel peer;
    private TcpSocket socket;

    @BeforeAll
    static void kernelHasSendZc() throws Exception {
        assumeTrue(Probe.ofKernel().isSupported(Opcode.SEND_ZC), "this kernel lacks IORING_OP_SEND_ZC (6.0)");
    }

    @BeforeEach
    void connect() throws Exception {
        uring = Uring.builder().loops(1).build();
        loop = uring.loop();
        arena = Arena.ofShared();
        listener = TcpListener.bind(uring, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
        peer = SocketChannel.open(listener.localAddress());
        socket = listener.accept();
    }

    @AfterEach
    void close() throws Exception {
        peer.close();
        socket.close();
        listener.close();
        uring.close();
        arena.close();
    }

    @Test
    void largeWritesArriveIntactAndTheCallReturnsAfterTheNotification() throws Exception {
        byte[] data = Clients.random(6, 8 << 20);
        MemorySegment out = arena.allocateFrom(JAVA_BYTE, data);
        CompletableFuture<byte[]> read = OnVirtualThread.supply(() -> Clients.readFully(peer, 2 * data.length));

        CompletableFuture<Integer> written = OnVirtualThread.supply(() -> {
            socket.writeZeroCopy(out);
            return loop.stats().inFlight();
        });
        assertThat(written.get(10, TimeUnit.SECONDS)).as("requests holding a buffer after writeZeroCopy returned").isZero();
        long sent = 0;
        while (sent < data.length) {
            sent += socket.writeZeroCopyAsync(out.asSlice(sent)).get(10, TimeUnit.SECONDS);
        }

        byte[] back = read.get(10, TimeUnit.SECONDS);
        assertThat(Arrays.mismatch(Arrays.copyOf(back, data.length), data)).as("first bad byte, blocking").isEqualTo(-1);
        assertThat(Arrays.mismatch(Arrays.copyOfRange(back, data.length, back.length), data))
                .as("first bad byte, futures").isEqualTo(-1);
    }

    @Test
    void callbacksSeeTheResultThenTheNotificationAndTheRequestHoldsItsBufferUntilThen() throws Exception {
        MemorySegment out = arena.allocateFrom(JAVA_BYTE, Clients.random(7, 4096));
        List<String> seen = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.submit(NetOps.sendZc(socket.fd(), out), (result, flags) -> {
            seen.add(result + " " + CqeFlags.toString(flags) + " in flight " + loop.stats().inFlight());
            if (!CqeFlags.hasMore(flags)) {
                done.complete(null);
            }
        });
        done.get(10, TimeUnit.SECONDS);
        assertThat(seen).containsExactly(
                "4096 " + CqeFlags.toString(CqeFlags.F_MORE) + " in flight 1",
                "0 " + CqeFlags.toString(CqeFlags.F_NOTIF) + " in flight 0");
        assertThat(Clients.readFully(peer, 4096)).isEqualTo(out.toArray(JAVA_BYTE));
    }

    @Test
    void aFutureCompletesOnlyAtTheNotification() throws Exception {
        MemorySegment out = arena.allocateFrom(JAVA_BYTE, Clients.random(8, 64 * 1024));
        CompletableFuture<String> observed = new CompletableFuture<>();
        // Submitted and observed on the loop thread, so the observer is attached before any CQE is reaped and
        // runs inside the completion that completes the future.
        loop.execute(() -> socket.writeZeroCopyAsync(out).whenComplete((n, t) ->
                observed.complete(n + " bytes, in flight " + loop.stats().inFlight())));
        CompletableFuture<byte[]> read = OnVirtualThread.supply(() -> Clients.readFully(peer, 64 * 1024));
        assertThat(observed.get(10, TimeUnit.SECONDS)).isEqualTo(64 * 1024 + " bytes, in flight 0");
        assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(out.toArray(JAVA_BYTE));
    }

    @Test
    void aChainStepReportsTheBytesSentNotTheNotification() throws Exception {
        MemorySegment out = arena.allocateFrom(JAVA_BYTE, Clients.random(9, 4096));
        ChainResult r = loop.chain(NetOps.sendZc(socket.fd(), out)).then(Op.nop()).call();
        assertThat(r.result(0)).isEqualTo(4096);
        assertThat(r.result(1)).isZero();
        assertThat(Clients.readFully(peer, 4096)).isEqualTo(out.toArray(JAVA_BYTE));
    }

    @Test
    void aSendRefusedBeforeItStartsReportsAtOnceWithOpAndErrno() throws Exception {
        int fd = Sockets.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        assertThat(LibC.close(fd)).isZero();
        assertThatThrownBy(() -> loop.submitAsync(NetOps.sendZc(fd, arena.allocate(16))).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause()
                .isInstanceOf(ErrnoException.class).hasMessageStartingWith("SEND_ZC: EBADF");
    }
}
