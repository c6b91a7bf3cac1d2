package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

/**
 * Runs requests and what is linked to them: a chain's successor runs where its predecessor completed, on the
 * same thread ({@code nxt} propagation); only blocking work found on a non-worker thread is queued. A failure or
 * a short read or write cancels the rest with -ECANCELED unless the request was IO_HARDLINK; a prep failure
 * cancels the whole chain. LINK_TIMEOUT is armed when its request starts to run. An IO_DRAIN chain waits until
 * nothing is in flight, and everything submitted after it waits for it. In-flight and drain accounting are
 * {@link RingLock} state.
 */
final class Links {
    private final PortableRing ring;
    private final RingLock lock;
    private final CqProducer cq;
    private final LinkPropagation propagation;

    Links(PortableRing ring, LinkPropagation propagation) {
        this.ring = ring;
        this.lock = ring.lock;
        this.cq = ring.cq;
        this.propagation = propagation;
    }

    /**
     * Queues a complete chain from the SQ, or fails it whole when a member was refused at prep: that member
     * completes with its error and every other one, earlier members and hard links included, with -ECANCELED.
     */
    void submit(Request head, Request failed, int error) {
        if (failed != null) {
            lock.lock();
            try {
                for (Request r = head; r != null; ) {
                    Request next = r.link;
                    if (r == failed) {
                        cq.post(r.userData, error, 0, true);       // refused at prep: a zero-copy send has no notification
                    } else {
                        cq.postFinal(r, -Errno.ECANCELED, 0, true, false);
                    }
                    lock.pool.release(r);
                    r = next;
                }
            } finally {
                lock.unlock();
            }
            cq.wake(false);
            return;
        }
        boolean drain = false;
        int length = 0;
        for (Request r = head; r != null; r = r.link) {
            drain |= (r.sqeFlags & SqeFlags.IO_DRAIN) != 0;
            length++;
        }
        lock.lock();
        try {
            if (!lock.deferred.isEmpty() || lock.drainActive || (drain && lock.inflight > 0)) {
                head.state = Request.DEFERRED;
                lock.deferred.add(head);
                return;
            }
            lock.inflight += length;
            lock.drainActive |= drain;
        } finally {
            lock.unlock();
        }
        issue(head, false);
    }

    /**
     * Runs {@code r} and then its successors right here, as long as each can run on this thread: blocking work
     * found on a non-worker thread is handed to the io-wq, and a request that completes later (a timer) ends
     * the run; its completion continues the chain.
     */
    void issue(Request r, boolean onWorker) {
        while (r != null) {
            armLinkTimeout(r);
            OpDefs.OpDef def = OpDefs.of(r.opcode);
            boolean async = (r.sqeFlags & SqeFlags.ASYNC) != 0;
            if (!onWorker && (def.mayBlock() || async)) {
                r.state = Request.RUNNING;
                int res = r.cancelRequested || async || !def.nowaitFirst() ? PortableRing.NEEDS_WORKER
                        : ring.rw.tryInline(r);
                if (res == PortableRing.NEEDS_WORKER) {
                    ring.wq.enqueue(r);
                    return;
                }
                if (res == PortableRing.PENDING) {
                    return;
                }
                r = finish(r, res, false);
            } else {
                r = run(r, onWorker);
            }
        }
    }

    /** Executes {@code r}; returns the successor to run in place, or null (it waits, or went to the io-wq). */
    private Request run(Request r, boolean onWorker) {
        r.state = Request.RUNNING;
        int res = r.cancelRequested ? -Errno.ECANCELED : OpDefs.issue(ring, r, onWorker);
        if (res == PortableRing.PENDING) {
            return null;
        }
        if (res == PortableRing.NEEDS_WORKER) {
            ring.wq.enqueue(r);
            return null;
        }
        return finish(r, res, onWorker);
    }

    /**
     * A worker picked {@code r}: runs it and its chain as {@link LinkPropagation} says. After close, ring memory
     * is gone: stop.
     */
    void runOnWorker(Request r) {
        try {
            propagation.runOnWorker(this, r);
        } catch (IllegalStateException e) {
            if (!ring.closed) {
                throw e;
            }
        }
    }

    /** {@link LinkPropagation#REQUEUE}: runs {@code r} on this worker; its successor goes back to the io-wq. */
    void runOneOnWorker(Request r) {
        armLinkTimeout(r);
        Request next = run(r, true);
        if (next != null) {
            armLinkTimeout(next);
            ring.wq.enqueue(next);
        }
    }

    /** Completes {@code r} with {@code res} ({@link #finish}) and runs its chain on from here. */
    void complete(Request r, int res, boolean async) {
        issue(finish(r, res, async), false);
    }

