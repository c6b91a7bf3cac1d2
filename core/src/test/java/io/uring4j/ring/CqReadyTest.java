package io.uring4j.ring;

import io.uring4j.ring.abi.Features;
import io.uring4j.testkit.BothEngines;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * liburing cq-ready.c and cq-full.c: CQ accounting. NOPs complete inline, so their CQEs are in the CQ by the
 * time submit returns; {@link CompletionQueue#ready()} counts them and {@link CompletionQueue#advance} gives
 * slots back.
 */
@BothEngines
class CqReadyTest {
    @Test
    void readyCountsPostedCqesAndAdvanceConsumesThem() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            assertThat(ring.cq().ready()).isZero();

            submitNops(ring, 4);
            assertThat(ring.cq().ready()).isEqualTo(4);
            ring.cq().advance(4);
            assertThat(ring.cq().ready()).isZero();

            submitNops(ring, 4);
            assertThat(ring.cq().ready()).isEqualTo(4);
            ring.cq().advance(1);
            assertThat(ring.cq().ready()).isEqualTo(3);
            ring.cq().advance(2);
            assertThat(ring.cq().ready()).isEqualTo(1);
            ring.cq().advance(1);
            assertThat(ring.cq().ready()).isZero();
        }
    }

    @Test
    void seenConsumesExactlyTheCqeAtTheHead() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            for (int i = 0; i < 3; i++) {
                ring.sq().next().prepNop().userData(10 + i);
            }
            ring.submit();
            for (int i = 0; i < 3; i++) {
                assertThat(ring.cq().ready()).isEqualTo(3 - i);
                Cqe cqe = ring.cq().peek();
                assertThat(cqe.userData()).isEqualTo(10 + i);
                ring.cq().seen(cqe);
            }
            assertThat(ring.cq().peek()).isNull();
        }
    }

    /** cq-full.c: 12 NOPs on a CQ of 8. With FEAT_NODROP the peek loop flushes the overflow and reaps all 12. */
    @Test
    void aPeekLoopReapsMoreThanTheCqHoldsWithoutDropping() throws Exception {
        try (IoUring ring = IoUring.open(4)) {
            assertThat(ring.cq().entries()).isEqualTo(8);
            for (int batch = 0; batch < 3; batch++) {
                submitNops(ring, 4);
            }
            assertThat(ring.cq().ready()).as("the CQ is full").isEqualTo(8);

            int reaped = 0;
            Cqe cqe;
            while ((cqe = ring.peekCqe()) != null) {
                assertThat(cqe.res()).isZero();
                ring.cq().seen(cqe);
                reaped++;
            }
            if (ring.hasFeature(Features.NODROP)) {
                assertThat(reaped).isEqualTo(12);
                assertThat(ring.cq().overflow()).isZero();
            } else {
                assertThat(reaped).isEqualTo(8);
                assertThat(ring.cq().overflow()).isEqualTo(4);
            }
        }
    }

    private static void submitNops(IoUring ring, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            ring.sq().next().prepNop().userData(i + 1);
        }
        assertThat(ring.submit()).isEqualTo(count);
    }
}
