package io.uring4j.ring;

import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Registered wait arguments (REGISTER_MEM_REGION + ENTER_EXT_ARG_REG, 6.13; liburing's reg-wait.c): a wait
 * named by an index into pinned memory instead of an argument copied in; with a deadline, ENTER_ABS_TIMER (6.12).
 */
@Timeout(30)
class WaitRegionTest {
    /** An R_DISABLED ring with a wait region of one page, enabled; skipped where the kernel predates regions. */
    private static IoUring ringWithRegion(WaitRegion[] region) throws ErrnoException {
        IoUring ring = IoUring.builder().entries(8).disabled().build();
        try {
            region[0] = ring.register().waitRegion(1);
        } catch (ErrnoException e) {
            ring.close();
            assumeTrue(e.errno() != Errno.EINVAL, "kernel lacks registered wait regions (6.13)");
            throw e;
        }
        ring.register().enableRings();
        return ring;
    }

    @Test
    void aRegisteredTimeoutEndsAnIdleWait() throws Exception {
        WaitRegion[] region = new WaitRegion[1];
        try (IoUring ring = ringWithRegion(region)) {
            assertThat(region[0].entries()).as("a page of 64-byte entries").isEqualTo(4096 / 64);
            region[0].set(0, TimeUnit.MILLISECONDS.toNanos(20), 0);

            assertThat(region[0].submitAndWait(0, 1)).as("nothing submitted").isZero();

            assertThat(ring.cq().ready()).as("the wait timed out").isZero();
        }
    }

    @Test
    void aRegisteredWaitReturnsWithTheCompletion() throws Exception {
        WaitRegion[] region = new WaitRegion[1];
        try (IoUring ring = ringWithRegion(region)) {
            region[0].set(3, TimeUnit.SECONDS.toNanos(10), 0);
            ring.sq().next().prepNop().userData(7);

            assertThat(region[0].submitAndWait(3, 1)).isOne();

            assertThat(Reap.reap(ring)).isEqualTo(Completion.cqe(7, 0));
        }
    }

    @Test
    void aDeadlineOnTheRingsClockEndsTheWait() throws Exception {
        WaitRegion[] region = new WaitRegion[1];
        try (IoUring ring = ringWithRegion(region)) {
            // CLOCK_MONOTONIC, the ring's default clock, is System.nanoTime's on Linux: a past deadline ends at once.
            region[0].setDeadline(1, System.nanoTime() - TimeUnit.SECONDS.toNanos(1), 0);
            assertThat(region[0].submitAndWait(1, 1)).isZero();
            region[0].setDeadline(1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20), 0);
            assertThat(region[0].submitAndWait(1, 1)).isZero();
            assertThat(ring.cq().ready()).as("both waits timed out").isZero();

            ring.sq().next().prepNop().userData(8);
            region[0].setDeadline(1, System.nanoTime() + TimeUnit.SECONDS.toNanos(10), 0);
            assertThat(region[0].submitAndWait(1, 1)).isOne();
            assertThat(Reap.reap(ring)).isEqualTo(Completion.cqe(8, 0));
        }
    }

    @Test
    void aRegionIsRefusedOnAnEnabledRing() throws Exception {
        try (IoUring ring = IoUring.open(8)) {
            ErrnoException refused = catchThrowableOfType(ErrnoException.class, () -> ring.register().waitRegion(1));
            assertThat(refused.errno()).isEqualTo(Errno.EINVAL);
            assertThat(refused.getMessage()).contains("REGISTER_MEM_REGION", "R_DISABLED");
        }
    }
}
