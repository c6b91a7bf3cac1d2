package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.time.Duration;

import static io.uring4j.ring.Completion.cqe;
import static io.uring4j.ring.Reap.PATIENCE_NANOS;
import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Rings.openOrSkip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing test/timeout-new.c (and the {@code wait_cqes} case of test/timeout.c): waits bounded by an EXT_ARG
 * timeout instead of a TIMEOUT SQE. {@link IoUring#waitCqes} returns the head CQE as soon as enough are ready,
 * or {@code null} once the time is up with none; {@link IoUring#submitAndWait(int, long)} returns the number
 * submitted whether or not the wait was cut short. A timed-out wait does not cancel the I/O it waited for.
 */
@BothEngines
class WaitTimeoutTest {
    private static final long TIMEOUT = Duration.ofMillis(100).toNanos();

    private static IoUring openWithExtArg(int setupFlags) throws ErrnoException {
        return openWith(setupFlags, Features.EXT_ARG, "IORING_FEAT_EXT_ARG");
    }

    private static IoUring openWithMinTimeout() throws ErrnoException {
        return openWith(SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN, Features.MIN_TIMEOUT,
                "IORING_FEAT_MIN_TIMEOUT (6.12)");
    }

    /** A ring with {@code feature}, or the test skips saying the kernel lacks it. */
    private static IoUring openWith(int setupFlags, int feature, String featureName) throws ErrnoException {
        IoUring ring = openOrSkip(8, setupFlags);
        if (!ring.hasFeature(feature)) {
            ring.close();
            assumeTrue(false, "kernel lacks " + featureName);
        }
        return ring;
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.SQPOLL, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN})
    void completionBeforeTheTimeoutIsReturned(int setupFlags) throws Exception {
        try (IoUring ring = openWithExtArg(setupFlags)) {
            ring.sq().next().prepNop().userData(7);
            assertThat(ring.submit()).isEqualTo(1);

            // A generous bound: an SQPOLL thread may take a while to be scheduled on a loaded machine.
            Cqe cqe = ring.waitCqes(1, PATIENCE_NANOS);
            assertThat(cqe).isNotNull();
            assertThat(Completion.of(cqe)).isEqualTo(cqe(7, 0));
            ring.cq().seen(cqe);
        }
    }

    @ParameterizedTest(name = "setup flags {0}")
    @ValueSource(ints = {0, SetupFlags.SQPOLL, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN})
    void noCompletionReturnsNullAfterTheTimeout(int setupFlags) throws Exception {
        try (IoUring ring = openWithExtArg(setupFlags)) {
            long start = System.nanoTime();
            assertThat(ring.waitCqes(1, TIMEOUT)).isNull();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
        }
    }

    @Test
    void timedOutWaitLeavesThePendingReadInFlight() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = openWithExtArg(0)) {
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);

            assertThat(ring.waitCqes(1, TIMEOUT)).as("a CQE for a read of an empty pipe").isNull();
            // The read is still pending: closing the write end completes it with EOF.
            pipe.closeWriteEnd();
            assertThat(reap(ring)).isEqualTo(cqe(1, 0));
        }
    }

    @Test
    void waitForTwoGathersTwoThenTimesOut() throws Exception {
        try (IoUring ring = openWithExtArg(0)) {
            ring.sq().next().prepNop().userData(1);
            ring.sq().next().prepNop().userData(2);
            assertThat(ring.submit()).isEqualTo(2);

            // Both ready: returns at once with the first.
            Cqe first = ring.waitCqes(2, TIMEOUT);
            assertThat(first).isNotNull();
            assertThat(Completion.of(first)).isEqualTo(cqe(1, 0));
            ring.cq().seen(first);

            // One of two ready: waits out the timeout, then hands over what there is.
            long start = System.nanoTime();
            Cqe second = ring.waitCqes(2, TIMEOUT);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(second).isNotNull();
            assertThat(Completion.of(second)).isEqualTo(cqe(2, 0));
            ring.cq().seen(second);

            start = System.nanoTime();
            assertThat(ring.waitCqes(2, TIMEOUT)).isNull();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
        }
    }

    @Test
    void submitAndWaitWithTimeoutReturnsTheNumberSubmittedWhenTheWaitTimesOut() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = openWithExtArg(0)) {
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(1);
            long start = System.nanoTime();

            assertThat(ring.submitAndWait(1, TIMEOUT)).as("submitted").isEqualTo(1);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(ring.cq().ready()).as("CQEs ready").isZero();

            pipe.closeWriteEnd();
            assertThat(reap(ring)).isEqualTo(cqe(1, 0));
        }
    }

    @Test
    void submitAndWaitWithTimeoutReturnsOnceTheCompletionsAreThere() throws Exception {
        try (IoUring ring = openWithExtArg(0)) {
            ring.sq().next().prepNop().userData(1);
            ring.sq().next().prepNop().userData(2);

            assertThat(ring.submitAndWait(2, PATIENCE_NANOS)).as("submitted").isEqualTo(2);
            assertThat(ring.cq().ready()).as("CQEs ready").isEqualTo(2);
            assertThat(reap(ring, 2)).containsExactly(cqe(1, 0), cqe(2, 0));
        }
    }

    @Test
    void aFullBatchEndsTheMinimumWaitAtOnce() throws Exception {
        try (IoUring ring = openWithMinTimeout()) {
            for (int i = 1; i <= 4; i++) {
                ring.sq().next().prepNop().userData(i);
            }
            long start = System.nanoTime();
            assertThat(ring.submitAndWaitMinTimeout(4, Duration.ofSeconds(30).toNanos(), -1)).isEqualTo(4);
            assertThat(System.nanoTime() - start).as("not the 30 s minimum wait").isLessThan(Duration.ofSeconds(15).toNanos());
            assertThat(reap(ring, 4)).containsExactly(cqe(1, 0), cqe(2, 0), cqe(3, 0), cqe(4, 0));
        }
    }

    @Test
    void aShortBatchIsHandedOverOnceTheMinimumWaitHasPassed() throws Exception {
        try (IoUring ring = openWithMinTimeout()) {
            ring.sq().next().prepNop().userData(1);
            long start = System.nanoTime();
            // Four asked for, one will come: without the minimum wait this would sleep forever.
            assertThat(ring.submitAndWaitMinTimeout(4, TIMEOUT, -1)).as("submitted").isEqualTo(1);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(reap(ring)).isEqualTo(cqe(1, 0));
        }
    }

    @Test
    void withoutAnOverallTimeoutTheMinimumWaitEndsTheSleepEvenWithNothingReady() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = openWithMinTimeout()) {
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(1);
            assertThat(ring.submit()).isEqualTo(1);
            long start = System.nanoTime();
            assertThat(ring.submitAndWaitMinTimeout(2, TIMEOUT, -1)).as("submitted").isZero();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(ring.cq().ready()).isZero();

            pipe.closeWriteEnd();
            assertThat(reap(ring)).isEqualTo(cqe(1, 0));
        }
    }

    @Test
    void withNothingReadyAfterTheMinimumWaitTheOverallTimeoutApplies() throws Exception {
        try (Arena arena = Arena.ofConfined(); Pipe pipe = Pipe.open(); IoUring ring = openWithMinTimeout()) {
            ring.sq().next().prepRead(pipe.readFd(), arena.allocate(16), 0).userData(1);
            long start = System.nanoTime();
            // min wait 10 ms passes with nothing ready: the wait goes on, for one CQE, until the 100 ms timeout.
            assertThat(ring.submitAndWaitMinTimeout(2, TIMEOUT / 10, TIMEOUT)).as("submitted").isEqualTo(1);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TIMEOUT);
            assertThat(ring.cq().ready()).isZero();

            pipe.closeWriteEnd();
            assertThat(reap(ring)).isEqualTo(cqe(1, 0));
        }
    }
}
