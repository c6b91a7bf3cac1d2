package io.uring4j.portable;

import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The kernel's task work: requests the poller found ready run again — on the poller's thread, or, with
 * COOP_TASKRUN + TASKRUN_FLAG or DEFER_TASKRUN, in the issuer's next enter (the kernel runs task work on the
 * next transition into the kernel), so that nothing completes between two enters that the application did not
 * see coming. IORING_SQ_TASKRUN tells the application to enter. (Plain COOP_TASKRUN is not deferred: the kernel
 * would run the work at the next interrupt anyway, and an application that only peeks would wait forever here.)
 * The list is {@link RingLock} state.
 */
final class TaskWork {
    private static final VarHandle INT = JAVA_INT.varHandle();

    private final PortableRing ring;
    private final RingLock lock;
    private final MemorySegment mem;
    /** COOP_TASKRUN with TASKRUN_FLAG, or DEFER_TASKRUN: ready requests wait for the issuer's next enter. */
    private final boolean resumeInEnter;
    /** TASKRUN_FLAG: IORING_SQ_TASKRUN is kept up to date. */
    private final boolean taskrunFlag;

    TaskWork(PortableRing ring) {
        this.ring = ring;
        this.lock = ring.lock;
        this.mem = ring.mem;
        this.taskrunFlag = (ring.setupFlags & SetupFlags.TASKRUN_FLAG) != 0;
        this.resumeInEnter = taskrunFlag || (ring.setupFlags & SetupFlags.DEFER_TASKRUN) != 0;
    }

    /**
     * The poller found the requests of {@code ready} (linked through {@link Request#nextQueued}) ready: they run
     * again now, or, found by the poller's thread with COOP_TASKRUN + TASKRUN_FLAG or DEFER_TASKRUN, in the
     * issuer's next enter — raising IORING_SQ_TASKRUN and waking a waiter, as the kernel does when it queues
     * task work.
     */
    void readied(Request ready) {
        if (!resumeInEnter || ring.poller.issuerPolls()) {       // no deferral needed: we are the issuer, in enter
            while (ready != null) {
                Request r = ready;
                ready = r.nextQueued;
                r.nextQueued = null;
                resume(r);
            }
            return;
        }
        lock.lock();
        try {
            Request tail = ready;
            tail.state = Request.READY;
            while (tail.nextQueued != null) {
                tail = tail.nextQueued;
                tail.state = Request.READY;
            }
            lock.taskWork.addChain(ready, tail);
            INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SqRingFlags.TASKRUN);
        } finally {
            lock.unlock();
        }
        // "Work pending" goes to the registered eventfd too — unless the work is a wait on that very eventfd,
        // woken by our own signal: the kernel recognises that wake-up as its own (EPOLL_URING_WAKE).
        ring.cq.wake(true, true, !onlyWaitsOnEventfd(ready));
    }

    private boolean onlyWaitsOnEventfd(Request ready) {
        for (Request r = ready; r != null; r = r.nextQueued) {
            if (r.pollFd != ring.eventfd.source) {
                return false;
            }
        }
        return true;
    }

    /** Takes a READY request off the task-work list (cancel, link timeout); it is RUNNING then. Under the lock. */
    boolean take(Request r) {
        if (r.state != Request.READY) {
            return false;
        }
        lock.taskWork.unlink(r);         // a READY request is always in the list
        if (lock.taskWork.isEmpty()) {
            INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SqRingFlags.TASKRUN);
        }
        r.state = Request.RUNNING;
        return true;
    }

    /** In enter, on the issuer: runs the ready requests the poller queued (COOP_TASKRUN + TASKRUN_FLAG). */
    void run() {
        if (!resumeInEnter) {
            return;
        }
        Request ready;
        lock.lock();
        try {
            ready = lock.taskWork.takeAll();
            for (Request q = ready; q != null; q = q.nextQueued) {
                q.state = Request.RUNNING;          // out of the list: no longer for cancel to take
            }
            if (ready != null) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SqRingFlags.TASKRUN);
            }
        } finally {
            lock.unlock();
        }
        while (ready != null) {
            Request r = ready;
            ready = r.nextQueued;
            r.nextQueued = null;
            resume(r);
        }
    }

    /**
     * {@code r}'s file is ready: it runs again here, on the poller thread or the issuer — a read tried without
     * blocking first, anything that may block on the io-wq — and its chain goes on from there.
     */
    private void resume(Request r) {
        try {
            ring.links.issue(r, false);
        } catch (IllegalStateException e) {
            if (!ring.closed) {
                throw e;
            }
        }
    }

    /**
     * Whether anything may be waiting to be found by polling changed: requests armed on the poller, or direct
     * I/O on AIO. With TASKRUN_FLAG on a ring whose issuer polls, IORING_SQ_TASKRUN is up while there is —
     * readiness and AIO completions are only found by entering, so "work may be pending" is the truthful answer
     * to an application that peeks. Under the lock.
     */
    void pendingChanged() {
        if (taskrunFlag && ring.poller.issuerPolls()) {
            if (ring.poller.hasArmed() || ring.directIo.busy()) {
                INT.getAndBitwiseOrRelease(mem, (long) RingLayout.SQ_FLAGS, SqRingFlags.TASKRUN);
            } else if (lock.taskWork.isEmpty()) {
                INT.getAndBitwiseAndRelease(mem, (long) RingLayout.SQ_FLAGS, ~SqRingFlags.TASKRUN);
            }
        }
    }

    /** {@link #pendingChanged} for direct I/O, which keeps its own lock: takes the ring's, if it matters. */
    void directIoChanged() {
        if (taskrunFlag && ring.poller.issuerPolls()) {
            lock.lock();
            try {
                pendingChanged();
            } finally {
                lock.unlock();
            }
        }
    }
}
