package io.uring4j.runtime;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.Features;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.ErrnoException;

import java.util.Queue;

/**
 * How a loop with nothing to do waits in {@code io_uring_enter}: whether it spins first, and for how many CQEs
 * and how long it sleeps.
 *
 * <h2>Spin</h2>
 * With {@link UringBuilder#spinNanos} the loop busy-waits that long for work before it sleeps — only with nothing
 * to submit, since spinning must never delay a submission.
 *
 * <h2>Bounded sleeps</h2>
 * While a bounded request is in flight and bounded calls were handed over ({@link Waker}), those ride along with
 * the wake-up its CQE brings. That sleep lasts at most {@link #RIDE_ALONG_NANOS}, so a rider waits no longer than
 * that even behind a slow disk's read; and a sleep is bounded only while bounded calls keep coming, so a lone
 * fsync does not make the loop wake every 50 µs.
 *
 * <h2>Batched sleeps</h2>
 * With {@link UringBuilder#batchWait} a busy loop sleeps until a batch of CQEs is ready or the maximum delay has
 * passed (the kernel's min-timeout wait). Under DEFER_TASKRUN the side that completes a request — the softirq of a
 * peer's send, often on the peer's own CPU — then wakes the loop once per batch instead of once per completion; on
 * a VM a cross-CPU wake-up is an IPI that costs that side microseconds. The loop waits for a batch only after a
 * wake-up that reaped a quarter of one (4 at least), so light load waits for one CQE and pays no added latency; a
 * hand-over from another thread may wait up to the maximum delay.
 *
 * <h2>The process's end</h2>
 * Once the process is ending ({@link VmExit}), a sleep lasts at most {@link VmExit#SLEEP_NANOS}, so that HotSpot's
 * last safepoint does not wait for the loop in the kernel; a loop with nothing in flight parks instead (its loop
 * decides, with its waker).
 *
 * <p>Loop thread only.
 */
final class SleepPolicy {
    /**
     * How long a bounded call may wait for the loop's next wake-up: a slow device (a disk's 10 ms) must not make
     * a second file call wait for the first one's completion.
     */
    private static final long RIDE_ALONG_NANOS = 50_000;
    /** How long a closing loop sleeps at most, so that it notices its close timeout. */
    private static final long CLOSING_NANOS = 10_000_000L;

    private final IoUring ring;
    private final CompletionQueue cq;
    private final LoopCounters stats;
    private final long spinNanos;
    /** {@link UringBuilder#batchWait} asked for and the kernel has FEAT_MIN_TIMEOUT. */
    private final boolean batchWait;
    private final int batchCompletions;
    private final long batchWaitNanos;
    /**
     * A sleep waits for a batch only after a wake-up that reaped at least this many CQEs (a quarter of a batch,
     * and never fewer than a lone connection's receive and send can bring at once): under light load each sleep
     * waits for one, so batching adds no latency there.
     */
    private final int batchThreshold;
    /** Bounded requests in flight: while any is, a sleep ends with a CQE for sure. */
    private int boundedInFlight;
    private int lastReaped;

    SleepPolicy(UringBuilder config, IoUring ring, LoopCounters stats) {
        this.ring = ring;
        this.cq = ring.cq();
        this.stats = stats;
        this.spinNanos = config.spinNanos();
        this.batchWait = config.batchCompletions() > 1 && ring.hasFeature(Features.MIN_TIMEOUT);
        this.batchCompletions = config.batchCompletions();
        this.batchWaitNanos = config.batchWaitNanos();
        this.batchThreshold = Math.max(4, config.batchCompletions() / 4);
    }

    void boundedIssued() {
        boundedInFlight++;
    }

    void boundedCompleted() {
        boundedInFlight--;
    }

    /** Whether a bounded request is in flight, so that a sleep may be bounded. */
    boolean boundedInFlight() {
        return boundedInFlight > 0;
    }

    /** The CQEs the last wake-up reaped. */
    void reaped(int count) {
        lastReaped = count;
    }

    /**
     * Before a sleep: busy-waits up to the configured spin for work; true if the loop should still sleep. Under
     * DEFER_TASKRUN a completion is invisible in the CQ until the loop enters the kernel, so the spin also watches
     * the IORING_SQ_TASKRUN flag (TASKRUN_FLAG), which the kernel raises as soon as completion work is pending.
     */
    boolean stillIdleAfterSpin(Queue<?> tasks) {
        if (spinNanos <= 0 || ring.sq().ready() != 0) {
            return true;
        }
        long end = System.nanoTime() + spinNanos;
        do {
            if (!tasks.isEmpty() || cq.ready() > 0 || (ring.sq().kernelFlags() & SqRingFlags.TASKRUN) != 0) {
                return false;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - end < 0);
        return true;
    }

    /** Submits what is prepared and sleeps until a CQE (or a batch of them) is ready, within this policy's bounds. */
    void sleep(boolean closing, boolean bounded) throws ErrnoException {
        if (closing) {
            ring.submitAndWait(1, CLOSING_NANOS);
        } else if (VmExit.ending()) {
            ring.submitAndWait(1, VmExit.SLEEP_NANOS);
        } else if (bounded) {
            ring.submitAndWait(1, RIDE_ALONG_NANOS);
        } else if (batchWait && lastReaped >= batchThreshold) {
            stats.batchWaits++;
            ring.submitAndWaitMinTimeout(batchCompletions, batchWaitNanos, -1);
        } else {
            ring.submitAndWait(1);
        }
    }
}
