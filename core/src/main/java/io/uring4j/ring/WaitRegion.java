package io.uring4j.ring;

import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.util.BitSet;

import static io.uring4j.ring.abi.WaitRegionLayout.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Registered wait arguments ({@code IORING_REGISTER_MEM_REGION} + {@code IORING_ENTER_EXT_ARG_REG}, 6.13): a
 * page of {@code io_uring_reg_wait} entries the kernel has pinned, so that a timed wait names an entry by index
 * instead of having the kernel copy an argument in on every enter (liburing's
 * {@code io_uring_submit_and_wait_reg}). Set an entry once, wait on it as often as needed. Made by
 * {@link Registrar#waitRegion}; its memory lives as long as the ring. One thread, the ring's.
 */
public final class WaitRegion {
    private final IoUring ring;
    private final MemorySegment waits;
    private final int entries;
    /** Entries set with a deadline: waited on with IORING_ENTER_ABS_TIMER. */
    private final BitSet absolute = new BitSet();

    WaitRegion(IoUring ring, MemorySegment waits, int entries) {
        this.ring = ring;
        this.waits = waits;
        this.entries = entries;
    }

    /** How many entries the region holds (what was asked for, rounded up to whole pages). */
    public int entries() {
        return entries;
    }

    private long at(int index) {
        if (index < 0 || index >= entries) {
            throw new IndexOutOfBoundsException("wait region entry " + index + " of " + entries);
        }
        return WAIT_SIZE * index;
    }

    /**
     * Sets entry {@code index}: wait at most {@code timeoutNanos} ({@code < 0}: no timeout) and, with a non-zero
     * {@code minWaitNanos}, return after that long once any CQE is ready (FEAT_MIN_TIMEOUT).
     */
    public WaitRegion set(int index, long timeoutNanos, long minWaitNanos) {
        absolute.clear(index);
        return write(index, timeoutNanos, minWaitNanos);
    }

    /**
     * Sets entry {@code index} to wait until {@code deadlineNanos} on the ring's clock
     * ({@code IORING_ENTER_ABS_TIMER}, 6.12): CLOCK_MONOTONIC unless {@link Registrar#clock} chose another — on
     * Linux the clock of {@link System#nanoTime()}. A deadline stays right across signals and repeated waits.
     */
    public WaitRegion setDeadline(int index, long deadlineNanos, long minWaitNanos) {
        write(index, Math.max(0, deadlineNanos), minWaitNanos);
        absolute.set(index);
        return this;
    }

    private WaitRegion write(int index, long timeoutNanos, long minWaitNanos) {
        long at = at(index);
        waits.asSlice(at, WAIT_SIZE).fill((byte) 0);
        if (timeoutNanos >= 0) {
            waits.set(JAVA_LONG, at + WAIT_TS_SEC, timeoutNanos / 1_000_000_000L);
            waits.set(JAVA_LONG, at + WAIT_TS_NSEC, timeoutNanos % 1_000_000_000L);
            waits.set(JAVA_INT, at + WAIT_FLAGS, REG_WAIT_TS);
        }
        waits.set(JAVA_INT, at + WAIT_MIN_WAIT_USEC, (int) Math.min(Integer.MAX_VALUE, (minWaitNanos + 999) / 1000));
        return this;
    }

    /**
     * Submits, then waits for {@code waitNr} CQEs as entry {@code index} says, in one enter. Returns the number
     * submitted, also when the wait timed out: check {@link CompletionQueue#ready()}. Signals are retried with
     * the same entry, so a relative timeout restarts after one; a deadline does not.
     */
    public int submitAndWait(int index, int waitNr) throws ErrnoException {
        long arg = at(index);
        SubmissionQueue sq = ring.sq();
        int submit = sq.flush();
        int submitted = 0;
        boolean sqpoll = (ring.setupFlags() & SetupFlags.SQPOLL) != 0;
        while (true) {
            int flags = EnterFlags.GETEVENTS | EnterFlags.EXT_ARG | EnterFlags.EXT_ARG_REG
                    | (absolute.get(index) ? EnterFlags.ABS_TIMER : 0);
            if (sqpoll && submit > 0 && sq.needsWakeup()) {
                flags |= EnterFlags.SQ_WAKEUP;
            }
            int ret = ring.enter(submit, waitNr, flags, arg, WAIT_SIZE);
            if (ret >= 0) {
                return submitted + ret;
            }
            if (ret == -Errno.ETIME) {
                return submitted + submit - sq.flush();
            }
            if (ret != -Errno.EINTR) {
                throw new ErrnoException("io_uring_enter(EXT_ARG_REG)", ret, ret == -Errno.EINVAL
                        ? "registered waits need kernel 6.13 and a wait region registered before enableRings()" : null);
            }
            int left = sq.flush();
            submitted += submit - left;
            submit = left;
        }
    }
}
