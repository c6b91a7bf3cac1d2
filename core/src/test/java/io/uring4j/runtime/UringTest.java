package io.uring4j.runtime;

import io.uring4j.ring.Engine;
import io.uring4j.ring.Pipe;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.ForwardingEngine;
import org.junit.jupiter.api.Test;

import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The runtime's three API styles over one request table, and its close. */
@BothEngines
class UringTest {
    @Test
    void callbackStyleRunsOnTheLoopThread() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            CountDownLatch done = new CountDownLatch(1);
            AtomicReference<String> thread = new AtomicReference<>();
            AtomicInteger result = new AtomicInteger(-1);
            uring.submit(Op.nop(7), (res, flags) -> {
                thread.set(Thread.currentThread().getName() + (uring.inLoop() ? " in loop" : ""));
                result.set(res);
                done.countDown();
            });
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(result.get()).isEqualTo(7);
            assertThat(thread.get()).isEqualTo("uring4j-loop-0 in loop");
            assertThat(uring.inLoop()).as("the test's own thread").isFalse();
        }
    }

    @Test
    void futureStyleCompletesWithTheResultOrANamedErrno() throws Exception {
        try (Uring uring = Uring.builder().loops(2).build(); Arena arena = Arena.ofShared()) {
            assertThat(uring.submitAsync(Op.nop(3)).get(10, TimeUnit.SECONDS)).isEqualTo(3);
            CompletableFuture<Integer> bad = uring.submitAsync(Op.read(-1, arena.allocate(16), 0));
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("READ").hasMessageContaining("EBADF");
        }
    }

    @Test
    void blockingStyleWorksOnVirtualThreads() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            AtomicInteger sum = new AtomicInteger();
            Thread[] threads = new Thread[50];
            for (int i = 0; i < threads.length; i++) {
                int value = i;
                threads[i] = Thread.ofVirtual().start(() -> {
                    try {
                        sum.addAndGet(uring.call(Op.nop(value)));
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(sum.get()).isEqualTo(49 * 50 / 2);
        }
    }

    @Test
    void timerExpiryIsASuccessForFutures() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            long start = System.nanoTime();
            assertThat(uring.submitAsync(Op.timeout(Duration.ofMillis(20))).get(10, TimeUnit.SECONDS)).isZero();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(20).toNanos());
        }
    }

    @Test
    void interruptCancelsABlockedReadAndWaitsForItsCompletion() throws Exception {
        try (Pipe pipe = Pipe.open(); Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(64);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    uring.call(Op.read(pipe.readFd(), buffer, -1));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            while (uring.loop(0).stats().inFlight() == 0) {
                Thread.onSpinWait();
            }
            reader.interrupt();
            reader.join();
            assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class).hasMessageContaining("READ");
            assertThat(uring.loop(0).stats().inFlight()).isZero();
            // The read is gone from the kernel: data written now stays in the pipe, the buffer stays untouched.
            byte[] late = "late".getBytes(StandardCharsets.US_ASCII);
            pipe.write(late);
            assertThat(pipe.read(64)).isEqualTo(late);
            assertThat(buffer.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
        }
    }

    @Test
    void closeCancelsWhatIsInFlightAndRefusesNewWork() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofShared()) {
            Uring uring = Uring.builder().loops(2).build();
            MemorySegment buffer = arena.allocate(64);
            CompletableFuture<?>[] reads = new CompletableFuture<?>[1000];
            for (int i = 0; i < reads.length; i++) {
                reads[i] = uring.submitAsync(Op.read(pipe.readFd(), buffer, -1));
            }
            uring.close();
            for (CompletableFuture<?> read : reads) {
                assertThat(read).isCompletedExceptionally();
                // Cancelled in the kernel, or never submitted because the close came first.
                assertThatThrownBy(read::get).cause().satisfiesAnyOf(
                        e -> assertThat(e).isInstanceOf(RejectedExecutionException.class),
                        e -> assertThat(((ErrnoException) e).errno()).isIn(Errno.ECANCELED, Errno.EINTR));
            }
            assertThatThrownBy(() -> uring.submitAsync(Op.nop())).isInstanceOf(RejectedExecutionException.class)
                    .hasMessageContaining("closed");
            uring.close();      // idempotent
        }
    }

    @Test
    void batchWaitRefusesAMaximumDelayThatIsNotPositive() {
        assertThatThrownBy(() -> Uring.builder().batchWait(32, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDelay must be positive");
        assertThatThrownBy(() -> Uring.builder().batchWait(0, Duration.ofNanos(50_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("completions must be positive");
        Uring.builder().batchWait(1, Duration.ZERO);        // one completion: batch waits off, no delay needed
    }

    /** A companion is made once per runtime (a maker that made none is not asked again) and closed with it. */
    @Test
    void aCompanionIsMadeOnceAndClosedWithTheRuntime() throws Exception {
        AtomicInteger made = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        Function<Uring, Uring.Companion> maker = u -> {
            made.incrementAndGet();
            return closed::incrementAndGet;
        };
        Function<Uring, Uring.Companion> none = u -> {
            made.incrementAndGet();
            return null;
        };
        Uring.Companion first;
        try (Uring uring = Uring.builder().loops(1).build()) {
            first = uring.companion(maker);
            assertThat(uring.companion(maker)).isSameAs(first);
            assertThat(uring.companion(none)).isNull();
            assertThat(uring.companion(none)).isNull();
            assertThat(made.get()).as("each maker asked once").isEqualTo(2);
            assertThat(closed.get()).isZero();
        }
        assertThat(closed.get()).as("closed with the runtime").isEqualTo(1);
        try (Uring uring = Uring.builder().loops(1).build()) {
            uring.close();
            assertThat(uring.companion(maker)).as("none is made once the runtime is closed").isNull();
            assertThat(made.get()).isEqualTo(2);
        }
    }

    /**
     * The loops set their rings up at once, each on its own thread; a setup that fails still fails the build with
     * its errno, and the loops that started meanwhile stop.
     */
    @Test
    void aLoopsFailedSetupFailsTheBuildAndStopsEveryLoop() throws InterruptedException {
        Set<Thread> before = loopThreads();         // other tests' runtimes may be running
        assertThatThrownBy(() -> Uring.builder().loops(4).engine(new SecondSetupRefused()).build())
                .isInstanceOf(ErrnoException.class).hasMessageContaining("EPERM");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!before.containsAll(loopThreads()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(loopThreads()).as("loop threads this build started").isSubsetOf(before);
    }

    /**
     * A build whose thread is interrupted closes its loops from awaitStarted while they may still be setting up: the
     * close's look at a loop's waker has no other edge to the loop's setup, and a stale null there would leave a
     * loop asleep for good. Each build fails with EINTR and its loops stop. (The reordering that broke this cannot be
     * forced from Java; the repetitions give a weakly ordered machine its chances.)
     */
    @Test
    void anInterruptedBuildFailsWithEintrAndStopsItsLoops() throws Exception {
        Set<Thread> before = loopThreads();         // other tests' runtimes may be running
        for (int round = 0; round < 20; round++) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt();     // awaitStarted takes its interrupted path at once
                try (Uring unexpected = Uring.builder().loops(4).build()) {
                    thrown.complete(null);
                } catch (Throwable t) {
                    thrown.complete(t);
                }
            });
            assertThat(thrown.get(30, TimeUnit.SECONDS)).isInstanceOf(ErrnoException.class)
                    .hasMessageContaining("EINTR");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!before.containsAll(loopThreads()) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(loopThreads()).as("loop threads the builds started").isSubsetOf(before);
    }

    /** The configured engine, but that its second ring setup is refused (EPERM): three loops start, one fails. */
    private static final class SecondSetupRefused extends ForwardingEngine {
        private final AtomicInteger setups = new AtomicInteger();

        SecondSetupRefused() {
            super(Engine.configured());
        }

        @Override
        public int setup(int entries, MemorySegment params) {
            return setups.incrementAndGet() == 2 ? -Errno.EPERM : real.setup(entries, params);
        }
    }

    private static Set<Thread> loopThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("uring4j-loop-") && t.isAlive()).collect(Collectors.toSet());
    }
}
