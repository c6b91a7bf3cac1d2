package io.uring4j.runtime;

import io.uring4j.fs.UringAsynchronousFileChannel;
import io.uring4j.fs.UringFileChannel;
import io.uring4j.net.UringSocketChannel;
import io.uring4j.ring.FaultyEngine;
import io.uring4j.ring.Pipe;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.FaultRuns;
import io.uring4j.testkit.FaultRuns.Canaries;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntUnaryOperator;

import static io.uring4j.testkit.Await.awaitCondition;
import static io.uring4j.testkit.FaultRuns.INJECTED;
import static io.uring4j.testkit.FaultRuns.RUN_NANOS;
import static io.uring4j.testkit.FaultRuns.goesOn;
import static io.uring4j.testkit.FaultRuns.SEED;
import static io.uring4j.testkit.FaultRuns.assertNamesAnInjectedErrno;
import static io.uring4j.testkit.FaultRuns.awaitInFlight;
import static io.uring4j.testkit.FaultRuns.checked;
import static io.uring4j.testkit.FaultRuns.echo;
import static io.uring4j.testkit.FaultRuns.engine;
import static io.uring4j.testkit.FaultRuns.faulty;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * Faults at the system-call seam ({@link FaultyEngine}: io_uring_enter failing with EINTR, EAGAIN, EBUSY or
 * ENOMEM; requests failing with ENOMEM, EAGAIN or EBADF; short transfers; a CQ far smaller than the requests in
 * flight) under every API style — callbacks, futures, blocking calls on virtual threads, chains — and the drop-in
 * FileChannel and SocketChannel, on both engines. Each case checks that every request ends exactly once, with its
 * result or an exception naming the operation and the errno; that the loops survive; and that afterwards no request
 * slot, fd or native byte is left and no buffer was written after its request ended (each is filled with a canary
 * then, and checked after more data was offered and the runtime closed).
 *
 * <p>Seeded ({@code -During4j.faults.seed}) and bounded: each case runs {@code -During4j.faults.seconds} (default
 * 1); a soak passes a larger value.
 */
class FaultInjectionTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void probeKernelAndWarmUpTheJdk() throws Exception {
        FaultRuns.probeKernelAndWarmUpTheJdk();
    }

    // ---- enter errors ----------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void transientEnterErrorsAreRetriedAndTheLoopSurvives(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(engine(engineName), FaultyEngine.Schedule.none());
        checked(faulty, 1, 8, (uring, canaries) -> {
            try (Pipe pipe = Pipe.open()) {
                MemorySegment buffer = canaries.arena().allocate(16);
                CompletableFuture<Integer> read = uring.submitAsync(ended(Op.read(pipe.readFd(), buffer, -1),
                        buffer, canaries));
                awaitInFlight(uring, 1);
                for (int errno : new int[] {Errno.EAGAIN, Errno.EBUSY, Errno.ENOMEM, Errno.EINTR}) {
                    faulty.failEnters(errno, errno, errno);
                    for (int i = 0; i < 3; i++) {
                        assertThat(uring.submitAsync(Op.nop()).get(10, TimeUnit.SECONDS))
                                .as("a NOP after io_uring_enter failed with %s", Errno.name(errno)).isZero();
                    }
                }
                assertThat(faulty.enterFailures()).isEqualTo(12);
                assertThat(read).as("the pipe read, still in flight").isNotDone();
                pipe.write(new byte[] {1, 2, 3});
                assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(3);
                pipe.write(new byte[16]);       // a read the runtime had given up on would land here
            }
        });
    }

    /**
     * An enter error that is not "try again" ends the loop; what waits for a slot then must fail as what is in
     * flight does, not wait for a loop that is gone.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aLoopThatDiesFailsTheRequestsWaitingForASlot(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(engine(engineName), FaultyEngine.Schedule.none());
        Uring uring = Uring.builder().engine(faulty).loops(1).maxInFlight(1).build();
        EventLoop loop = uring.loop();
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofShared()) {
            CompletableFuture<Integer> held = loop.submitAsync(Op.read(pipe.readFd(), arena.allocate(8), -1));
            awaitInFlight(uring, 1);
            CompletableFuture<Integer> future = loop.submitAsync(Op.nop(5));
            CompletableFuture<Integer> call = OnVirtualThread.supply(() -> loop.call(Op.nop(6)));
            awaitCondition(() -> loop.stats().tableFull() >= 2);
            faulty.failEnters(Errno.EFAULT);
            loop.execute(() -> { });            // wakes the loop into the failing enter
            loop.thread().join();               // it died of it, before any close
            assertThatThrownBy(uring::close).hasMessageContaining("died");
            assertThat(held).isCompletedExceptionally();
            assertThat(future).as("failed as the loop stopped").isCompletedExceptionally();
            assertThat(call).failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
                    .havingCause().isInstanceOf(IOException.class).withMessageContaining("closed");
        }
    }

    /**
     * A close whose cancels end nothing (the engine ignores them here, as the kernel cannot stop some requests) waits
     * for what is in flight until its timeout in timed sleeps, not in a spin: a few tens of enters over 300 ms, where
     * a spin makes thousands.
     */
    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void aCloseWaitingForARequestSleepsBetweenItsLooks(String engineName) throws Exception {
        FaultyEngine faulty = FaultyEngine.wrap(engine(engineName), FaultyEngine.Schedule.none());
        Uring uring = Uring.builder().engine(faulty).loops(1).closeTimeout(Duration.ofMillis(300)).build();
        EventLoop loop = uring.loop();
        try (Pipe pipe = Pipe.open()) {
            loop.submitAsync(Op.poll(pipe.readFd(), OpFlags.Poll.POLLIN));
            awaitInFlight(uring, 1);
            faulty.ignoreCancels();
            long enters = loop.stats().enters();
            assertThatThrownBy(uring::close).hasMessageContaining("did not complete within the close timeout");
            assertThat(loop.stats().enters() - enters).as("enters while the close waited").isLessThan(200);
        }
    }

    // ---- API styles under a random schedule ------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void callbacksAndFuturesEndExactlyOnce(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        Path file = randomFile(1 << 16);
        byte[] content = Files.readAllBytes(file);
        checked(faulty, 2, 8, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            Arena arena = canaries.arena();
            try (RawFile raw = RawFile.open(file)) {
                int fd = raw.fd();
                long end = System.nanoTime() + RUN_NANOS;
                while (goesOn(end, faulty::faults)) {
                    int n = 64;
                    AtomicIntegerArray ends = new AtomicIntegerArray(n);
                    List<CompletableFuture<?>> all = new ArrayList<>();
                    List<Pipe> pipes = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int id = i;
                        int len = 1 + rnd.nextInt(4096);
                        long offset = rnd.nextInt(content.length - len);
                        MemorySegment buffer = arena.allocate(len);
                        CompletableFuture<Integer> done = new CompletableFuture<>();
                        switch (rnd.nextInt(4)) {
                            case 0 -> uring.submit(Op.nop(), (res, flags) -> {
                                ends.incrementAndGet(id);
                                done.complete(res);
                            });
                            case 1 -> uring.submit(Op.read(fd, buffer, offset), (res, flags) -> {
                                ends.incrementAndGet(id);
                                if (res >= 0) {
                                    checkRead(buffer, res, content, offset);
                                }
                                canaries.fill(buffer);
                                done.complete(res);
                            });
                            case 2 -> uring.submitAsync(counted(Op.read(fd, buffer, offset), ends, id, null))
                                    .whenComplete((res, failure) -> {
                                        if (failure == null) {
                                            checkRead(buffer, res, content, offset);
                                        }
                                        canaries.fill(buffer);
                                        done.complete(failure == null ? res : errnoOf(failure));
                                    });
                            default -> {        // a pipe read: fed, or cancelled while in flight
                                Pipe pipe = Pipe.open();
                                pipes.add(pipe);
                                // A cancelled future is done at once; the request ends at its CQE, or when withdrawn.
                                CompletableFuture<Integer> f = uring.submitAsync(counted(
                                        ended(Op.read(pipe.readFd(), buffer, -1), buffer, canaries), ends, id, done));
                                if (rnd.nextBoolean()) {
                                    pipe.write(new byte[] {7, 7});
                                } else {
                                    f.cancel(true);
                                }
                            }
                        }
                        all.add(done);
                    }
                    for (CompletableFuture<?> f : all) {
                        Object res = f.get(20, TimeUnit.SECONDS);
                        assertThat(res).as("a callback's or future's outcome").isInstanceOf(Integer.class);
                        if ((Integer) res < 0) {
                            assertThat(Errno.name(-(Integer) res)).as("a failed request's errno").isIn(INJECTED);
                        }
                    }
                    awaitInFlight(uring, 0);
                    for (int i = 0; i < n; i++) {
                        assertThat(ends.get(i)).as("ends of request %d", i).isEqualTo(1);
                    }
                    for (Pipe pipe : pipes) {
                        pipe.write(new byte[64]);       // offered to any read still (wrongly) in the kernel
                        pipe.close();
                    }
                }
            }
        });
        assertThat(faulty.faults()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void blockingCallsOnVirtualThreadsEndExactlyOnce(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        Path file = randomFile(1 << 16);
        byte[] content = Files.readAllBytes(file);
        checked(faulty, 2, 8, (uring, canaries) -> {
            Arena arena = canaries.arena();
            try (RawFile raw = RawFile.open(file)) {
                int fd = raw.fd();
                long end = System.nanoTime() + RUN_NANOS;
                List<CompletableFuture<Integer>> threads = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    SplittableRandom rnd = new SplittableRandom(SEED + t);
                    threads.add(OnVirtualThread.supply(() -> {
                        int calls = 0;
                        while (goesOn(end, faulty::requestFaults)) {
                            int len = 1 + rnd.nextInt(8192);
                            long offset = rnd.nextInt(content.length - len);
                            MemorySegment buffer = arena.allocate(len);
                            try {
                                int n = uring.call(Op.read(fd, buffer, offset));
                                checkRead(buffer, n, content, offset);
                            } catch (ErrnoException e) {
                                assertThat(e.errnoName()).as(e.getMessage()).isIn(INJECTED);
                                assertThat(e.getMessage()).contains("READ");
                            }
                            canaries.fill(buffer);
                            calls++;
                        }
                        return calls;
                    }));
                }
                // And blocking pipe reads, interrupted while in flight: each waits for its CQE before it throws.
                for (int i = 0; i < 32; i++) {
                    try (Pipe pipe = Pipe.open()) {
                        MemorySegment buffer = arena.allocate(32);
                        CountDownLatch calling = new CountDownLatch(1);
                        Thread reader = Thread.ofVirtual().start(() -> {
                            calling.countDown();
                            try {
                                uring.call(Op.read(pipe.readFd(), buffer, -1));
                            } catch (IOException e) {
                                // interrupted, or an injected failure: both end the request
                            }
                            canaries.fill(buffer);
                        });
                        calling.await();
                        reader.interrupt();
                        reader.join(20_000);
                        assertThat(reader.isAlive()).as("an interrupted blocking read returns").isFalse();
                        pipe.write(new byte[32]);
                    }
                }
                for (CompletableFuture<Integer> thread : threads) {
                    assertThat(thread.get(30, TimeUnit.SECONDS)).isPositive();
                }
            }
        });
        assertThat(faulty.requestFaults()).isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void chainsReportEveryStepOnce(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        Path file = dir.resolve("chain");
        checked(faulty, 2, 16, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            Arena arena = canaries.arena();
            try (RawFile raw = RawFile.open(file)) {
                int fd = raw.fd();
                long end = System.nanoTime() + RUN_NANOS;
                int block = 0;
                while (goesOn(end, faulty::requestFaults)) {
                    int len = 512 + rnd.nextInt(4096);
                    long offset = 8192L * (block++ % 64);
                    MemorySegment out = arena.allocate(len).fill((byte) rnd.nextInt());
                    MemorySegment in = arena.allocate(len);
                    Chain chain = uring.loop().chain(Op.write(fd, out, offset)).then(Op.read(fd, in, offset))
                            .then(Op.nop());
                    ChainResult r = rnd.nextBoolean() ? chain.call()
                            : chain.submitAsync().get(20, TimeUnit.SECONDS);
                    assertThat(r.steps()).isEqualTo(3);
                    // A failed step cancels the rest; a short one (a cut write, a read past EOF) may, as in the kernel.
                    boolean failed = false;
                    boolean mayBeCancelled = false;
                    for (int i = 0; i < 3; i++) {
                        int res = r.result(i);
                        if (failed) {
                            assertThat(res).as("step %d after a failed step: %s", i, r).isEqualTo(-Errno.ECANCELED);
                        } else if (res < 0 && !(mayBeCancelled && res == -Errno.ECANCELED)) {
                            assertThat(Errno.name(-res)).as("step %d of %s", i, r).isIn(INJECTED);
                        }
                        failed |= res < 0;
                        mayBeCancelled |= i < 2 && res >= 0 && res < len;
                    }
                    if (r.result(0) == len && r.result(1) >= 0) {
                        assertThat(in.asSlice(0, r.result(1)).mismatch(out.asSlice(0, r.result(1))))
                                .as("read back what the chain wrote").isEqualTo(-1L);
                    }
                    canaries.fill(in);
                }
            }
        });
        assertThat(faulty.requestFaults()).isPositive();
    }

    // ---- drop-in channels -------------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void fileChannelKeepsItsContentOrFailsByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        Path file = dir.resolve("channel");
        int size = 1 << 16;
        checked(faulty, 1, 8, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            byte[] model = new byte[size];
            boolean[] known = new boolean[size];
            Arrays.fill(known, true);
            Files.write(file, model);
            try (UringFileChannel ch = UringFileChannel.open(uring, file, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
                 UringAsynchronousFileChannel async = UringAsynchronousFileChannel.open(uring, file,
                         StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                Positional[] channels = {Positional.of(ch), Positional.of(async)};
                long end = System.nanoTime() + RUN_NANOS;
                while (goesOn(end, faulty::requestFaults)) {
                    int len = 1 + rnd.nextInt(16384);
                    int pos = rnd.nextInt(size - len);
                    Positional channel = channels[rnd.nextInt(channels.length)];
                    ByteBuffer buffer = ByteBuffer.allocateDirect(len);
                    if (rnd.nextBoolean()) {
                        byte[] data = new byte[len];
                        rnd.nextBytes(data);
                        buffer.put(data).flip();
                        try {
                            channel.writeFully(buffer, pos);
                            System.arraycopy(data, 0, model, pos, len);
                            Arrays.fill(known, pos, pos + len, true);
                        } catch (IOException e) {
                            assertNamesAnInjectedErrno(e);
                            Arrays.fill(known, pos, pos + len, false);  // written in part, perhaps
                        }
                    } else {
                        try {
                            int n = channel.read(buffer, pos);
                            assertThat(n).isBetween(1, len);
                            for (int i = 0; i < n; i++) {
                                if (known[pos + i]) {
                                    assertThat(buffer.get(i)).as("byte %d", pos + i).isEqualTo(model[pos + i]);
                                }
                            }
                        } catch (IOException e) {
                            assertNamesAnInjectedErrno(e);
                        }
                    }
                    canaries.fill(MemorySegment.ofBuffer(buffer));
                }
            }
        });
        // A platform thread's page-cache reads and writes through the FileChannel are made in place, not through
        // the ring; the asynchronous channel's go through it.
        assertThat(faulty.requestFaults()).as("%s", faulty).isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel", "portable"})
    void socketChannelDeliversAPrefixOfTheStreamOrFailsByName(String engineName) throws Exception {
        FaultyEngine faulty = faulty(engineName);
        checked(faulty, 1, 8, (uring, canaries) -> {
            SplittableRandom rnd = new SplittableRandom(SEED);
            try (ServerSocketChannel server = ServerSocketChannel.open()) {
                server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                long end = System.nanoTime() + RUN_NANOS;
                while (goesOn(end, faulty::requestFaults)) {
                    exchange(uring, server, rnd, canaries);
                }
            }
        });
        assertThat(faulty.requestFaults()).isPositive();
    }

    /**
     * One connection: the uring4j side sends a random stream in random pieces and reads an echo of it from a JDK
     * peer. Whatever fails must fail by name, and what arrived must be the stream's prefix, byte for byte.
     */
    private static void exchange(Uring uring, ServerSocketChannel server, SplittableRandom rnd, Canaries canaries)
            throws Exception {
        byte[] stream = new byte[64 * 1024 + rnd.nextInt(64 * 1024)];
        rnd.nextBytes(stream);
        UringSocketChannel client;
        try {
            client = UringSocketChannel.open(uring, server.getLocalAddress());
        } catch (IOException e) {
            assertNamesAnInjectedErrno(e);
            server.configureBlocking(false);        // a connect failed this way never reached the peer: nothing
            try (SocketChannel accepted = server.accept()) {       // to accept, but nothing must be left either
                assertThat(accepted).as("a connection whose connect failed").isNull();
            } finally {
                server.configureBlocking(true);
            }
            return;
        }
        try (client; SocketChannel peer = server.accept()) {
            CompletableFuture<Long> echo = echo(peer, stream);
            int sent = 0;
            int received = 0;
            ByteBuffer in = ByteBuffer.allocateDirect(16384);
            try {
                while (sent < stream.length) {
                    int piece = Math.min(stream.length - sent, 1 + rnd.nextInt(16384));
                    ByteBuffer out = ByteBuffer.allocateDirect(piece).put(stream, sent, piece).flip();
                    int n = client.write(out);
                    assertThat(n).as("a blocking SocketChannel writes everything").isEqualTo(piece);
                    sent += n;
                    canaries.fill(MemorySegment.ofBuffer(out.clear()));
                    while (received < sent - 32768) {
                        received += readSome(client, in, stream, received, canaries);
                    }
                }
                client.shutdownOutput();
                while (received < stream.length) {
                    int n = readSome(client, in, stream, received, canaries);
                    assertThat(n).as("the echo ended early").isPositive();
                    received += n;
                }
            } catch (IOException e) {
                assertNamesAnInjectedErrno(e);
            }
            client.close();
            echo.get(20, TimeUnit.SECONDS);
        }
    }

    private static int readSome(UringSocketChannel client, ByteBuffer in, byte[] stream, int received,
                                Canaries canaries) throws IOException {
        int n = client.read(in.clear());
        for (int i = 0; i < Math.max(n, 0); i++) {
            assertThat(in.get(i)).as("echoed byte %d", received + i).isEqualTo(stream[received + i]);
        }
        canaries.fill(MemorySegment.ofBuffer(in.clear()));
        return n;
    }

    // ---- the harness -----------------------------------------------------------------------------------------

    /** {@code op}, whose buffer gets its canary at the request's final CQE (the future may end earlier: cancel). */
    private static Op ended(Op op, MemorySegment buffer, Canaries canaries) {
        return withResult(op, cqeResult -> {
            canaries.fill(buffer);
            return op.result(cqeResult);
        });
    }

    /** {@code op}, counting its final CQEs in {@code ends[id]}, and completing {@code done} (if any) with 0. */
    private static Op counted(Op op, AtomicIntegerArray ends, int id, CompletableFuture<Integer> done) {
        return withResult(op, cqeResult -> {
            ends.incrementAndGet(id);
            int result = op.result(cqeResult);
            if (done != null) {
                done.complete(0);
            }
            return result;
        });
    }

    /** {@code op} as it is, but its final CQE's result goes through {@code result}. */
    private static Op withResult(Op op, IntUnaryOperator result) {
        return new Op() {
            @Override
            public void prepare(io.uring4j.ring.Sqe sqe, MemorySegment scratch) {
                op.prepare(sqe, scratch);
            }

            @Override
            public int result(int cqeResult) {
                return result.applyAsInt(cqeResult);
            }
        };
    }

    private static void checkRead(MemorySegment buffer, int n, byte[] content, long offset) {
        assertThat(n).as("a read's result").isBetween(0, (int) buffer.byteSize());
        byte[] expected = Arrays.copyOfRange(content, (int) offset, (int) offset + n);
        assertThat(buffer.asSlice(0, n).toArray(JAVA_BYTE)).as("bytes read at %d", offset).isEqualTo(expected);
    }

    private static int errnoOf(Throwable failure) {
        Throwable t = failure instanceof CompletionException ? failure.getCause() : failure;
        if (t instanceof ErrnoException e) {
            assertThat(e.getMessage()).as("names the operation").contains(":");
            return -e.errno();
        }
        throw new AssertionError("a request failed without an errno", t);
    }


    /** Positional reads and writes of a FileChannel or of an AsynchronousFileChannel, waited for. */
    private interface Positional {
        int read(ByteBuffer dst, long position) throws IOException;

        int write(ByteBuffer src, long position) throws IOException;

        default void writeFully(ByteBuffer buffer, long position) throws IOException {
            while (buffer.hasRemaining()) {
                position += write(buffer, position);
            }
        }

        static Positional of(FileChannel ch) {
            return new Positional() {
                public int read(ByteBuffer dst, long position) throws IOException {
                    return ch.read(dst, position);
                }

                public int write(ByteBuffer src, long position) throws IOException {
                    return ch.write(src, position);
                }
            };
        }

        static Positional of(AsynchronousFileChannel ch) {
            return new Positional() {
                public int read(ByteBuffer dst, long position) throws IOException {
                    return waitFor(ch.read(dst, position));
                }

                public int write(ByteBuffer src, long position) throws IOException {
                    return waitFor(ch.write(src, position));
                }
            };
        }

        private static int waitFor(Future<Integer> transfer) throws IOException {
            try {
                return transfer.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (InterruptedException | TimeoutException e) {
                throw new AssertionError("a transfer that did not end", e);
            }
        }
    }


    /** A file opened read-write with open(2): the raw ops need its fd. */
    private record RawFile(int fd) implements AutoCloseable {
        static RawFile open(Path path) {
            int fd = LibC.open(path.toString(), LibC.O_RDWR | LibC.O_CREAT | LibC.O_CLOEXEC, 0600);
            assertThat(fd).as("open %s", path).isNotNegative();
            return new RawFile(fd);
        }

        @Override
        public void close() {
            LibC.close(fd);
        }
    }

    private Path randomFile(int size) throws IOException {
        byte[] content = new byte[size];
        new SplittableRandom(SEED).nextBytes(content);
        return Files.write(dir.resolve("content"), content);
    }
}
