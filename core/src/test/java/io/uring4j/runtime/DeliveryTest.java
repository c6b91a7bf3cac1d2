package io.uring4j.runtime;

import io.uring4j.ring.Pipe;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;
import io.uring4j.testkit.BothEngines;
import io.uring4j.testkit.OpenFds;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Exactly-once delivery under load, CQ overflow, races with close, and misuse. */
@BothEngines
class DeliveryTest {
    @Test
    void everyCompletionIsDeliveredExactlyOnceFromFourSubmittingThreads() throws Exception {
        int threads = 4;
        int perThread = 1_000_000;
        try (Uring uring = Uring.builder().loops(2).build()) {
            AtomicIntegerArray seen = new AtomicIntegerArray(threads * perThread);
            AtomicLong duplicates = new AtomicLong();
            // Counted down by each submitter when it is done, and once when the last completion is delivered.
            CountDownLatch all = new CountDownLatch(threads + 1);
            AtomicLong delivered = new AtomicLong();
            for (int t = 0; t < threads; t++) {
                int base = t * perThread;
                Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        int id = base + i;
                        uring.submit(Op.nop(), (res, flags) -> {
                            if (seen.getAndIncrement(id) != 0) {
                                duplicates.incrementAndGet();
                            }
                            if (delivered.incrementAndGet() == (long) threads * perThread) {
                                all.countDown();
                            }
                        });
                    }
                    all.countDown();
                });
            }
            assertThat(all.await(120, TimeUnit.SECONDS)).as("all submitted and delivered in 120 s").isTrue();
            assertThat(delivered.get()).isEqualTo((long) threads * perThread);
            assertThat(duplicates.get()).isZero();
            long stale = uring.loop(0).stats().stale() + uring.loop(1).stats().stale();
            assertThat(stale).isZero();
        }
    }

    @Test
    void burstsFarLargerThanTheCqLoseNothing() throws Exception {
        int burst = 10_000;
        try (Uring uring = Uring.builder().loops(1).entries(8).cqEntries(8).maxInFlight(burst).build()) {
            for (int round = 0; round < 3; round++) {
                AtomicIntegerArray seen = new AtomicIntegerArray(burst);
                CountDownLatch done = new CountDownLatch(burst);
                uring.loop().execute(() -> {
                    for (int i = 0; i < burst; i++) {
                        int id = i;
                        uring.loop().submit(Op.nop(), (res, flags) -> {
                            seen.incrementAndGet(id);
                            done.countDown();
                        });
                    }
                });
                assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
                for (int i = 0; i < burst; i++) {
                    assertThat(seen.get(i)).as("completions of request %d", i).isEqualTo(1);
                }
            }
            assertThat(uring.loop(0).stats().cqOverflow()).as("the CQ did overflow").isPositive();
            assertThat(uring.loop(0).stats().stale()).isZero();
        }
    }

    /**
     * A loop whose CQ overflows doubles it (REGISTER_RESIZE_RINGS on its DEFER_TASKRUN ring), so that a burst
     * that overflowed once finds room the next time. The portable engine, like a kernel before 6.13, cannot
     * resize: its loop keeps its CQ and still loses nothing.
     */
    @Test
    void aCqThatOverflowsGrows() throws Exception {
        int burst = 2_000;
        try (Uring uring = Uring.builder().loops(1).entries(8).cqEntries(8).maxInFlight(burst).build()) {
            int before = uring.loop(0).stats().cqEntries();
            CountDownLatch done = new CountDownLatch(burst);
            uring.loop().execute(() -> {
                for (int i = 0; i < burst; i++) {
                    uring.loop().submit(Op.nop(), (res, flags) -> done.countDown());
                }
            });
            assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();

            LoopStats stats = uring.loop(0).stats();
            assertThat(before).isEqualTo(8);
            assertThat(stats.cqOverflow()).as("the CQ did overflow").isPositive();
            if ("portable".equals(System.getProperty("uring4j.engine"))) {
                assertThat(stats.cqEntries()).as("the portable engine cannot resize").isEqualTo(8);
            } else {
                assertThat(stats.cqEntries()).as("grown by doubling").isGreaterThan(8);
                assertThat(Integer.bitCount(stats.cqEntries())).isOne();
            }
        }
    }

    @Test
    void closingWithTenThousandPendingReadsLeaksNoFdAndFailsEveryFuture() throws Exception {
        OpenFds fds = OpenFds.snapshot();
        long nativeBefore = Uring.nativeBytesInUse();
        CompletableFuture<?>[] reads = new CompletableFuture<?>[10_000];
        try (Pipe pipe = Pipe.open()) {
            Arena arena = Arena.ofShared();
            Uring uring = Uring.builder().loops(2).build();
            try {
                MemorySegment buffer = arena.allocate(8);
                for (int i = 0; i < reads.length; i++) {
                    reads[i] = uring.submitAsync(Op.read(pipe.readFd(), buffer, -1));
                }
            } finally {
                uring.close();
                arena.close();          // safe only because close waited for every CQE
            }
        }
        for (CompletableFuture<?> read : reads) {
            assertThat(read).isCompletedExceptionally();
        }
        fds.assertNoneOpenedSince();
        assertThat(Uring.nativeBytesInUse()).isEqualTo(nativeBefore);
    }

    @Test
    void submittingWhileAnotherThreadClosesNeverStrandsARequest() throws Exception {
        for (int round = 0; round < 20; round++) {
            Uring uring = Uring.builder().loops(2).build();
            CompletableFuture<?>[][] results = new CompletableFuture<?>[2][2000];
            Thread[] submitters = new Thread[2];
            for (int t = 0; t < 2; t++) {
                CompletableFuture<?>[] mine = results[t];
                submitters[t] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < mine.length; i++) {
                        try {
                            mine[i] = uring.submitAsync(Op.nop());
                        } catch (RejectedExecutionException closed) {
                            mine[i] = CompletableFuture.failedFuture(closed);
                        }
                    }
                });
            }
            uring.close();
            for (Thread t : submitters) {
                t.join();
            }
            for (CompletableFuture<?>[] row : results) {
                for (CompletableFuture<?> f : row) {
                    assertThat(f).as("a request submitted around close").isDone();
                }
            }
        }
    }

    @Test
    void cancelRacingCompletionDeliversExactlyOneOutcome() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            for (int i = 0; i < 2000; i++) {
                CompletableFuture<Integer> f = uring.submitAsync(Op.timeout(Duration.ofNanos(i * 500L)));
                f.cancel(true);
                assertThat(f).isDone();
            }
            // Every request reached its final CQE: nothing is left in flight, nothing was delivered twice.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (uring.loop(0).stats().inFlight() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertThat(uring.loop(0).stats().inFlight()).isZero();
            assertThat(uring.loop(0).stats().stale()).isZero();
        }
    }

    @Test
    void misuseGetsAClearException(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Uring uring = Uring.builder().loops(1).build();
        try (Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> Op.read(0, MemorySegment.ofArray(new byte[16]), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap");
            assertThatThrownBy(() -> Op.read(0, ByteBuffer.allocate(16), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heap");
            assertThatThrownBy(() -> Op.read(0, arena.allocate(16), -5))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
            assertThatThrownBy(() -> Op.timeout(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            Path file = Files.writeString(dir.resolve("f"), "x");
            int fd = LibC.open(file.toString(), LibC.O_RDONLY, 0);
            assertThatThrownBy(() -> uring.call(Op.write(fd, arena.allocate(1), 0)))
                    .isInstanceOf(ErrnoException.class).hasMessageContaining("WRITE").hasMessageContaining("EBADF");
            LibC.close(fd);
        } finally {
            uring.close();
        }
        assertThatThrownBy(() -> uring.call(Op.nop())).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> uring.loop().execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        uring.close();
    }

    @Test
    void aBlockingCallOnTheLoopThreadIsRefused() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            uring.loop().execute(() -> {
                try {
                    uring.call(Op.nop());
                    thrown.complete(null);
                } catch (IOException | RuntimeException e) {
                    thrown.complete(e);
                }
            });
            assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("event loop");
        }
    }

}
