package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.testkit.ForwardingEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static io.uring4j.ring.Reap.reap;
import static io.uring4j.ring.Reap.submitAndReap;
import static io.uring4j.ring.Rings.errnoOf;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing no-mmap-inval.c / init-mem.c, reg-fd-only.c, sq-poll-*.c and sqpoll-sleep.c, shared-wq.c,
 * io_uring_setup.c (CLAMP) and sq-space_left.c (SUBMIT_ALL): rings set up in the less common modes still
 * complete NOPs round trip, and each mode's distinguishing behaviour shows.
 */
class SetupModesTest {
    private static final long TEN_SECONDS = 10_000_000_000L;

    // ---- NO_MMAP and REGISTERED_FD_ONLY ---------------------------------------------------------------------

    @ParameterizedTest(name = "{0} entries, flags {1}")
    @CsvSource({
        "8, 0",
        "64, 0",
        // 4096 SQEs are 256 KiB and the CQ ring 128 KiB: app memory spanning many pages, which the kernel
        // pins and maps (before 6.x it wanted a single huge page for that).
        "4096, 0",
        "64, " + SetupFlags.CQE32,
        "64, " + (SetupFlags.SQE128 | SetupFlags.CQE32),
    })
    void noMmapRingCompletesNops(int entries, int flags) throws Exception {
        try (IoUring ring = IoUring.builder().entries(entries).flags(flags).noMmap().build()) {
            assertThat(ring.setupFlags() & SetupFlags.NO_MMAP).isNotZero();
            assertThat(ring.sqEntries()).isEqualTo(entries);
            assertNopBatchesRoundTrip(ring, Math.min(entries, 32), 3);
        }
    }

    /**
     * On a kernel with NO_MMAP but without NO_SQARRAY (6.5), the builder falls back to a ring with an SQ index
     * array, which must be filled with the identity map for app-allocated rings too. Simulated here by an
     * engine that refuses NO_SQARRAY the way such a kernel does (EINVAL); the ring itself is the real kernel's.
     */
    @Test
    void noMmapRingWithAnSqArrayMapsEverySlot() throws Exception {
        Engine refusesNoSqArray = new RefusingEngine(SetupFlags.NO_SQARRAY);
        try (IoUring ring = IoUring.builder().entries(8).noMmap().engine(refusesNoSqArray).build()) {
            assertThat(ring.setupFlags() & SetupFlags.NO_SQARRAY).isZero();
            assertNopBatchesRoundTrip(ring, 8, 3);
        }
    }

