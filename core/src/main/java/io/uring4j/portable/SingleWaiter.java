package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The kernel's wait: the one thread waiting in enter publishes itself and the CQ tail it needs, and posters wake
 * it once that tail is reached (or overflow or a TIMEOUT needs it) — no wait queue, one wake-up per
 * min_complete rather than per CQE. The waiter parks, or, on a DEFER_TASKRUN ring, polls: waits in epoll_wait
 * and runs what becomes ready right there; posters then wake it through the poller's eventfd.
 *
 * <p>A ring without SINGLE_ISSUER may have more threads waiting at once, as the kernel allows: the first holds
 * {@link #waiter}; the others wait {@link #behind} it, and every post wakes them all to look again at what they
 * need — a wake-up per CQE, paid only while two threads wait. (They park: a polling ring has one issuer.)
 */
final class SingleWaiter implements Waiter {
    private static final VarHandle WAITER;

    static {
        try {
            WAITER = MethodHandles.lookup().findVarHandle(SingleWaiter.class, "waiter", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PortableRing ring;
    private volatile Thread waiter;
    /** The waiter sleeps in the poller's epoll_wait: wake it with {@link Poller#wakeUp}, not unpark. */
    private volatile boolean waiterPolls;
    /** The CQ tail the waiter needs (its head + min_complete): posters below it do not wake it. */
    private volatile int waitTarget;
    /** Threads waiting while another was {@link #waiter}: posters unpark each of them. */
    private final Set<Thread> behind = ConcurrentHashMap.newKeySet();
    /** How many are {@link #behind}: posters read it, and look at the set only when it is not 0. */
    private final AtomicInteger behindCount = new AtomicInteger();

    SingleWaiter(PortableRing ring) {
        this.ring = ring;
    }

    @Override
    public int await(int min, long timeoutNanos) {
        Thread me = Thread.currentThread();
        if (!WAITER.compareAndSet(this, null, me)) {
            return awaitBehind(me, min, timeoutNanos);
        }
        // We are the waiter: a poster may see us before our target and mode below are published. It then wakes
        // us for nothing, or not at all — having read them before we stored them, so its CQE came before our
        // look at the CQ that follows.
        try {
            Poller poller = ring.poller;
            boolean polls = poller.issuerPolls();
            if (polls) {
                int ret = poller.open();    // before we publish our mode: a poster who sees it finds its eventfd
                if (ret < 0) {
                    return ret;
                }
            }
            waitTarget = ring.cq.head() + min;
            waiterPolls = polls;            // volatile: ordered before the look at the CQ below
            return waitLoop(min, timeoutNanos, polls);
        } finally {
            waiterPolls = false;            // before we let go: the next waiter publishes its own mode
            waiter = null;
        }
    }

    /** Another thread is the waiter: we wait behind it, woken by every post, until the CQ holds {@code min}. */
    private int awaitBehind(Thread me, int min, long timeoutNanos) {
        behind.add(me);
        behindCount.incrementAndGet();      // a full fence: ordered before the look at the CQ, as a post's tail
        try {                               // store is before its read of the count
            return waitLoop(min, timeoutNanos, false);
        } finally {
            behindCount.decrementAndGet();
            behind.remove(me);
        }
    }

    /** The wait, once published: looks at the CQ, then parks or polls until it holds {@code min} CQEs. */
    private int waitLoop(int min, long timeoutNanos, boolean polls) {
        CqProducer cq = ring.cq;
        long deadline = System.nanoTime() + timeoutNanos;
        int timeouts = ring.lock.timeoutsFired;
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
                int ret = ring.poller.poll((int) millis);
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
        if (behindCount.get() != 0) {
            for (Thread t : behind) {
                LockSupport.unpark(t);
            }
        }
    }

    @Override
    public boolean mayPoll() {
        return true;
    }
}
