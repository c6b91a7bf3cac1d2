package io.uring4j.portable;

import io.uring4j.sys.Errno;

import java.util.concurrent.locks.Condition;

/**
 * A wait queue: waiters sleep on a condition variable of the ring lock that every post signals. Not the ring's
 * design ({@link SingleWaiter} is): kept to measure the two against each other ({@link Waiter#chosen}). It
 * cannot poll, so with it the poller has a thread of its own (the design it stands for).
 */
final class CondvarWaiter implements Waiter {
    private final PortableRing ring;
    private final Condition cqChanged;

    CondvarWaiter(PortableRing ring) {
        this.ring = ring;
        this.cqChanged = ring.lock.newCondition();
    }

    @Override
    public int await(int min, long timeoutNanos) {
        RingLock lock = ring.lock;
        long deadline = System.nanoTime() + timeoutNanos;
        int timeouts = lock.timeoutsFired;
        while (true) {
            ring.taskWork.run();
            ring.cq.flushIfOverflowed();
            lock.lock();
            try {
                if (ring.cq.ready() >= min || lock.timeoutsFired != timeouts) {
                    return 0;
                }
                if (!lock.taskWork.isEmpty()) {
                    continue;       // queued since we ran the task work: its wake-up came before we waited
                }
                if (timeoutNanos >= 0) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return -Errno.ETIME;
                    }
                    cqChanged.awaitNanos(left);
                } else {
                    cqChanged.await();
                }
            } catch (InterruptedException e) {
                return -Errno.EINTR;
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public void wake(boolean always) {
        ring.lock.lock();
        try {
            cqChanged.signalAll();
        } finally {
            ring.lock.unlock();
        }
    }

    @Override
    public boolean mayPoll() {
        return false;
    }
}
