package io.uring4j.portable;

import io.uring4j.ring.Engine;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.sys.LibC;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The condition-variable wait ({@code -During4j.portable.wait=condvar}) against posters on other threads. */
class CondvarWaiterTest {
    /**
     * On a ring whose ready requests wait for the issuer (COOP_TASKRUN + TASKRUN_FLAG), task work queued — and
     * its wake-up sent — while the waiter runs the task work it took must still be run by that wait. The
     * waiter is held inside its task work (a read whose linked MSG_RING waits for the other ring's lock, which
     * we hold) while a second read is found ready and the wake-up goes out.
     */
    @Test
    void taskWorkQueuedWhileTheWaiterRunsTaskWorkIsRunByThatWait() throws Exception {
        int[] p1 = new int[2];
        int[] p2 = new int[2];
        assertThat(LibC.pipe2(p1, LibC.O_CLOEXEC)).isZero();
        assertThat(LibC.pipe2(p2, LibC.O_CLOEXEC)).isZero();
        try (IoUring r = IoUring.builder().entries(8).flags(SetupFlags.COOP_TASKRUN | SetupFlags.TASKRUN_FLAG)
                .engine(Engine.portable()).build();
             IoUring other = IoUring.builder().entries(8).engine(Engine.portable()).build();
             Arena arena = Arena.ofShared()) {
            PortableRing ring = PortableEngine.instance().ring(r.fd());
            PortableRing target = PortableEngine.instance().ring(other.fd());
            MemorySegment buf = arena.allocate(2);
            r.sq().next().prepRead(p1[0], buf.asSlice(0, 1), -1).userData(1).link();
            r.sq().next().prepMsgRing(other.fd(), 0, 9, 0).userData(2);
            r.sq().next().prepRead(p2[0], buf.asSlice(1, 1), -1).userData(3);
            assertThat(r.submit()).isEqualTo(3);
            CondvarWaiter waiter = new CondvarWaiter(ring);
            CompletableFuture<Integer> waited = new CompletableFuture<>();
            MemorySegment one = arena.allocate(1);
            target.lock.lock();
            try {
                assertThat(LibC.write(p1[1], one)).isEqualTo(1);
                awaitTaskWork(ring);
                Thread t = Thread.ofPlatform().daemon().start(() -> waited.complete(waiter.await(3, -1)));
                // Running the first read's chain, the waiter waits for the other ring's lock in MSG_RING.
                while (t.getState() != Thread.State.WAITING || Arrays.stream(t.getStackTrace())
                        .noneMatch(f -> f.getMethodName().equals("postMessage"))) {
                    assertThat(t.isAlive()).as("the wait returned early: %s", waited).isTrue();
                    Thread.sleep(1);
                }
                assertThat(LibC.write(p2[1], one)).isEqualTo(1);
                awaitTaskWork(ring);
                waiter.wake(true);          // as the poller's hand-off wakes the ring's waiter
            } finally {
                target.lock.unlock();
            }
            assertThat(waited.get(10, TimeUnit.SECONDS)).isZero();
            assertThat(r.cq().ready()).isEqualTo(3);
        } finally {
            for (int fd : new int[] {p1[0], p1[1], p2[0], p2[1]}) {
                LibC.close(fd);
            }
        }
    }

    /** Waits until the poller has queued a ready request as task work. */
    private static void awaitTaskWork(PortableRing ring) throws InterruptedException {
        while (true) {
            ring.lock.lock();
            try {
                if (!ring.lock.taskWork.isEmpty()) {
                    return;
                }
            } finally {
                ring.lock.unlock();
            }
            Thread.sleep(1);
        }
    }
}