    /**
     * Starts {@code r}'s LINK_TIMEOUT, as it starts to run. The kernel starts it once the request's first issue
     * has returned: work done in that one issue ({@link OpDefs.OpDef#doneInFirstIssue}) is never bounded by it,
     * so its timeout is not started at all and ends -ECANCELED with the request.
     */
    private void armLinkTimeout(Request r) {
        Request lt = r.linkTimeout;
        if (lt == null || r.opcode == Opcode.LINK_TIMEOUT || OpDefs.of(r.opcode).doneInFirstIssue()) {
            return;
        }
        lock.lock();
        try {
            if (lt.state == Request.LINKED) {
                ring.timer.arm(lt, System.nanoTime() + PortableRing.timespecNanos(lt.addr));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes {@code r} with {@code res}: posts its CQE (unless skipped), retires its disarmed link timeout,
     * fails the rest of the chain on error (not after a hard link), starts drained requests once nothing is in
     * flight, and returns the successor to run in place, or null.
     */
    Request finish(Request r, int res, boolean async) {
        boolean failed = res < 0 || (OpDefs.of(r.opcode).failsShort() && res < r.wanted);
        boolean hardlink = (r.sqeFlags & SqeFlags.IO_HARDLINK) != 0;
        Request next;
        Request drained;
        Request canceller;
        lock.lock();
        try {
            canceller = r.canceller;
            boolean skips = (r.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) != 0;
            if (!skips || failed) {
                cq.postFinal(r, res, r.cqeFlags, r.opcode != Opcode.TIMEOUT, true);
            }
            if (r.opcode == Opcode.TIMEOUT && res != -Errno.ECANCELED) {
                lock.timeoutsFired++;        // single writer: under the lock
            }
            next = r.link;
            Request lt = r.linkTimeout;
            if (lt != null && r.opcode != Opcode.LINK_TIMEOUT) {
                // Our guard is still in the chain right behind us: we beat it, so it completes -ECANCELED.
                if (lt.state == Request.ARMED) {
                    ring.timer.remove(lt);
                }
                if ((lt.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0) {
                    cq.post(lt.userData, -Errno.ECANCELED, 0, true);
                }
                next = lt.link;
                retire(lt);
            }
            retire(r);
            if (next != null && failed && !hardlink) {
                // The kernel's REQ_F_SKIP_LINK_CQES: a failure in a request that skips its CQE on success
                // silences the cancelled rest of the chain (its own error is still posted).
                cancelChain(next, (r.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0);
                next = null;
            }
            drained = releaseDeferred();
        } finally {
            lock.unlock();
        }
        cq.wake(async, r.opcode == Opcode.TIMEOUT, true);     // a timeout ends the wait even short of min_complete
        if (canceller != null) {
            issue(finish(canceller, res == -Errno.ECANCELED ? 0 : -Errno.EALREADY, async), false);
        }
        while (drained != null) {
            Request d = drained;
            drained = d.nextQueued;
            d.nextQueued = null;
            issue(d, false);
        }
        return next;
    }

    /**
     * A LINK_TIMEOUT expired before the request it guards: it completes with -ETIME and leaves the chain, and
     * the guarded request is cancelled if it has not started — returned (RUNNING) for the caller to finish with
     * -ECANCELED outside the lock. A request already running on a worker finishes with its own result: a
     * blocking system call cannot be interrupted. Under the lock.
     */
    Request linkTimeoutFired(Request lt) {
        Request target = lt.linkTimeout;
        target.link = lt.link;
        target.linkTimeout = null;
        if ((lt.sqeFlags & SqeFlags.CQE_SKIP_SUCCESS) == 0) {
            cq.post(lt.userData, -Errno.ETIME, 0, true);
        }
        retire(lt);
        boolean taken = false;
        if (target.state == Request.ARMED) {
            ring.timer.remove(target);
            taken = true;
        } else if (target.state == Request.QUEUED) {
            taken = ring.wq.remove(target);
        } else {
            taken = ring.poller.remove(target) || ring.taskWork.take(target);
        }
        if (taken) {
            target.state = Request.RUNNING;
            cq.wake(true);
            return target;
        }
        // Running, picked by a worker just now, or being issued: it stops before executing or when it would
        // wait for readiness; inside a system call it runs out.
        target.cancelRequested = true;
        cq.wake(true);
        return null;
    }

    /** Completes every request from {@code first} on with -ECANCELED (a failed link). Under the lock. */
    private void cancelChain(Request first, boolean post) {
        for (Request r = first; r != null; ) {
            Request next = r.link;
            if (r.state == Request.ARMED) {
                ring.timer.remove(r);
            }
            if (post) {
                cq.postFinal(r, -Errno.ECANCELED, 0, true, false);
            }
            retire(r);
            r = next;
        }
    }

    private void retire(Request r) {
        lock.inflight--;
        boolean held = r.fileHeld;
        int fd = r.fd;
        lock.pool.release(r);
        if (held) {
            ring.files.released(fd);
        }
    }

    /**
     * With nothing in flight, the drain barrier is passed: starts deferred chains in order, up to and including
     * the next IO_DRAIN one (which everything after it waits for). Under the lock; returns them linked through
     * {@link Request#nextQueued}.
     */
    private Request releaseDeferred() {
        RequestFifo deferred = lock.deferred;
        if (lock.inflight != 0 || deferred.isEmpty()) {
            if (lock.inflight == 0) {
                lock.drainActive = false;
            }
            return null;
        }
        lock.drainActive = false;
        RequestFifo out = new RequestFifo();
        while (!deferred.isEmpty()) {
            Request d = deferred.peek();
            boolean drain = false;
            int length = 0;
            for (Request q = d; q != null; q = q.link) {
                drain |= (q.sqeFlags & SqeFlags.IO_DRAIN) != 0;
                length++;
            }
            if (drain && !out.isEmpty()) {
                break;
            }
            deferred.poll();
            d.state = Request.LINKED;
            lock.inflight += length;
            out.add(d);
            if (drain) {
                lock.drainActive = true;
                break;
            }
        }
        return out.takeAll();
    }
}