    @Test
    void registeredFdOnlyRingHasNoFdButWorksThroughItsIndex() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).registeredFdOnly().build()) {
            assertThat(ring.fd()).isEqualTo(-1);
            assertNopBatchesRoundTrip(ring, 8, 3);
            // Registration goes through the index as well (FEAT_REG_REG_RING).
            assertThat(ring.register().probe().isSupported(Opcode.NOP)).isTrue();
            assertThat(errnoOf(() -> ring.register().ringFd())).as("already an index").isEqualTo(Errno.EEXIST);
        }
    }

    // ---- SQPOLL --------------------------------------------------------------------------------------------

    @Test
    void sqpollRingCompletesNopsAlsoAfterItsThreadWentIdle() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).sqpoll(100).build()) {
            assertThat(ring.setupFlags() & SetupFlags.SQPOLL).isNotZero();
            assertNopBatchesRoundTrip(ring, 4, 5);

            // After 100 ms without work the kernel thread sleeps and says so with NEED_WAKEUP; wait for that
            // (bounded), so the next submit must wake it.
            long deadline = System.nanoTime() + TEN_SECONDS;
            while ((ring.sq().kernelFlags() & SqRingFlags.NEED_WAKEUP) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(ring.sq().kernelFlags() & SqRingFlags.NEED_WAKEUP).as("SQ thread went idle").isNotZero();

            assertNopBatchesRoundTrip(ring, 4, 2);
        }
    }

    @Test
    void ringsAttachedToAnotherRingsWorkQueueBothWork() throws Exception {
        try (IoUring first = IoUring.open(8);
             IoUring second = IoUring.builder().entries(8).attachWq(first).build()) {
            assertThat(second.setupFlags() & SetupFlags.ATTACH_WQ).isNotZero();
            // ASYNC forces the NOPs through io-wq, the part that is shared.
            assertAsyncNopsRoundTrip(first);
            assertAsyncNopsRoundTrip(second);
        }
    }

    @Test
    void sqpollRingsSharingOneThreadBothWork() throws Exception {
        try (IoUring first = IoUring.builder().entries(8).sqpoll(1000).build();
             IoUring second = IoUring.builder().entries(8).sqpoll(1000).attachWq(first).build()) {
            assertNopBatchesRoundTrip(first, 4, 2);
            assertNopBatchesRoundTrip(second, 4, 2);
            assertNopBatchesRoundTrip(first, 4, 2);
        }
    }

    @Test
    void attachWqWithoutAValidRingFdIsRefused() {
        // The builder's wq_fd stays -1 when only the flag is given.
        assertThat(errnoOf(() -> IoUring.builder().entries(8).flags(SetupFlags.ATTACH_WQ).build().close()))
                .isEqualTo(Errno.ENXIO);
    }

    // ---- CLAMP ---------------------------------------------------------------------------------------------

    @Test
    void clampLimitsOversizedRingsInsteadOfFailing() throws Exception {
        assertThat(errnoOf(() -> IoUring.builder().entries(100_000).build().close())).isEqualTo(Errno.EINVAL);
        try (IoUring ring = IoUring.builder().entries(100_000).clamp().build()) {
            assertThat(ring.sqEntries()).isEqualTo(32768);
            assertThat(ring.cqEntries()).isEqualTo(65536);
            assertNopBatchesRoundTrip(ring, 8, 1);
        }
        try (IoUring ring = IoUring.builder().entries(8).cqEntries(1 << 20).clamp().build()) {
            assertThat(ring.cqEntries()).isEqualTo(65536);
        }
    }

    // ---- SUBMIT_ALL ----------------------------------------------------------------------------------------

    @Test
    void withoutSubmitAllABadSqeEndsTheBatch() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            prepareNopNopBadNopNop(ring);
            assertThat(ring.submit()).as("stops after the bad SQE, which is consumed").isEqualTo(3);
            assertThat(ring.sq().ready()).isEqualTo(2);
            assertThat(ring.submitAndWait(5)).isEqualTo(2);
            assertBadSqeFailedAndNopsCompleted(reap(ring, 5));
        }
    }

    @Test
    void withSubmitAllABadSqeDoesNotStopTheBatch() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).submitAll().build()) {
            prepareNopNopBadNopNop(ring);
            assertThat(ring.submitAndWait(5)).isEqualTo(5);
            assertThat(ring.sq().ready()).isZero();
            assertBadSqeFailedAndNopsCompleted(reap(ring, 5));
        }
    }

    private static void prepareNopNopBadNopNop(IoUring ring) {
        for (int i = 0; i < 5; i++) {
            Sqe sqe = ring.sq().next().prepNop().userData(i);
            if (i == 2) {
                sqe.opcode((byte) 0xfe);    // no such opcode: fails when the kernel consumes the SQE
            }
        }
    }

    private static void assertBadSqeFailedAndNopsCompleted(List<Completion> completions) {
        assertThat(completions).extracting(Completion::userData).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 4L);
        for (Completion c : completions) {
            assertThat(c.res()).as("user_data %d", c.userData()).isEqualTo(c.userData() == 2 ? -Errno.EINVAL : 0);
        }
    }

    // ---- helpers -------------------------------------------------------------------------------------------

    /** {@code rounds} batches of {@code batch} NOPs with distinct user_data, each batch reaped completely. */
    static void assertNopBatchesRoundTrip(IoUring ring, int batch, int rounds) throws ErrnoException {
        long userData = 1;
        for (int round = 0; round < rounds; round++) {
            Long[] expected = new Long[batch];
            for (int i = 0; i < batch; i++) {
                expected[i] = userData;
                ring.sq().next().prepNop().userData(userData++);
            }
            int submitted = ring.submitAndWait(batch);
            if ((ring.setupFlags() & SetupFlags.SQPOLL) != 0) {
                // As in liburing, the count is of SQEs the SQ thread had not consumed yet when submit looked:
                // an awake thread may already have taken some or all of them.
                assertThat(submitted).isBetween(0, batch);
            } else {
                assertThat(submitted).isEqualTo(batch);
            }
            List<Completion> completions = reap(ring, batch);
            assertThat(completions).extracting(Completion::userData).containsExactlyInAnyOrder(expected);
            assertThat(completions).extracting(Completion::res).containsOnly(0);
        }
    }

    private static void assertAsyncNopsRoundTrip(IoUring ring) throws ErrnoException {
        for (int i = 0; i < 4; i++) {
            ring.sq().next().prepNop().userData(i).addFlags(SqeFlags.ASYNC);
        }
        assertThat(submitAndReap(ring, 4)).extracting(Completion::res).containsOnly(0);
    }

    /** The kernel engine, answering setup with EINVAL when any of {@code refused} is asked for. */
    private static final class RefusingEngine extends ForwardingEngine {
        private final int refused;

        RefusingEngine(int refused) {
            super(Engine.kernel());
            this.refused = refused;
        }

        @Override
        public String name() {
            return "kernel refusing " + SetupFlags.toString(refused);
        }

        @Override
        public int setup(int entries, MemorySegment params) {
            if ((params.get(JAVA_INT, ParamsLayout.FLAGS) & refused) != 0) {
                return -Errno.EINVAL;
            }
            return real.setup(entries, params);
        }
    }

    @org.junit.jupiter.api.Test
    void sqRingWaitReturnsOnceTheSqpollThreadMadeRoom() throws Exception {
        try (IoUring ring = IoUring.builder().entries(4).sqpoll(1000).build()) {
            for (int i = 0; i < 4; i++) {
                ring.sq().next().prepNop().userData(i);
            }
            ring.submit();
            ring.sqRingWait();
            org.assertj.core.api.Assertions.assertThat(ring.sq().spaceLeft()).isPositive();
            ring.waitCqes(4, -1);
            org.assertj.core.api.Assertions.assertThat(ring.cq().ready()).isEqualTo(4);
        }
        try (IoUring plain = IoUring.open(4)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(plain::sqRingWait)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("SQPOLL");
        }
    }

    @org.junit.jupiter.api.Test
    void dontForkAdvisesEveryMappingAndTheRingStillWorks() throws Exception {
        for (IoUringBuilder builder : java.util.List.of(IoUring.builder().entries(8), IoUring.builder().entries(8).noMmap())) {
            try (IoUring ring = builder.build()) {
                ring.dontFork();
                ring.sq().next().prepNop().userData(3);
                ring.submitAndWait(1);
                org.assertj.core.api.Assertions.assertThat(ring.waitCqe().userData()).isEqualTo(3);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void waitsCanLeaveIowaitAccounting() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            org.assertj.core.api.Assertions.assertThat(ring.countsIowait()).as("by default").isTrue();
            ring.iowait(false);
            org.assertj.core.api.Assertions.assertThat(ring.countsIowait())
                    .as("NO_IOWAIT on every enter where the kernel has it").isEqualTo(!ring.hasFeature(Features.NO_IOWAIT));
            ring.sq().next().prepNop().userData(1);
            ring.submitAndWait(1);      // the kernel takes the flag
            org.assertj.core.api.Assertions.assertThat(ring.waitCqe().userData()).isEqualTo(1);
            ring.iowait(true);
            org.assertj.core.api.Assertions.assertThat(ring.countsIowait()).isTrue();
        }
    }
}
