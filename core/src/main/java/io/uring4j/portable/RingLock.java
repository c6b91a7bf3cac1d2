package io.uring4j.portable;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The ring's lock and the state it guards: whatever is reached through this object is read and written with
 * the lock held (except where a field says it may be read as a hint). The CQ producer side and its overflow
 * list ({@link CqProducer}), in-flight and drain accounting ({@link Links}), the task-work list
 * ({@link TaskWork}) and the request pool live here. The timer's list ({@link Timer}), the poller's tables
 * ({@link Poller}), changes to the file table ({@link FileTable}) and register calls take this lock as well.
 *
 * <p>Enter submits on one thread at a time (the ring API is single-threaded), so the SQ consumer side
 * ({@link SqConsumer}) needs no lock. The wait ({@link Waiter}) takes none either: its waiters publish
 * themselves, and several threads may wait at once on a ring without SINGLE_ISSUER, as in the kernel.
 */
final class RingLock {
    private final ReentrantLock mutex = new ReentrantLock();

    /** The ring's requests; cancel scans them. */
    final RequestPool pool;
    /** Our CQ tail; published to the ring with release. */
    int cqTail;
    /** CQEs that did not fit in the CQ, oldest first: (user_data, res, flags). Its count is read as a hint. */
    final LongIntIntQueue overflow = new LongIntIntQueue();
    /** Requests issued (not deferred) and not completed. */
    int inflight;
    /** An IO_DRAIN chain is running: everything submitted after it waits for it. */
    boolean drainActive;
    /** Chains held back by IO_DRAIN, in submission order. */
    final RequestFifo deferred = new RequestFifo();
    /** Ready requests waiting for the issuer's next enter (COOP_TASKRUN, DEFER_TASKRUN), oldest first. */
    final RequestFifo taskWork = new RequestFifo();
    /**
     * TIMEOUT requests completed by expiry or count, the kernel's cq_timeouts: each one ends a wait, even one
     * for more CQEs than have come. Bumped under the lock right after the timeout's CQE, so a waiter that reads
     * it (without the lock) sees the CQE too.
     */
    volatile int timeoutsFired;

    RingLock(int requests) {
        this.pool = new RequestPool(requests);
    }

    void lock() {
        mutex.lock();
    }

    void unlock() {
        mutex.unlock();
    }

    Condition newCondition() {
        return mutex.newCondition();
    }
}
