package io.uring4j.runtime;

import io.uring4j.ring.Pipe;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;

import java.io.InterruptedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.uring4j.testkit.Await.awaitCondition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Linked requests through the runtime: per-step results and the kernel's failure rules as typed outcomes. */
@BothEngines
class ChainTest {
    @Test
    void stepsRunInOrderAndReportTheirResults() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            ChainResult r = uring.loop().chain(Op.nop(1)).then(Op.nop(2)).then(Op.nop(3)).call();
            assertThat(r.steps()).isEqualTo(3);
            assertThat(new int[] {r.result(0), r.result(1), r.result(2)}).containsExactly(1, 2, 3);
            assertThat(r.firstFailure()).isEqualTo(-1);
        }
    }

    @Test
    void aFailedSoftLinkCancelsTheRestAndAHardLinkDoesNot() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            ChainResult soft = uring.loop().chain(Op.nop(-Errno.EIO)).then(Op.nop(5)).then(Op.nop(6))
                    .submitAsync().get(10, TimeUnit.SECONDS);
            assertThat(soft.result(0)).isEqualTo(-Errno.EIO);
            assertThat(soft.wasCancelled(1)).isTrue();
            assertThat(soft.wasCancelled(2)).isTrue();
            assertThat(soft.firstFailure()).isZero();

            ChainResult hard = uring.loop().chain(Op.nop(-Errno.EIO)).thenHard(Op.nop(5))
                    .submitAsync().get(10, TimeUnit.SECONDS);
            assertThat(hard.result(0)).isEqualTo(-Errno.EIO);
            assertThat(hard.result(1)).isEqualTo(5);
        }
    }

    @Test
    void aLinkTimeoutCancelsAReadThatNeverCompletes() throws Exception {
        try (Pipe pipe = Pipe.open(); Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            ChainResult r = uring.loop().chain(Op.read(pipe.readFd(), arena.allocate(16), -1))
                    .timeout(Duration.ofMillis(10)).call();
            assertThat(r.result(0)).isIn(-Errno.ECANCELED, -Errno.EINTR);
            assertThat(r.result(1)).isEqualTo(-Errno.ETIME);
        }
    }

    /**
     * A close that gives up on the kernel (here at once: no time at all to wait) fails the requests still in
     * flight; a chain among them ends too, so that a caller blocked in {@link Chain#call} wakes.
     */
    @Test
    void aCloseThatGivesUpOnAChainInFlightFailsIt() throws Exception {
        try (Pipe pipe = Pipe.open(); Arena arena = Arena.ofShared()) {
            Uring uring = Uring.builder().loops(1).closeTimeout(Duration.ZERO).build();
            CompletableFuture<ChainResult> chain = uring.loop().chain(Op.read(pipe.readFd(), arena.allocate(8), -1))
                    .then(Op.nop()).submitAsync();
            awaitCondition(() -> uring.loop().stats().inFlight() == 2);
            assertThatThrownBy(uring::close).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not complete within the close timeout");
            assertThat(chain).failsWithin(0, TimeUnit.SECONDS).withThrowableThat().havingCause()
                    .withMessageContaining("did not complete within the close timeout");
        }
    }

    @Test
    void aLinkTimeoutIsCancelledWhenItsRequestWins() throws Exception {
        try (Uring uring = Uring.builder().loops(1).build()) {
            ChainResult r = uring.loop().chain(Op.nop(9)).timeout(Duration.ofSeconds(30)).call();
            assertThat(r.result(0)).isEqualTo(9);
            assertThat(r.result(1)).isEqualTo(-Errno.ECANCELED);
        }
    }

    @Test
    void interruptingABlockedChainCancelsItAndWaitsForEveryStep() throws Exception {
        try (Pipe pipe = Pipe.open(); Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(16);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = Thread.ofVirtual().start(() -> {
                try {
                    uring.loop().chain(Op.read(pipe.readFd(), buffer, -1)).then(Op.nop()).call();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            while (uring.loop(0).stats().inFlight() < 2) {
                Thread.onSpinWait();
            }
            t.interrupt();
            t.join();
            assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
            assertThat(uring.loop(0).stats().inFlight()).isZero();
        }
    }

    @Test
    void aTimeoutRacingItsReadsCompletionHasExactlyOneWinner() throws Exception {
        try (Pipe pipe = Pipe.open(); Uring uring = Uring.builder().loops(1).build(); Arena arena = Arena.ofShared()) {
            for (int i = 0; i < 300; i++) {
                MemorySegment buffer = arena.allocate(8);
                var chain = uring.loop().chain(Op.read(pipe.readFd(), buffer, -1))
                        .timeout(Duration.ofNanos(20_000L * (i % 50))).submitAsync();
                pipe.write((byte) 'x');
                ChainResult r = chain.get(10, TimeUnit.SECONDS);
                if (r.result(0) == 1) {
                    assertThat(r.result(1)).as("%s", r).isIn(-Errno.ECANCELED, -Errno.EALREADY, -Errno.ENOENT, -Errno.ETIME, 0);
                } else {
                    assertThat(r.result(0)).as("%s", r).isIn(-Errno.ECANCELED, -Errno.EINTR);
                    assertThat(r.result(1)).as("%s", r).isIn(-Errno.ETIME, -Errno.EALREADY, 0);
                    assertThat(pipe.read(8)).containsExactly('x');   // the byte is still there
                }
            }
            assertThat(uring.loop(0).stats().stale()).isZero();
        }
    }
}
