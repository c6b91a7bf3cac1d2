package io.uring4j.portable;

import io.uring4j.ring.abi.CqRingFlags;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.CqeLayout;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The CQ's producer side: posts CQEs, keeps those that do not fit in an ordered overflow list (FEAT_NODROP,
 * IORING_SQ_CQ_OVERFLOW set while backlogged), and wakes the waiter ({@link Waiter}) and the registered eventfd.
 * A CQE is written before its tail is published with release; the CQ head is read with acquire (the
 * application is done with the slot). The tail and the overflow list are {@link RingLock} state.
 */
final class CqProducer {
    private static final VarHandle INT = JAVA_INT.varHandle();
    /** IORING_NOTIF_USAGE_ZC_COPIED: a zero-copy send's notification says the data was copied. */
    private static final int NOTIF_USAGE_ZC_COPIED = 1 << 31;

    private final PortableRing ring;
    private final RingLock lock;
    private final MemorySegment mem;
    private final int cqEntries;
    private final int cqMask;
    /** log2 of the CQE size: 4, or 5 with CQE32 (whose second half we always leave zero). */
    private final int cqeShift;
    private final Waiter waiter;

    CqProducer(PortableRing ring, Waiter waiter) {
        this.ring = ring;
        this.lock = ring.lock;
        this.mem = ring.mem;
        this.cqEntries = ring.cqEntries;
        this.cqMask = ring.cqEntries - 1;
        this.cqeShift = (ring.setupFlags & SetupFlags.CQE32) != 0 ? 5 : 4;
        this.waiter = waiter;
    }

    /** CQEs the application has not consumed yet. */
    int ready() {
        return (int) INT.getAcquire(mem, (long) RingLayout.CQ_TAIL) - (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD);
    }

    /** The CQ head the application has reached. */
    int head() {
        return (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD);
    }

    /** The CQ tail published so far. */
    int tail() {
        return (int) INT.getAcquire(mem, (long) RingLayout.CQ_TAIL);
    }

    /**
     * Posts a CQE, or appends it to the overflow list when the CQ is full or already backlogged (order is kept:
     * nothing overtakes an overflowed CQE). Under the lock; {@code counts} is false for timeout CQEs, which
     * counted timeouts do not count.
     */
    void post(long userData, int res, int flags, boolean counts) {
        LongIntIntQueue overflow = lock.overflow;
        if (overflow.count == 0 && !tryPost(userData, res, flags)) {
            overflow.add(userData, res, flags);
            INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SqRingFlags.CQ_OVERFLOW);
        } else if (overflow.count > 0) {
            overflow.add(userData, res, flags);
        }
        if (counts) {
            ring.timer.countCompletion();
        }
    }

    /**
     * A request's final CQE. A zero-copy send that got past prep is followed by its notification (F_NOTIF), as
     * in the kernel, failed or cancelled too; its result announces it (F_MORE) only if the send ran — one
     * cancelled before it ran ({@code ran} false: a failed link) has none, as the kernel's. We always send by
     * copying, so the buffer is free at once; with ZC_REPORT_USAGE the notification says so. Under the lock.
     */
    void postFinal(Request r, int res, int flags, boolean counts, boolean ran) {
        if (!OpDefs.of(r.opcode).notifies()) {
            post(r.userData, res, flags, counts);
            return;
        }
        post(r.userData, res, ran ? flags | CqeFlags.F_MORE : 0, counts);
        boolean report = (r.ioprio & OpFlags.SendRecv.ZC_REPORT_USAGE) != 0;
        post(r.userData, report ? NOTIF_USAGE_ZC_COPIED : 0, CqeFlags.F_NOTIF, counts);
    }

    private boolean tryPost(long userData, int res, int flags) {
        int head = (int) INT.getAcquire(mem, (long) RingLayout.CQ_HEAD);
        int cqTail = lock.cqTail;
        if (cqTail - head >= cqEntries) {
            return false;
        }
        long at = RingLayout.CQES + ((long) (cqTail & cqMask) << cqeShift);
        mem.set(JAVA_LONG, at + CqeLayout.USER_DATA, userData);
        mem.set(JAVA_INT, at + CqeLayout.RES, res);
        mem.set(JAVA_INT, at + CqeLayout.FLAGS, flags);
        if (cqeShift == 5) {
            mem.set(JAVA_LONG, at + CqeLayout.BIG_CQE, 0L);        // big_cqe[]: the slot may hold an older CQE's
            mem.set(JAVA_LONG, at + CqeLayout.BIG_CQE + 8, 0L);
        }
        lock.cqTail = ++cqTail;
        INT.setRelease(mem, (long) RingLayout.CQ_TAIL, cqTail);
        return true;
    }

    /** Moves overflowed CQEs into the CQ, in order, as far as there is room; clears the flag once empty. */
    void flushOverflow() {
        lock.lock();
        try {
            LongIntIntQueue overflow = lock.overflow;
            while (overflow.count > 0 && tryPost(overflow.peekLong(), overflow.peekFirst(), overflow.peekSecond())) {
                overflow.removeFirst();
            }
            if (overflow.count == 0) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SqRingFlags.CQ_OVERFLOW);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Flushes the overflow list if anything is in it (the count read as a hint, outside the lock). */
    void flushIfOverflowed() {
        if (lock.overflow.count > 0) {
            flushOverflow();
        }
    }

    /** A multishot request's intermediate CQE: {@code res} with F_MORE (and {@code flags}); it goes on. */
    void postMore(Request r, int res, int flags) {
        lock.lock();
        try {
            post(r.userData, res, flags | CqeFlags.F_MORE, true);
        } finally {
            lock.unlock();
        }
        wake(true);
    }

    /** A MSG_RING data message from another ring (or this one): its CQE, posted and woken like any other. */
    int postMessage(long userData, int res, int flags) {
        lock.lock();
        try {
            if (ring.closed) {
                return -Errno.EBADFD;
            }
            post(userData, res, flags, true);
        } finally {
            lock.unlock();
        }
        wake(true);
        return 0;
    }

    /**
     * After posting: wakes the waiter if the CQ now holds what it waits for (or CQEs wait in the overflow list
     * for it to flush) — the kernel's wake-up check of nr_events, so a chain of ten CQEs costs one wake-up, not
     * ten. Then signals the eventfd ({@code async}: the completion came off the submitting thread).
     */
    void wake(boolean async) {
        wake(async, false, true);
    }

    /**
     * {@link #wake(boolean)}; {@code always} wakes the waiter short of its target (a TIMEOUT, task work), and
     * {@code notify} false leaves the eventfd alone.
     */
    void wake(boolean async, boolean always, boolean notify) {
        waiter.wake(always);
        CqEventfd eventfd = ring.eventfd;
        if (notify && eventfd.fd >= 0 && (!eventfd.asyncOnly || async)
                && ((int) INT.getOpaque(mem, (long) RingLayout.CQ_FLAGS) & CqRingFlags.EVENTFD_DISABLED) == 0) {
            eventfd.signal();
        }
    }
}
