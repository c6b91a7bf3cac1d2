package io.uring4j.testkit;

import io.uring4j.ring.Engine;
import io.uring4j.ring.FaultyEngine;
import io.uring4j.ring.IoUring;
import io.uring4j.runtime.Op;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Runs of a workload on a runtime over a {@link FaultyEngine} (see {@code FaultInjectionTest}): the seeded
 * schedule, the checks after each run (loops alive and idle; after close no fd, native byte or late write left),
 * and what a failure must say. Seeded ({@code -During4j.faults.seed}) and bounded: each case runs
 * {@code -During4j.faults.seconds} (default 1); a soak passes a larger value.
 */
public final class FaultRuns {
    public static final long SEED = Long.getLong("uring4j.faults.seed", 20);
    public static final long RUN_NANOS = (long) (Double.parseDouble(
            System.getProperty("uring4j.faults.seconds", "1")) * 1e9);
    public static final int PER_MILLE = 50;
    private static final List<Integer> INJECTED_ERRNOS = List.of(Errno.ENOMEM, Errno.EAGAIN, Errno.EBADF);
    public static final Set<String> INJECTED = Set.of("ENOMEM", "EAGAIN", "EBADF");
    private static final byte CANARY = (byte) 0xA5;

    private static boolean kernelAvailable;

    /**
     * Whether a run whose time ends at {@code end} goes on: until then, and past it — ten times its time at most —
     * until {@code faults} counts one injected. A loaded machine can fit too few requests into a run's time for
     * its schedule to have injected anything, and a run without a fault proves nothing.
     */
    public static boolean goesOn(long end, LongSupplier faults) {
        long now = System.nanoTime();
        return now - end < 0 || (faults.getAsLong() == 0 && now - end < 10 * RUN_NANOS);
    }

