package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * The kernel's wait: the one thread waiting in enter publishes itself and the CQ tail it needs, and posters wake
 * it once that tail is reached (or overflow or a TIMEOUT needs it) — no wait queue, one wake-up per
 * min_complete rather than per CQE. The waiter parks, or, on a DEFER_TASKRUN ring, polls: waits in epoll_wait
 * and runs what becomes ready right there; posters then wake it through the poller's eventfd.
 */
final class SingleWaiter implements Waiter {
    private final PortableRing ring;
    private volatile Thread waiter;
    /** The waiter sleeps in the poller's epoll_wait: wake it with {@link Poller#wakeUp}, not unpark. */
    private volatile boolean waiterPolls;
    /** The CQ tail the waiter needs (its head + min_complete): posters below it do not wake it. */
    private volatile int waitTarget;

    SingleWaiter(PortableRing ring) {
        this.ring = ring;
    }

    @Override
    public int await(int min, long timeoutNanos) {
        Poller poller = ring.poller;
        CqProducer cq = ring.cq;
        boolean polls = poller.issuerPolls();
        if (polls) {
            int ret = poller.open();    // before we publish ourselves: a poster who sees us finds its eventfd
            if (ret < 0) {
                return ret;
            }
        }
        long deadline = System.nanoTime() + timeoutNanos;
        int timeouts = ring.lock.timeoutsFired;
        waitTarget = cq.head() + min;
        waiterPolls = polls;
        waiter = Thread.currentThread();    // volatile: ordered before the re-check below
        try {
            while (true) {
                if (!polls) {
                    ring.taskWork.run();    // what a poller thread found ready (polling runs it in poll)
                }
                cq.flushIfOverflowed();
                if (cq.ready() >= min || ring.lock.timeoutsFired != timeouts) {
                    return 0;
                }
                long left = -1;
                if (timeoutNanos >= 0) {
                    left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return -Errno.ETIME;
                    }
                }
                if (polls) {
                    long millis = left < 0 ? -1 : Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000);
                    int ret = poller.poll((int) millis);
                    if (ret < 0) {
                        return ret;
                    }
                } else if (left < 0) {
                    LockSupport.park(ring);
                } else {
                    LockSupport.parkNanos(ring, left);
                }
                if (Thread.interrupted()) {
                    return -Errno.EINTR;
                }
            }
        } finally {
            waiter = null;
            waiterPolls = false;
        }
    }

    /**
     * The kernel's wake-up check of nr_events. The full fence orders the poster's tail store before reading
     * {@link #waiter}: the other half of the waiter's store-then-check.
     */
    @Override
    public void wake(boolean always) {
        VarHandle.fullFence();
        Thread w = waiter;
        if (w != null && (always || ring.lock.overflow.count > 0 || ring.cq.tail() - waitTarget >= 0)) {
            if (!waiterPolls) {
                LockSupport.unpark(w);
            } else if (w != Thread.currentThread()) {
                ring.poller.wakeUp();        // the issuer running ready requests in its own wait needs no wake-up
            }
        }
    }

    @Override
    public boolean mayPoll() {
        return true;
    }
}
