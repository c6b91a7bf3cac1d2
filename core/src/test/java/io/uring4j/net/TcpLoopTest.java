package io.uring4j.net;

import io.uring4j.ring.Engine;
import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.Features;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The loop style: {@link Tcp} servers and clients, their buffer ring, write path and close. */
@BothEngines
class TcpLoopTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    void aHundredConnectionsEchoTenMebibytesEachInOrder() throws Exception {
        try (Uring uring = Uring.builder().loops(2).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            // odd chunks cross buffer boundaries
            Clients.echoConcurrently(server.localAddress(), Clients.INTEGRITY_CONNECTIONS, Clients.INTEGRITY_BYTES, 7_919, 60);
        }
    }

    /**
     * A peer that sends requests and never reads the answers: the server stops reading it, and what its receive
     * had already delivered is answered only as the output drains. So the output the connection holds stays
     * within the high-water mark plus the answers to one receive buffer, and another connection is served.
     */
    @Test
    void aPeerThatNeverReadsHoldsBoundedOutputAndOthersAreStillServed() throws Exception {
        int answerPerByte = 64;
        int bufferSize = 4096;
        long highWater = 64 * 1024;
        Tcp.Config config = Tcp.Config.defaults().withRecvBuffers(256, bufferSize).withWriteHighWater(highWater);
        AtomicLong mostPending = new AtomicLong();
        MemorySegment answer = MemorySegment.ofArray(new byte[answerPerByte * bufferSize]);
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring, config)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> (connection, data, offset, length) -> {
                connection.write(answer, 0, (long) answerPerByte * length);
                mostPending.accumulateAndGet(connection.pendingBytes(), Math::max);
            });
            try (SocketChannel abuser = SocketChannel.open(server.localAddress())) {
                abuser.configureBlocking(false);
                ByteBuffer requests = ByteBuffer.allocateDirect(1 << 16);
                long sent = 0;
                for (int idle = 0; idle < 200 && sent < (64L << 20); ) {
                    requests.clear();
                    int n = abuser.write(requests);
                    sent += n;
                    idle = n == 0 ? idle + 1 : 0;
                    if (n == 0) {
                        Thread.sleep(1);
                    }
                }
                assertThat(sent).as("the peer's requests went out until the server stopped reading").isPositive();
                assertThat(mostPending.get()).as("output held for the peer that never reads")
                        .isLessThanOrEqualTo(highWater + (long) answerPerByte * bufferSize);
                try (SocketChannel canary = SocketChannel.open(server.localAddress())) {
                    Clients.writeFully(canary, ByteBuffer.wrap(new byte[] {1}));
                    assertThat(Clients.readFully(canary, answerPerByte)).hasSize(answerPerByte);
                }
            }
        }
    }

    /**
     * Out of descriptors, an accept fails at once for as long as the connection waits in the backlog: the
     * acceptor pauses instead of re-arming at once (it spun at 100 % CPU), the loop survives its logging, and
     * the connection is served once descriptors are back. The test runs the process out of descriptors by
     * lowering RLIMIT_NOFILE just above those in use and filling the rest.
     */
    @Test
    void runningOutOfDescriptorsPausesAcceptingWithoutSpinningAndServiceResumes() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring);
             SocketChannel client = SocketChannel.open()) {            // its descriptor, before they run out
            // Once served before, so that the classes on the way are loaded: a class file is a descriptor too.
            TcpServer warmUp = tcp.listen(ANY_PORT, EchoHandler::new);
            try (SocketChannel first = SocketChannel.open(warmUp.localAddress())) {
                Clients.writeFully(first, ByteBuffer.wrap(new byte[] {1}));
                assertThat(Clients.readFully(first, 1)).containsExactly(1);
            }
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!tcp.stats(0).endsWith(" open=0")) {     // its descriptor closed before the limit is set
                assertThat(System.nanoTime() - settle).as("the warm-up connection closed").isNegative();
                Thread.sleep(1);
            }
            assertThat(tcp.stats(0) + uring.loop(0).stats()).isNotEmpty();     // loaded for the message below
            List<Integer> fillers = new ArrayList<>();
            long[] limit = LibC.getrlimit(LibC.RLIMIT_NOFILE);
            long enters;
            try {
                long highest;
                try (var fds = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
                    highest = fds.mapToLong(p -> Long.parseLong(p.getFileName().toString())).max().orElseThrow();
                }
                assertThat(LibC.setrlimit(LibC.RLIMIT_NOFILE, highest + 8, limit[1])).isZero();
                // Listening now: the kernel's accept takes the descriptor limit in force when it is prepared.
                TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
                for (int fd; (fd = LibC.eventfd(0, LibC.EFD_CLOEXEC)) >= 0; ) {
                    fillers.add(fd);
                }
                // The portable engine closes the duplicate descriptor of an ended poll (the warm-up connection's)
                // in its own time: take whatever it gives back before the accept can.
                Thread.sleep(200);
                for (int fd; (fd = LibC.eventfd(0, LibC.EFD_CLOEXEC)) >= 0; ) {
                    fillers.add(fd);
                }
                client.connect(server.localAddress());          // completed by the kernel; accepting fails
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (tcp.acceptPauses() == 0) {
                    assertThat(System.nanoTime() - deadline).as("the accept failed and paused: %s %s", tcp.stats(0), uring.loop(0).stats()).isNegative();
                    Thread.sleep(1);
                }
                enters = uring.loop(0).stats().enters();
                Thread.sleep(300);
                enters = uring.loop(0).stats().enters() - enters;
            } finally {
                fillers.forEach(LibC::close);
                LibC.setrlimit(LibC.RLIMIT_NOFILE, limit[0], limit[1]);
            }
            // Paused 10, 20, 40, 80, 160 ms: a few wake-ups, where a spin makes hundreds of thousands.
            assertThat(enters).as("io_uring_enter calls in 300 ms without descriptors").isLessThan(100);
            Clients.writeFully(client, ByteBuffer.wrap(new byte[] {42}));
            assertThat(Clients.readFully(client, 1)).containsExactly(42);
        }
    }

    /**
     * Idle connections take no request slot: their receives are standing requests. A loop allowed 64 requests in
     * flight carries a thousand connections, refuses none, and answers every one of them — all asking at once.
     */
    @Test
    void idleConnectionsTakeNoRequestSlots() throws Exception {
        int connections = 1_000;
        try (Uring uring = Uring.builder().loops(1).maxInFlight(64).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < connections; i++) {
                    idle.add(connectTimed(server.localAddress()));
                }
                awaitCondition(() -> tcp.accepted() + tcp.acceptRefusals() == connections);
                assertThat(tcp.acceptRefusals()).as("refused: %s", tcp.stats(0)).isZero();
                for (int i = 0; i < connections; i++) {
                    idle.get(i).getOutputStream().write(new byte[] {(byte) i, (byte) (i >> 8)});
                }
                for (int i = 0; i < connections; i++) {
                    assertThat(idle.get(i).getInputStream().readNBytes(2)).containsExactly((byte) i, (byte) (i >> 8));
                }
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    /** An idle connection holds no output buffer: it went back to the loop when its last answer was sent. */
    @Test
    void idleConnectionsHoldNoOutputMemory() throws Exception {
        int connections = 500;
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            List<Socket> idle = new ArrayList<>();
            try {
                echo(connectTimed(server.localAddress()), 'w');     // the loop's first buffer, kept as a spare
                long before = Uring.nativeBytesInUse();
                for (int i = 0; i < connections; i++) {
                    Socket s = connectTimed(server.localAddress());
                    idle.add(s);
                    echo(s, 'e');
                }
                long perConnection = (Uring.nativeBytesInUse() - before) / connections;
                assertThat(perConnection).as("native bytes per idle connection (the first output buffer: %d)",
                        tcp.config().initialWriteBuffer()).isLessThan(1024);
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    /**
     * When the loop is busy — its request slots held by work in flight (here: timeouts a handler starts) — a new
     * connection is closed as soon as it is accepted, and the connections it has are still served with the slots
     * kept for them; once the work ends, new connections are taken again.
     */
    @Test
    void whenRequestsInFlightNearTheBoundNewConnectionsAreRefusedAndOldOnesStillServed() throws Exception {
        int maxInFlight = 64;
        List<Long> held = new CopyOnWriteArrayList<>();
        Op hold = (sqe, scratch) -> {
            Timespec.set(scratch, TimeUnit.MINUTES.toNanos(10));
            sqe.prepTimeout(scratch, 0, 0);
            held.add(sqe.userData());
        };
        CompletionHandler ignore = (result, flags) -> { };
        // 'H' takes every slot but the kept eighth; 'R' ends them; anything else echoes.
        Supplier<ConnectionHandler> handlers = () -> (connection, data, offset, length) -> {
            byte b = data.get(ValueLayout.JAVA_BYTE, offset);
            if (b == 'H') {
                for (int i = 0; i < maxInFlight - maxInFlight / 8; i++) {
                    connection.loop().submit(hold, ignore);
                }
            } else if (b == 'R') {
                held.forEach(connection.loop()::cancel);
                held.clear();
            }
            connection.write(data, offset, length);
        };
        try (Uring uring = Uring.builder().loops(1).maxInFlight(maxInFlight).build(); Tcp tcp = Tcp.open(uring);
             Socket holder = connectTimed(tcp.listen(ANY_PORT, handlers).localAddress())) {
            InetSocketAddress address = new InetSocketAddress(holder.getInetAddress(), holder.getPort());
            try (Socket old = connectTimed(address)) {
                awaitCondition(() -> tcp.accepted() == 2);             // both taken before the loop gets busy
                echo(holder, 'H');
                awaitCondition(() -> held.size() == maxInFlight - maxInFlight / 8);
                try (Socket refused = connectTimed(address)) {
                    assertThat(refused.getInputStream().read()).as("the refused connection reads EOF").isEqualTo(-1);
                }
                awaitCondition(() -> tcp.acceptRefusals() == 1);       // counted: the peer may read EOF first
                echo(old, 'x');
                echo(holder, 'R');
                awaitCondition(() -> held.isEmpty());
                try (Socket fresh = connectTimed(address)) {
                    echo(fresh, 'y');
                }
                assertThat(tcp.acceptRefusals()).isEqualTo(1);
                assertThat(tcp.accepted()).isEqualTo(3);
            }
        }
    }

    private static void echo(Socket s, char c) throws IOException {
        s.getOutputStream().write(c);
        assertThat(s.getInputStream().read()).as("echo of %s", c).isEqualTo(c);
    }

    /** A JDK socket whose reads fail the test after ten seconds instead of hanging it. */
    private static Socket connectTimed(InetSocketAddress address) throws IOException {
        Socket s = new Socket(address.getAddress(), address.getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    @Test
    void batchedSleepsLoseNothingAndDoNotDelayLightLoad() throws Exception {
        Duration delay = Duration.ofMillis(300);
        try (Uring uring = Uring.builder().loops(1).batchWait(16, delay).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            // Load: 32 connections at once, so wake-ups reap batches and the sleeps after them wait for more.
            Clients.echoConcurrently(server.localAddress(), 32, 1 << 20, 4_093, 60);
            if (uring.loop(0).ring().hasFeature(Features.MIN_TIMEOUT)) {     // not on the portable engine
                assertThat(uring.loop(0).stats().batchWaits()).as("sleeps that waited for a batch").isPositive();
            }
            // Light load: one connection taking turns. Each sleep waits for one CQE again (the first one after
            // the load may still wait out the delay once); were every turn to wait 300 ms, 20 would take 6 s.
            try (SocketChannel ch = SocketChannel.open(server.localAddress())) {
                long start = System.nanoTime();
                for (int i = 0; i < 20; i++) {
                    Clients.writeFully(ch, ByteBuffer.wrap(new byte[] {(byte) i}));
                    assertThat(Clients.readFully(ch, 1)).containsExactly((byte) i);
                }
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(delay.multipliedBy(10));
            }
        }
    }

    @Test
    void bufferRingExhaustionLosesNothingAndRearms() throws Exception {
        // 4 buffers of 256 bytes for 20 connections bursting 256 KiB each: the ring runs dry over and over.
        Tcp.Config small = Tcp.Config.defaults().withRecvBuffers(4, 256);
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring, small)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            Clients.echoConcurrently(server.localAddress(), 20, 256 << 10, 64 << 10, 60);
            assertThat(tcp.enobufs()).as("ENOBUFS re-arms").isPositive();
        }
    }

    @Test
    void aSlowReaderPausesReadingAndBoundsPendingOutput() throws Exception {
        long highWater = 256 << 10;
        Tcp.Config config = Tcp.Config.defaults().withRecvBuffers(16, 16 << 10).withWriteHighWater(highWater);
        EchoHandler echo = new EchoHandler() {
            @Override
            public void onOpen(Connection c) {
                try {
                    // Small kernel buffers on both sides, so the stream cannot hide in them: it backs up in ours.
                    SocketOptions.receiveBufferSize(c.fd(), 64 << 10);
                    SocketOptions.sendBufferSize(c.fd(), 64 << 10);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring, config)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> echo);
            byte[] data = Clients.random(7, 16 << 20);
            // The channel is closed first: should an assertion fail, that ends the blocked writer, so the
            // executor's close does not wait for it forever.
            try (var writerThread = Executors.newVirtualThreadPerTaskExecutor();
                 SocketChannel ch = SocketChannel.open()) {
                ch.setOption(StandardSocketOptions.SO_RCVBUF, 64 << 10);
                ch.setOption(StandardSocketOptions.SO_SNDBUF, 64 << 10);
                ch.connect(server.localAddress());
                Future<?> written = writerThread.submit(() -> Clients.writeFully(ch, ByteBuffer.wrap(data)));
                // The client does not read: the server's output backs up until it pauses reading.
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (tcp.backPressurePauses() == 0 && System.nanoTime() < until) {
                    Thread.sleep(10);
                }
                assertThat(tcp.backPressurePauses()).isPositive();
                assertThat(written).as("the writer is held back too").isNotDone();
                CompletableFuture<byte[]> back = CompletableFuture.supplyAsync(() -> {
                    try {
                        return Clients.readFully(ch, data.length);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                try {
                    assertThat(back.get(30, TimeUnit.SECONDS)).isEqualTo(data);
                } catch (java.util.concurrent.TimeoutException e) {
                    CompletableFuture<String> state = new CompletableFuture<>();
                    uring.loop(0).execute(() -> state.complete(tcp.stats(0) + " " + echo.last));
                    throw new AssertionError("echo stalled: " + state.get(5, TimeUnit.SECONDS) + " " + uring.loop(0).stats(), e);
                }
                written.get(30, TimeUnit.SECONDS);
            }
            // Bound: the high-water mark plus what the receives in flight can deliver (the whole ring).
            assertThat(echo.maxPending.get()).isGreaterThan(highWater)
                    .isLessThanOrEqualTo(highWater + 16 * (16 << 10));
        }
    }

    @Test
    void halfCloseLetsTheServerAnswerAfterEof() throws Exception {
        ConnectionHandler replyAtEof = new ConnectionHandler() {
            long received;

            @Override
            public void onData(Connection c, MemorySegment data, long offset, int length) {
                received += length;
            }

            @Override
            public void onInputClosed(Connection c) {
                c.write(("got " + received).getBytes(StandardCharsets.US_ASCII));
                c.close();        // after the write is sent
            }
        };
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> replyAtEof);
            try (SocketChannel ch = SocketChannel.open(server.localAddress())) {
                ch.write(ByteBuffer.wrap(new byte[1000]));
                ch.shutdownOutput();
                ByteBuffer in = ByteBuffer.allocate(64);
                while (ch.read(in) >= 0) {
                    // until the server's close
                }
                assertThat(new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII)).isEqualTo("got 1000");
            }
        }
    }

    @Test
    void aPeerResetClosesTheConnectionWithConnectionReset() throws Exception {
        EchoHandler echo = new EchoHandler();
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> echo);
            SocketChannel ch = SocketChannel.open(server.localAddress());
            ch.write(ByteBuffer.wrap(new byte[10]));
            Clients.readFully(ch, 10);
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);    // close sends RST
            ch.close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!echo.closed && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(echo.closeCause.get()).isInstanceOf(SocketException.class).hasMessage("Connection reset");
        }
    }

    /**
     * A peer that never reads resets while a send to it is in flight: at onClose the socket is shut down but its
     * descriptor still open, so its number cannot go to another socket under the send; it is closed after.
     */
    @Test
    void aResetUnderASendInFlightKeepsTheDescriptorUntilTheSendEnds() throws Exception {
        CompletableFuture<Path> socketAtClose = new CompletableFuture<>();
        AtomicInteger serverFd = new AtomicInteger(-1);
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> new ConnectionHandler() {
                @Override
                public void onData(Connection c, MemorySegment data, long offset, int length) {
                    serverFd.set(c.fd());
                    c.write(new byte[32 << 20]);        // far more than the socket buffers: the send stays out
                }

                @Override
                public void onClose(Connection c, IOException cause) {
                    try {
                        socketAtClose.complete(Files.readSymbolicLink(Path.of("/proc/self/fd/" + c.fd())));
                    } catch (IOException closedAlready) {
                        socketAtClose.completeExceptionally(closedAlready);
                    }
                }
            });
            SocketChannel ch = SocketChannel.open(server.localAddress());
            ch.write(ByteBuffer.wrap(new byte[1]));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (serverFd.get() < 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);    // close sends RST
            ch.close();
            Path socket = socketAtClose.get(10, TimeUnit.SECONDS);     // fails if the fd was closed at onClose
            assertThat(socket.toString()).startsWith("socket:");
            Path fd = Path.of("/proc/self/fd/" + serverFd.get());
            while (socket.equals(target(fd)) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(target(fd)).as("closed once the send has ended").isNotEqualTo(socket);
        }
    }

    /** Where {@code /proc/self/fd/N} points, or null if N is not open. */
    private static Path target(Path fd) {
        try {
            return Files.readSymbolicLink(fd);
        } catch (IOException notOpen) {
            return null;
        }
    }

    @Test
    void loopStyleClientConnectsAndEchoes() throws Exception {
        try (Uring uring = Uring.builder().loops(2).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            CompletableFuture<String> reply = new CompletableFuture<>();
            tcp.connect(server.localAddress(), new ConnectionHandler() {
                @Override
                public void onOpen(Connection c) {
                    c.write("hello".getBytes(StandardCharsets.US_ASCII));
                }

                @Override
                public void onData(Connection c, MemorySegment data, long offset, int length) {
                    reply.complete(new String(data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                            StandardCharsets.US_ASCII));
                    c.close();
                }
            }).get(10, TimeUnit.SECONDS);
            assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
            InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
            assertThat(tcp.connect(nobody, new EchoHandler())).failsWithin(10, TimeUnit.SECONDS)
                    .withThrowableThat().havingCause().isInstanceOf(java.net.ConnectException.class);
        }
    }

    @Test
    void closingTheRuntimeWithIdleReceivesClosesEverySocketPromptly() throws Exception {
        OpenFds fds = OpenFds.snapshot();
        Uring uring = Uring.builder().loops(2).build();
        Tcp tcp = Tcp.open(uring);
        List<EchoHandler> handlers = new CopyOnWriteArrayList<>();
        TcpServer server = tcp.listen(ANY_PORT, () -> {
            EchoHandler h = new EchoHandler();
            handlers.add(h);
            return h;
        });
        List<SocketChannel> clients = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            SocketChannel ch = SocketChannel.open(server.localAddress());
            ch.write(ByteBuffer.wrap(new byte[] {1}));
            Clients.readFully(ch, 1);           // the server side is open with its receive armed
            clients.add(ch);
        }
        assertThat(handlers).hasSize(100);

        long start = System.nanoTime();
        uring.close();
        tcp.close();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);

        assertThat(handlers).allSatisfy(h -> assertThat(h.closed).isTrue());
        for (SocketChannel ch : clients) {
            assertThat(ch.read(ByteBuffer.allocate(1))).as("the server closed its side").isEqualTo(-1);
            ch.close();
        }
        fds.assertNoneOpenedSince();
    }

    @Test
    void steadyStateRequestsAllocateNothingOnTheLoopThread() throws Exception {
        // Intended difference: on the portable engine the socket system calls themselves (recv, send, epoll_ctl)
        // run in enter on the loop thread (COOP_TASKRUN), and every FFM downcall that captures errno allocates.
        assumeFalse(Engine.configured() == Engine.portable(),
                "portable engine: its own system calls run on the loop thread and allocate per downcall");
        AtomicLong loopThread = new AtomicLong();
        try (Uring uring = Uring.builder().loops(1).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, () -> {
                loopThread.set(Thread.currentThread().threadId());
                return new EchoHandler();
            });
            var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            try (SocketChannel ch = SocketChannel.open(server.localAddress())) {
                ByteBuffer out = ByteBuffer.allocateDirect(64);
                ByteBuffer in = ByteBuffer.allocateDirect(64);
                AtomicReference<Runnable> roundTrips = new AtomicReference<>();
                roundTrips.set(() -> {
                    try {
                        for (int i = 0; i < 5_000; i++) {
                            out.clear();
                            ch.write(out);
                            in.clear();
                            while (in.hasRemaining()) {
                                ch.read(in);
                            }
                        }
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                roundTrips.get().run();                // warm up: JIT, first-use allocations
                roundTrips.get().run();
                long enters = uring.loop(0).stats().enters();
                long before = mx.getThreadAllocatedBytes(loopThread.get());
                roundTrips.get().run();
                long allocated = mx.getThreadAllocatedBytes(loopThread.get()) - before;
                enters = uring.loop(0).stats().enters() - enters;
                // The one allocation left is the JDK's: every downcall that captures errno (io_uring_enter here)
                // slices the capture segment, one 40-byte MemorySegment per enter that escape analysis does not
                // remove. Everything of the net layer and the loop beyond that must be allocation-free.
                assertThat(allocated).as("bytes the loop allocated for 5,000 requests in %d enters", enters)
                        .isLessThan(48 * enters + 4096);
            }
        }
    }

    @Test
    void twoThousandConcurrentConnections() throws Exception {
        // Every connection holds a request slot for its receive: the default (the CQ size, 1,024 per loop) is
        // too few when SO_REUSEPORT hands one loop more than a thousand, and the surplus would wait for a slot.
        try (Uring uring = Uring.builder().loops(2).maxInFlight(4096).build(); Tcp tcp = Tcp.open(uring)) {
            TcpServer server = tcp.listen(ANY_PORT, EchoHandler::new);
            List<SocketChannel> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 2_000; i++) {
                    clients.add(SocketChannel.open(server.localAddress()));
                }
                // Every one of them is served, all open at once.
                CompletableFuture<Void> echoed = CompletableFuture.runAsync(() -> {
                    try {
                        for (int i = 0; i < clients.size(); i++) {
                            Clients.writeFully(clients.get(i), ByteBuffer.wrap(new byte[] {(byte) i, (byte) (i >> 8)}));
                        }
                        for (int i = 0; i < clients.size(); i++) {
                            assertThat(Clients.readFully(clients.get(i), 2)).containsExactly((byte) i, (byte) (i >> 8));
                        }
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                try {
                    echoed.get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("stalled: loop 0 " + tcp.stats(0) + "; loop 1 " + tcp.stats(1)
                            + "; open fds " + OpenFds.snapshot().count(), e);
                }
            } finally {
                for (SocketChannel ch : clients) {
                    ch.close();
                }
            }
        }
    }
}