    /** Once per class, before its cases: whether the kernel serves io_uring, and the JDK's own fds opened. */
    public static void probeKernelAndWarmUpTheJdk() throws Exception {
        try (IoUring ring = IoUring.builder().engine(Engine.kernel()).entries(2).build()) {
            kernelAvailable = ring.isOpen();
        } catch (ErrnoException refused) {
            kernelAvailable = false;
        }
        // The JDK opens fds of its own on first use and keeps them: its virtual-thread pollers (epoll sets) and
        // the socket its channels close through. Opened here, they are part of every case's baseline.
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (SocketChannel client = SocketChannel.open(server.getLocalAddress());
                 SocketChannel peer = server.accept()) {
                CompletableFuture<Integer> read = new CompletableFuture<>();
                Thread reader = Thread.ofVirtual().start(() -> {
                    try {
                        read.complete(client.read(ByteBuffer.allocate(1)));
                    } catch (IOException | RuntimeException e) {
                        read.completeExceptionally(e);
                    }
                });
                awaitParkedInAPoller(reader);   // the JDK's pollers exist from then on
                peer.write(ByteBuffer.wrap(new byte[1]));
                read.get(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Waits until {@code reader} is parked in the JDK's poller (sun.nio.ch.Poller), which creates its epoll sets on
     * first use. A fixed sleep was not enough: on a loaded machine the thread could start its read after the data
     * had come, never park, and leave the pollers to appear in the middle of a case, as fds it had not opened.
     */
    private static void awaitParkedInAPoller(Thread reader) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!inAPoller(reader)) {
            assertThat(System.nanoTime() - deadline).as("the warm-up read parked in the JDK's poller").isNegative();
            Thread.sleep(1);
        }
    }

    private static boolean inAPoller(Thread thread) {
        return thread.getState() == Thread.State.WAITING && Arrays.stream(thread.getStackTrace())
                .anyMatch(frame -> frame.getClassName().equals("sun.nio.ch.Poller"));
    }

    public static Engine engine(String name) {
        assumeTrue(!name.equals("kernel") || kernelAvailable, "the kernel refuses io_uring here");
        return name.equals("kernel") ? Engine.kernel() : Engine.portable();
    }

    public interface Workload {
        /** {@code canaries.arena()} allocates buffers that outlive the workload, to be checked after close. */
        void run(Uring uring, Canaries canaries) throws Exception;
    }

    /** Every kind of fault at 5 %. */
    public static FaultyEngine faulty(String engineName) {
        return FaultyEngine.wrap(engine(engineName), FaultyEngine.Schedule.everything(SEED, PER_MILLE));
    }

    /**
     * Runs {@code workload} on a runtime over {@code faulty} with a CQ of {@code cqEntries} and four times as many
     * request slots (so the CQ overflows), then checks that the loops are alive and idle, and — after close — that
     * no fd, native byte or late write is left.
     */
    public static void checked(FaultyEngine faulty, int loops, int cqEntries, Workload workload) throws Exception {
        checked(faulty, loops, cqEntries, () -> 0, workload);
    }

    /**
     * As {@link #checked(FaultyEngine, int, int, Workload)}, for a workload that grows memory kept on purpose from
     * one runtime to the next ({@code kept}: the file layer's buffers for heap transfers, say): what it grew is no
     * leak.
     */
    public static void checked(FaultyEngine faulty, int loops, int cqEntries, LongSupplier kept, Workload workload)
            throws Exception {
        OpenFds fds = OpenFds.snapshot();
        long nativeBytes = Uring.nativeBytesInUse() - kept.getAsLong();
        Canaries canaries = new Canaries(Arena.ofShared());
        Uring uring = Uring.builder().engine(faulty).loops(loops).entries(4).cqEntries(cqEntries)
                .maxInFlight(4 * cqEntries).build();
        try {
            workload.run(uring, canaries);
            awaitInFlight(uring, 0);
            for (int i = 0; i < loops; i++) {
                CompletableFuture<Integer> nop = uring.loop(i).submitAsync(Op.nop());
                try {
                    assertThat(nop.get(10, TimeUnit.SECONDS)).as("loop %d answers a NOP", i).isZero();
                } catch (ExecutionException e) {
                    assertNamesAnInjectedErrno(e.getCause());
                }
            }
        } catch (AssertionError | Exception e) {
            throw new AssertionError(faulty + ": " + e.getMessage(), e);
        } finally {
            uring.close();
        }
        canaries.check(faulty);
        System.out.println("FaultInjectionTest: " + faulty);
        assertThat(fds.openedSince()).as("fds left open after close, %s", faulty).isEmpty();
        assertThat(Uring.nativeBytesInUse() - kept.getAsLong()).as("native bytes after close, %s", faulty)
                .isEqualTo(nativeBytes);
    }

    /** Buffers whose requests have ended: each filled with {@link #CANARY} then, and checked at the end. */
    public static final class Canaries {
        private final Arena arena;
        private final ConcurrentLinkedQueue<MemorySegment> ended = new ConcurrentLinkedQueue<>();

        Canaries(Arena arena) {
            this.arena = arena;
        }

        public Arena arena() {
            return arena;
        }

        public void fill(MemorySegment buffer) {
            buffer.fill(CANARY);
            ended.add(buffer);
        }

        /** Checks every ended buffer, then frees the arena's. */
        void check(FaultyEngine faulty) {
            try (arena) {
                int i = 0;
                for (MemorySegment buffer : ended) {
                    for (long b = 0; b < buffer.byteSize(); b++) {
                        if (buffer.get(JAVA_BYTE, b) != CANARY) {
                            fail("buffer %d (%d bytes) was written at byte %d after its request ended; %s", i,
                                    buffer.byteSize(), b, faulty);
                        }
                    }
                    i++;
                }
            }
        }
    }

    /** By name (ENOMEM), or — where the drop-in throws what the JDK throws — by its strerror text. */
    public static void assertNamesAnInjectedErrno(Throwable e) {
        String message = String.valueOf(e.getMessage());
        boolean named = INJECTED_ERRNOS.stream().anyMatch(errno -> message.contains(Errno.name(errno))
                || message.contains(Errno.describe(errno)));
        assertThat(named).as("an injected failure names its errno: %s", e).isTrue();
    }

    public static void awaitInFlight(Uring uring, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            int inFlight = 0;
            for (int i = 0; i < uring.loopCount(); i++) {
                inFlight += uring.loop(i).stats().inFlight();
            }
            if (inFlight == expected) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                fail("%d request(s) in flight, expected %d", inFlight, expected);
            }
            Thread.sleep(1);
        }
    }

    /**
     * The JDK peer of a stream's exchange, on a virtual thread: echoes what it reads, checking it against
     * {@code stream}, until the other side shuts its output (or gives up and closes); returns the bytes echoed.
     */
    public static CompletableFuture<Long> echo(SocketChannel peer, byte[] stream) {
        return CompletableFuture.supplyAsync(() -> {
            ByteBuffer b = ByteBuffer.allocate(8192);
            long echoed = 0;
            try {
                while (peer.read(b.clear()) > 0) {
                    b.flip();
                    for (int i = 0; i < b.remaining(); i++) {
                        assertThat(b.get(i)).as("byte %d at the peer", echoed + i)
                                .isEqualTo(stream[(int) (echoed + i)]);
                    }
                    echoed += b.remaining();
                    while (b.hasRemaining()) {
                        peer.write(b);
                    }
                }
                peer.shutdownOutput();
            } catch (IOException e) {
                // the other side gave up and closed: the check is on what it received
            }
            return echoed;
        }, Thread::startVirtualThread);
    }

    private FaultRuns() {
    }
}
