package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.EnterFlags;
import io.uring4j.ring.abi.SetupFlags;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** The issuer's wait on a DEFER_TASKRUN ring, in the poller's epoll_wait, against posters on other threads. */
class SingleWaiterTest {
    /**
     * A ring that never armed anything has no epoll set before its first wait. A completion posted (and its
     * wake-up sent) after the waiter looked at the CQ but before it created the set must still end the wait:
     * the waiter is held on the ring lock, which it takes to create the set, while a CQE is posted and woken.
     */
    @Test
    void aCompletionBeforeTheFirstWaitCreatesTheEpollSetEndsThatWait() throws Exception {
        try (IoUring r = IoUring.builder().entries(8).flags(SetupFlags.SINGLE_ISSUER | SetupFlags.DEFER_TASKRUN)
                .engine(Engine.portable()).build()) {
            PortableRing ring = PortableEngine.instance().ring(r.fd());
            SingleWaiter waiter = new SingleWaiter(ring);
            CompletableFuture<Integer> waited = new CompletableFuture<>();
            ring.lock.lock();
            try {
                Thread t = Thread.ofPlatform().daemon().start(() -> waited.complete(waiter.await(1, -1)));
                // A polling wait parks only on a lock: parked on one, it waits for the ring lock we hold.
                while (t.getState() != Thread.State.WAITING
                        || !(LockSupport.getBlocker(t) instanceof AbstractQueuedSynchronizer)) {
                    assertThat(t.isAlive()).as("the wait returned early: %s", waited).isTrue();
                    Thread.sleep(1);
                }
                ring.cq.post(7, 0, 0, true);
                waiter.wake(false);
            } finally {
                ring.lock.unlock();
            }
            assertThat(waited.get(10, TimeUnit.SECONDS)).isZero();
        }
    }

    /**
     * Without SINGLE_ISSUER any thread may enter, and the kernel lets two wait at once, each until the CQ holds
     * what it asked for. Both wait here for one CQE (each parked, seen by its blocker) before one is posted: both
     * must return, not just the one that published itself last.
     */
    @Test
    void twoThreadsWaitingAtOnceAreBothWoken() throws Exception {
        try (IoUring r = IoUring.builder().entries(8).engine(Engine.portable()).build()) {
            PortableRing ring = PortableEngine.instance().ring(r.fd());
            CompletableFuture<Integer> first = new CompletableFuture<>();
            CompletableFuture<Integer> second = new CompletableFuture<>();
            Thread a = Thread.ofPlatform().daemon().start(
                    () -> first.complete(ring.enter(0, 1, EnterFlags.GETEVENTS, 0, 0)));
            awaitParked(a, ring, first);
            Thread b = Thread.ofPlatform().daemon().start(
                    () -> second.complete(ring.enter(0, 1, EnterFlags.GETEVENTS, 0, 0)));
            awaitParked(b, ring, second);
            r.sq().next().prepNop().userData(7);
            assertThat(r.submit()).isEqualTo(1);
            assertThat(second.get(10, TimeUnit.SECONDS)).as("the second waiter").isZero();
            assertThat(first.get(10, TimeUnit.SECONDS)).as("the first waiter").isZero();
        }
    }

    /** Waits until {@code t} is parked in its wait for the CQ of {@code ring}. */
    private static void awaitParked(Thread t, PortableRing ring, CompletableFuture<Integer> waited)
            throws InterruptedException {
        while (t.getState() != Thread.State.WAITING || LockSupport.getBlocker(t) != ring) {
            assertThat(t.isAlive()).as("the wait returned early: %s", waited).isTrue();
            Thread.sleep(1);
        }
    }
}
