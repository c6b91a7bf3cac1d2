package io.uring4j.ring;

import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.ring.abi.SqeLayout;
import io.uring4j.sys.Errno;
import io.uring4j.testkit.BothEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static io.uring4j.ring.Reap.drainReady;
import static io.uring4j.ring.Reap.reap;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing sq-full.c and sq-space_left.c: SQ accounting. {@link SubmissionQueue#next()} hands out exactly
 * {@code entries} SQEs and then null; a submit stops after an SQE that fails at submission time, which still
 * consumes its slot and posts an error CQE.
 */
@BothEngines
class SqFullTest {
    private static final byte BAD_OPCODE = (byte) 0xfe;

    @Test
    void anEightEntryRingHandsOutExactlyEightSqesWhileSpaceLeftCountsDown() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            assertThat(ring.sq().spaceLeft()).isEqualTo(8);
            int taken = 0;
            Sqe sqe;
            while ((sqe = ring.sq().next()) != null) {
                sqe.prepNop();
                taken++;
                assertThat(ring.sq().spaceLeft()).isEqualTo(8 - taken);
                assertThat(ring.sq().ready()).isEqualTo(taken);
            }
            assertThat(taken).isEqualTo(8);
            assertThat(ring.sq().next()).as("still full").isNull();
        }
    }

    @Test
    void submittingMakesRoomAgain() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            for (int i = 0; i < 8; i++) {
                ring.sq().next().prepNop().userData(i);
            }
            assertThat(ring.sq().next()).isNull();

            assertThat(ring.submit()).isEqualTo(8);
            assertThat(ring.sq().spaceLeft()).isEqualTo(8);
            assertThat(ring.sq().next()).isNotNull();
        }
    }

    /**
     * A prep writes every field but user_data, as liburing's io_uring_prep_rw does: nothing of a slot's earlier
     * request reaches the next one, though {@code next()} hands the slot out as it was — in 64- and 128-byte
     * entries alike.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aPrepLeavesNothingOfTheSlotsEarlierRequest(boolean sqe128) throws Exception {
        IoUringBuilder builder = IoUring.builder().entries(1);
        try (IoUring ring = (sqe128 ? builder.sqe128() : builder).build()) {
            Sqe first = ring.sq().next();
            first.prepNop().userData(99).flags(SqeFlags.IO_LINK).ioprio(3).addr(0xdead).off(0xbeef).addr3(0xcafe)
                    .bufIndex(7);                       // whatever the kernel makes of these: the slot is dirty
            first.raw().asSlice(SqeLayout.SIZE).fill((byte) 0x5a);   // the second half of a 128-byte entry
            ring.submitAndWait(1);
            assertThat(drainReady(ring)).hasSize(1);

            Sqe again = ring.sq().next();
            assertThat(again.index()).isEqualTo(first.index());
            assertThat(again.userData()).as("user_data is the caller's to set").isEqualTo(99);
            again.prepNop();
            byte[] expected = new byte[(int) again.raw().byteSize()];
            expected[4] = expected[5] = expected[6] = expected[7] = -1;     // fd -1
            expected[32] = 99;                                              // user_data, untouched
            assertThat(again.raw().toArray(JAVA_BYTE)).isEqualTo(expected);
        }
    }

    /** test_sync: 8 NOPs, opcode 0xfe, 8 NOPs. The first submit stops after the bad SQE: 9; the rest follow: 8. */
    @Test
    void aSubmitStopsAfterAnSqeThatFailsAtSubmission() throws Exception {
        try (IoUring ring = IoUring.open(32)) {
            queueNopsAroundABadOpcode(ring);
            assertThat(ring.sq().ready()).isEqualTo(17);

            assertThat(ring.submit()).isEqualTo(9);
            assertThat(ring.sq().ready()).isEqualTo(8);
            assertThat(ring.submit()).isEqualTo(8);
            assertThat(ring.sq().ready()).isZero();

            assertCompletions(reap(ring, 17));
        }
    }

    /** With SUBMIT_ALL the kernel carries on past the bad SQE: one submit takes all 17. */
    @Test
    void submitAllGoesPastTheFailingSqe() throws Exception {
        try (IoUring ring = IoUring.builder().entries(32).submitAll().build()) {
            queueNopsAroundABadOpcode(ring);
            assertThat(ring.submit()).isEqualTo(17);
            assertThat(ring.sq().ready()).isZero();
            assertCompletions(reap(ring, 17));
        }
    }

    private static void queueNopsAroundABadOpcode(IoUring ring) {
        for (int i = 0; i < 8; i++) {
            ring.sq().next().prepNop().userData(i);
        }
        ring.sq().next().prepNop().opcode(BAD_OPCODE).userData(100);
        for (int i = 8; i < 16; i++) {
            ring.sq().next().prepNop().userData(i);
        }
    }

    /** NOPs complete inline, in submission order; the bad SQE's CQE sits between the two halves. */
    private static void assertCompletions(List<Completion> cqes) {
        assertThat(cqes).extracting(Completion::userData)
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 100L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L);
        assertThat(cqes).allSatisfy(c -> assertThat(c.res()).isEqualTo(c.userData() == 100 ? -Errno.EINVAL : 0));
    }
}
