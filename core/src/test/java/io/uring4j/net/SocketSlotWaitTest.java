package io.uring4j.net;

import io.uring4j.ring.Pipe;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The socket channels on a loop whose every slot is taken by requests of someone else (reads of a pipe no one
 * writes): interrupting a thread blocked in a read or an accept, or closing the channel under it, returns at once
 * — as the JDK's channels do — and wakes the blocked thread, instead of waiting for a slot to free (a read waits
 * for its socket's standing poll, which needs no slot). The blocking-style socket's close does the same.
 */
@BothEngines
class SocketSlotWaitTest {
    private static final long STUCK_SECONDS = 10;
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private Uring uring;
    private EventLoop loop;
    private Arena arena;
    private Pipe holder;
    private CompletableFuture<?>[] held;
    /** Closed after the runtime: its close ends whatever a failed test left blocked. */
    private final List<AutoCloseable> resources = new ArrayList<>();
    private SocketAddress peersAddress;
    private SocketChannel client;
    private SocketChannel unconnected;
    private ServerSocketChannel server;
    private TcpSocket socket;

    /**
     * A connected and an unconnected drop-in channel, a bound drop-in server and a connected blocking-style socket;
     * then no slot.
     */
    @BeforeEach
    void fillTheTable() throws Throwable {
        uring = Uring.builder().loops(1).maxInFlight(2).build();
        loop = uring.loop();
        arena = Arena.ofShared();
        ServerSocketChannel peers = open(ServerSocketChannel.open().bind(ANY_PORT));
        peersAddress = peers.getLocalAddress();
        client = open(UringSocketChannel.open(uring, peersAddress));
        open(peers.accept());
        socket = open(TcpSocket.connect(uring, (InetSocketAddress) peersAddress));
        open(peers.accept());
        unconnected = open(UringSocketChannel.open(uring));
        server = open(UringServerSocketChannel.open(uring).bind(ANY_PORT));
        holder = Pipe.open();
        held = new CompletableFuture<?>[] {
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1)),
                loop.submitAsync(Op.read(holder.readFd(), arena.allocate(8), -1))};
        awaitCondition(() -> loop.stats().inFlight() == 2);
    }

    private <T extends AutoCloseable> T open(T resource) {
        resources.add(resource);
        return resource;
    }

    @AfterEach
    void freeTheTable() throws Exception {
        holder.write(new byte[16]);
        CompletableFuture.allOf(held).get(STUCK_SECONDS, TimeUnit.SECONDS);
        uring.close();
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        holder.close();
        arena.close();
    }

    /** A read takes no slot: it waits for its socket's standing poll, which stands outside the table's bound. */
    @Test
    void interruptingAReaderWhileEverySlotIsTakenReturnsAtOnceAndClosesTheChannel() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = parkedReading(() -> client.read(ByteBuffer.allocateDirect(8)), thrown);
        interruptReturnsAtOnce(reader);
        awaitEnd(reader, "the interrupted reader returned");
        assertThat(thrown.get()).isInstanceOf(ClosedByInterruptException.class);
        assertThat(client.isOpen()).isFalse();
    }

    @Test
    void closingAChannelWhoseReaderWaitsWhileEverySlotIsTakenReturnsAtOnceAndWakesTheReader() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = parkedReading(() -> client.read(ByteBuffer.allocate(8)), thrown);
        closeReturnsAtOnce(client);
        awaitEnd(reader, "the close woke the reader");
        assertThat(thrown.get()).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void closingAChannelWhoseConnectWaitsForASlotReturnsAtOnceAndWakesTheConnect() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread connector = blocked(() -> unconnected.connect(peersAddress), thrown);
        closeReturnsAtOnce(unconnected);
        awaitEnd(connector, "the close woke the connect");
        assertThat(thrown.get()).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void interruptingAnAcceptThatWaitsForASlotReturnsAtOnceAndClosesTheChannel() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread acceptor = blocked(server::accept, thrown);
        interruptReturnsAtOnce(acceptor);
        awaitEnd(acceptor, "the interrupted accept returned");
        assertThat(thrown.get()).isInstanceOf(ClosedByInterruptException.class);
        assertThat(server.isOpen()).isFalse();
    }

    @Test
    void closingAServerWhoseAcceptWaitsForASlotReturnsAtOnceAndWakesTheAccept() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread acceptor = blocked(server::accept, thrown);
        closeReturnsAtOnce(server);
        awaitEnd(acceptor, "the close woke the accept");
        assertThat(thrown.get()).isInstanceOf(AsynchronousCloseException.class);
    }

    @Test
    void closingASocketWhoseReaderWaitsForASlotReturnsAtOnceAndWakesTheReader() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread reader = blocked(() -> socket.read(arena.allocate(8)), thrown);
        closeReturnsAtOnce(socket);
        awaitEnd(reader, "the close woke the reader");
        assertThat(thrown.get()).isInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void closingASocketWhoseTimedReceiveWaitsForASlotReturnsAtOnceAndWakesTheReceiver() throws Exception {
        UdpSocket udp = open(UdpSocket.bind(uring, ANY_PORT));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread receiver = blocked(() -> udp.receive(arena.allocate(8), Duration.ofMinutes(1)), thrown);
        closeReturnsAtOnce(udp);
        awaitEnd(receiver, "the close woke the receiver");
        assertThat(thrown.get()).isInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void closingASocketWhoseFutureReadWaitsForASlotReturnsAtOnceAndFailsTheFuture() throws Exception {
        long deferredBefore = loop.stats().tableFull();
        CompletableFuture<Integer> read = socket.readAsync(arena.allocate(8));
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        closeReturnsAtOnce(socket);
        assertThatThrownBy(() -> read.get(STUCK_SECONDS, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void shutdownOutputThenCloseWithEveryOrdinarySlotTakenReturnAtOnce() throws Exception {
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                client.shutdownOutput();
                client.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        awaitEnd(closer, "shutdownOutput() and close() returned while every slot was taken");
        assertThat(client.isOpen()).isFalse();
    }

    private interface BlockingCall {
        Object run() throws Exception;
    }

    /** A virtual thread in a read, once it is parked waiting for bytes; what it throws goes to {@code thrown}. */
    private Thread parkedReading(BlockingCall call, AtomicReference<Throwable> thrown) throws InterruptedException {
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                call.run();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
                .anyMatch(f -> f.getClassName().equals(ReadWait.class.getName())));
        return thread;
    }

    /** A virtual thread in {@code call}, once its request waits for a slot; what it throws goes to {@code thrown}. */
    private Thread blocked(BlockingCall call, AtomicReference<Throwable> thrown) throws InterruptedException {
        long deferredBefore = loop.stats().tableFull();
        Thread thread = Thread.ofVirtual().start(() -> {
            try {
                call.run();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitCondition(() -> loop.stats().tableFull() > deferredBefore);
        return thread;
    }

    private static void interruptReturnsAtOnce(Thread blocked) throws InterruptedException {
        Thread interrupter = Thread.ofPlatform().start(blocked::interrupt);
        awaitEnd(interrupter, "Thread.interrupt() returned while every slot was taken");
    }

    private static void closeReturnsAtOnce(AutoCloseable closeable) throws InterruptedException {
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        awaitEnd(closer, "close() returned while every slot was taken");
    }

    private static void awaitEnd(Thread thread, String what) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(STUCK_SECONDS));
        assertThat(thread.isAlive()).as(what).isFalse();
    }
}
