package io.uring4j.ring;

import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.stream.LongStream;

import static io.uring4j.ring.Reap.submitAndReap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Resizing a ring's queues (REGISTER_RESIZE_RINGS, 6.13; liburing's resize-rings.c): every CQE kept in order, the
 * overflow list drained into the bigger CQ, the same queue objects on the new rings, stale SQE handles harmless;
 * refused on rings without DEFER_TASKRUN and with sizes too small for what waits. The portable engine refuses the
 * register opcode as a kernel before 6.13 does (UnsupportedCapabilityTest).
 */
@Timeout(30)
class ResizeRingsTest {
    /** A DEFER_TASKRUN ring of 4 SQEs and 4 CQEs, or a skip where the kernel predates resizing. */
    private static IoUring smallDeferredRing() throws ErrnoException {
        IoUring ring = IoUring.builder().entries(4).cqEntries(4).deferTaskrun().build();
        try {
            ring.resize(4, 4);
        } catch (ErrnoException e) {
            ring.close();
            assumeTrue(e.errno() != Errno.EINVAL, "kernel lacks REGISTER_RESIZE_RINGS (6.13)");
            throw e;
        }
        return ring;
    }

    private static void prepNops(IoUring ring, long first, int count) {
        for (int i = 0; i < count; i++) {
            ring.sq().next().prepNop().userData(first + i);
        }
    }

    private static List<Long> userData(List<Completion> cqes) {
        return cqes.stream().map(Completion::userData).toList();
    }

    @Test
    void aGrownCqTakesTheOverflowAndKeepsEveryCqeInOrder() throws Exception {
        try (IoUring ring = smallDeferredRing()) {
            CompletionQueue cq = ring.cq();
            prepNops(ring, 1, 4);
            ring.submit();
            prepNops(ring, 5, 4);
            ring.submit();
            assertThat(cq.ready()).as("the CQ is full").isEqualTo(4);
            assertThat(ring.sq().kernelFlags() & SqRingFlags.CQ_OVERFLOW).as("four wait in the overflow list")
                    .isNotZero();

            ring.resize(4, 16);

            assertThat(ring.cqEntries()).isEqualTo(16);
            assertThat(ring.cq()).as("the same queue object, on the new ring").isSameAs(cq);
            ring.getEvents();
            assertThat(userData(Reap.drainReady(ring))).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
            prepNops(ring, 9, 4);
            assertThat(userData(submitAndReap(ring, 4))).containsExactly(9L, 10L, 11L, 12L);
        }
    }

    @Test
    void aGrownSqTakesAsManySqesAsItsNewSize() throws Exception {
        try (IoUring ring = smallDeferredRing()) {
            ring.resize(64, 128);

            assertThat(ring.sqEntries()).isEqualTo(64);
            assertThat(ring.sq().entries()).isEqualTo(64);
            prepNops(ring, 100, 64);
            assertThat(ring.sq().next()).as("full at 64").isNull();
            assertThat(userData(submitAndReap(ring, 64)))
                    .containsExactlyElementsOf(LongStream.range(100, 164).boxed().toList());
        }
    }

    @Test
    void anSqeHandleFromBeforeTheResizeSubmitsNothing() throws Exception {
        try (IoUring ring = smallDeferredRing()) {
            Sqe stale = ring.sq().next().prepNop().userData(1);
            assertThat(submitAndReap(ring).userData()).isEqualTo(1);

            ring.resize(8, 16);
            stale.prepNop().userData(99);              // the old array: still mapped, no longer read
            ring.sq().next().prepNop().userData(2);

            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(2, 0));
            ring.getEvents();
            assertThat(Reap.drainReady(ring)).isEmpty();
        }
    }

    @Test
    void aCqTooSmallForWhatWaitsIsEoverflowAndTheRingGoesOn() throws Exception {
        try (IoUring ring = IoUring.builder().entries(8).cqEntries(16).deferTaskrun().build()) {
            prepNops(ring, 1, 8);
            ring.submit();
            assertThat(ring.cq().ready()).isEqualTo(8);

            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> ring.resize(2, 4));
            assumeTrue(e == null || e.errno() != Errno.EINVAL, "kernel lacks REGISTER_RESIZE_RINGS (6.13)");

            assertThat(e).isNotNull();
            assertThat(e.errno()).isEqualTo(Errno.EOVERFLOW);
            assertThat(e).hasMessageContaining("REGISTER_RESIZE_RINGS").hasMessageContaining("EOVERFLOW")
                    .hasMessageContaining("reap or submit first");
            assertThat(ring.cqEntries()).isEqualTo(16);
            assertThat(userData(Reap.drainReady(ring))).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        }
    }

    @Test
    void aRingWithoutDeferTaskrunIsRefusedWithEinvalAndSaysWhy() throws Exception {
        try (IoUring ring = IoUring.builder().entries(4).build()) {
            ErrnoException e = catchThrowableOfType(ErrnoException.class, () -> ring.resize(8, 16));

            assertThat(e.errno()).isEqualTo(Errno.EINVAL);
            assertThat(e).hasMessageContaining("REGISTER_RESIZE_RINGS").hasMessageContaining("DEFER_TASKRUN");
            ring.sq().next().prepNop().userData(3);
            assertThat(submitAndReap(ring)).isEqualTo(Completion.cqe(3, 0));
        }
    }
}
