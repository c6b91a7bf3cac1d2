package io.uring4j.runtime;

import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How blocking callers and the loop wake each other: bounded sleeps ({@link EventLoop#callBounded}) and the
 * batched unpark of virtual waiters. A pipe read stands in for a slow request that completes only when the test
 * says so; called through {@code callBounded}, it keeps the loop in bounded sleeps until then.
 */
@BothEngines
class BlockingWakeTest {
    private Uring uring;
    private EventLoop loop;
    private final int[] pipe = new int[2];

    @BeforeEach
    void start() throws Exception {
        uring = Uring.builder().loops(1).build();
        loop = uring.loop();
        assertThat(LibC.pipe2(pipe, LibC.O_CLOEXEC)).isZero();
    }

    @AfterEach
    void stop() {
        uring.close();
        LibC.close(pipe[0]);
        LibC.close(pipe[1]);
    }

    @Test
    void aHandOverOtherThanABoundedCallWakesALoopAsleepOnABoundedOne() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Future<Integer> read = boundedPipeRead(arena);
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).as("task ran while the bounded read is pending").isTrue();
            assertThat(OnVirtualThread.supply(() -> loop.call(Op.nop(7))).get(10, TimeUnit.SECONDS)).isEqualTo(7);
            assertThat(read.isDone()).isFalse();

            writeOneByte(arena);
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
    }

    /**
     * A bounded sleep is itself bounded: riders wait for the next CQE or briefly, never for a slow device. Bursts
     * of riders land both in untimed sleeps (the first of a burst wakes the loop) and in the bounded sleeps that
     * follow while the burst goes on.
     */
    @Test
    void boundedCallsHandedOverDuringABoundedSleepRunWithoutWaitingForItsCqe() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Future<Integer> read = boundedPipeRead(arena);
            for (int round = 0; round < 10; round++) {
                List<CompletableFuture<Integer>> riders = new ArrayList<>();
                for (int i = 0; i < 32; i++) {
                    int result = i;
                    riders.add(OnVirtualThread.supply(() -> loop.callBounded(Op.nop(result))));
                }
                for (int i = 0; i < riders.size(); i++) {
                    assertThat(riders.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i);
                }
            }
            assertThat(read.isDone()).isFalse();
            writeOneByte(arena);
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(loop.stats().inFlight()).isZero();
        }
    }

    /** Bounded sleeps are timed only while bounded calls keep coming: a lone one is waited for untimed. */
    @Test
    void aLoneBoundedRequestLetsTheLoopSleepUntilItsCqe() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Future<Integer> read = boundedPipeRead(arena);
            long before = loop.stats().enters();
            Thread.sleep(100);
            long enters = loop.stats().enters() - before;
            writeOneByte(arena);
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(enters).as("loop wake-ups in 100 ms (50 µs sleeps would make up to 2000)").isLessThan(50);
        }
    }

    @Test
    void everyVirtualWaiterOfABatchIsWokenWithItsOwnResult() throws Exception {
        int threads = 200;
        int calls = 200;
        AtomicInteger wrong = new AtomicInteger();
        List<CompletableFuture<Integer>> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int base = t * calls;
            all.add(OnVirtualThread.supply(() -> {
                for (int i = 0; i < calls; i++) {
                    boolean bounded = (i & 1) == 0;
                    Op nop = Op.nop((base + i) & 0xFFFF);
                    int r = bounded ? loop.callBounded(nop) : loop.call(nop);
                    if (r != ((base + i) & 0xFFFF)) {
                        wrong.incrementAndGet();
                    }
                }
                return calls;
            }));
        }
        for (CompletableFuture<Integer> f : all) {
            assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(calls);
        }
        assertThat(wrong).hasValue(0);
        assertThat(loop.stats().completed()).isEqualTo((long) threads * calls);
    }

    @Test
    void anInterruptedWaiterStillWakesTheRestOfItsBatch() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            Future<Integer> read = boundedPipeRead(arena);
            List<CompletableFuture<Integer>> riders = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        f.complete(loop.callBounded(Op.nop(3)));
                    } catch (Throwable e) {
                        f.completeExceptionally(e);
                    }
                }));
                riders.add(f);
            }
            threads.getFirst().interrupt();     // its cancel wakes the loop, so the NOPs complete in any batches
            writeOneByte(arena);
            assertThat(read.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            for (CompletableFuture<Integer> f : riders.subList(1, riders.size())) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(3);
            }
            // Interrupted before or after its NOP completed: either way it returns.
            assertThat(riders.getFirst().handle((r, e) -> true).get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** A pipe read through callBounded on a virtual thread, returned once the loop has it in flight. */
    private Future<Integer> boundedPipeRead(Arena arena) throws InterruptedException {
        MemorySegment buf = arena.allocate(16);
        CompletableFuture<Integer> read = OnVirtualThread.supply(() -> loop.callBounded(Op.read(pipe[0], buf, -1)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (loop.stats().inFlight() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(loop.stats().inFlight()).as("the pipe read is in flight").isEqualTo(1);
        return read;
    }

    private void writeOneByte(Arena arena) {
        assertThat(LibC.write(pipe[1], arena.allocate(1))).isEqualTo(1);
    }
}
