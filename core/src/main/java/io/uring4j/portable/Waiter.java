package io.uring4j.portable;

/**
 * How the thread in enter waits for CQEs, and how posters wake it: chosen when the ring is built. The ring uses
 * {@link SingleWaiter}, the kernel's design; {@code -During4j.portable.wait=condvar} picks {@link CondvarWaiter},
 * the wait queue it replaced, kept to measure the two against each other ({@code ./uring4j bench
 * --compare-portable}).
 */
interface Waiter {
    /**
     * Waits until {@code min} CQEs are ready (fewer are now), a TIMEOUT fires, or {@code timeoutNanos} (-1: no
     * limit) pass: 0, -ETIME or -EINTR (a Java interrupt stands in for a signal), or a poll's -errno.
     */
    int await(int min, long timeoutNanos);

    /** After a post: wakes the waiter if the CQ now holds what it waits for, or {@code always}. */
    void wake(boolean always);

    /**
     * Whether the waiter may wait in the poller's epoll_wait and run what becomes ready (a DEFER_TASKRUN ring's
     * issuer): if not, the ring's poller has a thread of its own.
     */
    boolean mayPoll();

    /** The waiter the {@code uring4j.portable.wait} property chooses for {@code ring}. */
    static Waiter chosen(PortableRing ring) {
        return "condvar".equals(System.getProperty("uring4j.portable.wait")) ? new CondvarWaiter(ring)
                : new SingleWaiter(ring);
    }
}
