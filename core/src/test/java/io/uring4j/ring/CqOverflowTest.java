package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.testkit.BothEngines;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static io.uring4j.ring.Reap.drainReady;
import static io.uring4j.ring.Reap.reap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * liburing cq-overflow.c: more completions than the CQ holds. With FEAT_NODROP the kernel keeps the extra CQEs
 * on an overflow list, flags it with {@code IORING_SQ_CQ_OVERFLOW}, and moves them into the CQ, in order, on
 * the next enter with GETEVENTS — which {@link IoUring#getEvents()}, {@link IoUring#peekCqe()} and the waits do.
 */
@Timeout(60)
@BothEngines
class CqOverflowTest {
    @BeforeAll
    static void kernelKeepsOverflowedCompletions() throws Exception {
        try (IoUring ring = IoUring.open(2)) {
            assumeTrue(ring.hasFeature(Features.NODROP), "kernel lacks IORING_FEAT_NODROP");
        }
    }

    /** A 4-entry ring (CQ of 8) with 16 NOPs submitted in batches of 4 and nothing reaped in between. */
    private static IoUring overflowedRing() throws Exception {
        IoUring ring = IoUring.open(4);
        assertThat(ring.cq().entries()).isEqualTo(8);
        for (int batch = 0; batch < 4; batch++) {
            for (int i = 0; i < 4; i++) {
                ring.sq().next().prepNop().userData(batch * 4L + i);
            }
            assertThat(ring.submit()).as("batch %d", batch).isEqualTo(4);
        }
        return ring;
    }

    @Test
    void nopsBeyondTheCqAreKeptAndReapedInOrder() throws Exception {
        try (IoUring ring = overflowedRing()) {
            assertThat(ring.cq().ready()).isEqualTo(8);
            assertThat(overflowFlag(ring)).isTrue();
            assertThat(ring.cq().overflow()).as("nothing dropped").isZero();

            List<Long> order = new ArrayList<>();
            Cqe cqe;
            while ((cqe = ring.peekCqe()) != null) {
                assertThat(cqe.res()).isZero();
                order.add(cqe.userData());
                ring.cq().seen(cqe);
            }
            assertThat(order).containsExactlyElementsOf(LongStream.range(0, 16).boxed().toList());
            assertThat(overflowFlag(ring)).isFalse();
        }
    }

    @Test
    void theOverflowFlagStaysUntilAnEnterFlushesAndGetEventsFlushes() throws Exception {
        try (IoUring ring = overflowedRing()) {
            assertThat(drainReady(ring)).extracting(Completion::userData)
                    .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
            // Reaping frees slots but moves nothing: the overflowed CQEs wait in the kernel.
            assertThat(ring.cq().ready()).isZero();
            assertThat(ring.cq().peek()).isNull();
            assertThat(overflowFlag(ring)).isTrue();

            assertThat(ring.getEvents()).isZero();
            assertThat(overflowFlag(ring)).isFalse();
            assertThat(drainReady(ring)).extracting(Completion::userData)
                    .containsExactly(8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L);
        }
    }

    @Test
    void peekCqeEntersToFlushWhenTheCqIsEmptyButTheFlagIsSet() throws Exception {
        try (IoUring ring = overflowedRing()) {
            drainReady(ring);
            Cqe cqe = ring.peekCqe();
            assertThat(cqe).isNotNull();
            assertThat(cqe.userData()).isEqualTo(8);
        }
    }

    @Test
    void waitCqeFlushesTheOverflowList() throws Exception {
        try (IoUring ring = overflowedRing()) {
            drainReady(ring);
            assertThat(ring.waitCqe().userData()).isEqualTo(8);
        }
    }

    @Test
    void submittingWhileOverflowedStillWorks() throws Exception {
        try (IoUring ring = overflowedRing()) {
            // The CQ is full and 8 more wait in the kernel: the submit must neither fail (old kernels: EBUSY)
            // nor lose the new completion, which queues behind the others.
            ring.sq().next().prepNop().userData(16);
            assertThat(ring.submit()).isEqualTo(1);
            List<Long> order = new ArrayList<>();
            for (int i = 0; i < 17; i++) {
                order.add(reap(ring).userData());
            }
            assertThat(order).containsExactlyElementsOf(LongStream.rangeClosed(0, 16).boxed().toList());
        }
    }

    static Stream<Arguments> overflowHandlingConfigs() {
        List<Arguments> configs = new ArrayList<>();
        for (int cq : new int[] {2, 4}) {
            for (boolean batch : new boolean[] {false, true}) {
                configs.add(Arguments.of(cq, batch, 0));
                configs.add(Arguments.of(cq, batch, SetupFlags.IOPOLL));
                configs.add(Arguments.of(cq, batch, SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN));
            }
        }
        return configs.stream();
    }

    /**
     * liburing test_overflow_handling: 8 NOPs in flight on a CQ of 2 or 4, each one resubmitted as it is reaped,
     * for 128 rounds. While the overflow flag is up, getEvents must flush (returning 0). Nothing may be lost and
     * flushing must keep submission order, so every id completes as often as its neighbours, give or take one.
     */
    @ParameterizedTest(name = "cq={0} batch={1} flags={2}")
    @MethodSource("overflowHandlingConfigs")
    void overflowIsFlushedFairlyAndLosesNothing(int cqSize, boolean batch, int flags) throws Exception {
        Rings.kernelOnlyFlags(flags);
        final int n = 8;
        final int loops = 128;
        try (IoUring ring = IoUring.builder().entries(2).cqEntries(cqSize).flags(flags).build()) {
            assertThat(ring.cq().entries()).isLessThan(n);
            int[] completions = new int[n];
            Deque<Integer> toResubmit = new ArrayDeque<>();
            int outstanding = 0;
            for (int id = 0; id < n; id++) {
                submitOneNop(ring, id);
                outstanding++;
            }

            for (int loop = 0; loop < loops; loop++) {
                if (overflowFlag(ring)) {
                    assertThat(ring.getEvents()).isZero();
                } else {
                    while (!toResubmit.isEmpty()) {
                        submitOneNop(ring, toResubmit.poll());
                        outstanding++;
                    }
                }
                ring.waitCqe();
                List<Completion> reaped = new ArrayList<>();
                ring.cq().drain(c -> reaped.add(Completion.of(c)), batch ? 2 : 1);
                for (Completion c : reaped) {
                    assertThat(c.res()).isZero();
                    completions[(int) c.userData()]++;
                    toResubmit.add((int) c.userData());
                }
                outstanding -= reaped.size();
            }

            // Flush the CQ and the overflow list: every NOP still in flight must show up.
            while (outstanding > 0) {
                ring.getEvents();
                if (ring.cq().ready() == 0) {
                    ring.waitCqe();
                }
                outstanding -= drainReady(ring).size();
            }
            assertThat(outstanding).isZero();
            assertThat(ring.cq().overflow()).as("dropped CQEs").isZero();
            for (int id = 1; id < n; id++) {
                assertThat(Math.abs(completions[id] - completions[id - 1]))
                        .as("completions per id %s", Arrays.toString(completions)).isLessThanOrEqualTo(1);
            }
        }
    }

    private static void submitOneNop(IoUring ring, int id) throws Exception {
        ring.sq().next().prepNop().userData(id);
        assertThat(ring.submit()).isEqualTo(1);
    }

    private static boolean overflowFlag(IoUring ring) {
        return (ring.sq().kernelFlags() & SqRingFlags.CQ_OVERFLOW) != 0;
    }
}
