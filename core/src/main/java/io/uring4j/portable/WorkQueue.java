package io.uring4j.portable;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The io-wq of one ring: a FIFO of requests (linked through {@link Request#nextQueued}, so queueing allocates
 * nothing) served by up to {@code max} daemon threads that block in system calls. Workers are started on demand
 * and leave after {@link #IDLE_NANOS} without work, like io-wq's. The lock is taken once per work item: a
 * worker that finishes a request runs the linked successor itself ({@link PortableRing#runOnWorker}) without
 * coming back here.
 */
final class WorkQueue {
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** How long closing the ring waits for workers to leave (one inside a slow system call may not). */
    private static final long CLOSE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition gone = lock.newCondition();
    private final PortableRing ring;
    private final int max;
    private final String name;
    private Request head;
    private Request tail;
    /** Workers started and not yet leaving: at most {@link #max}. */
    private int workers;
    /** Worker threads alive, for close. */
    private int alive;
    private int idle;
    private int started;
    private boolean closed;

    WorkQueue(PortableRing ring, int max, String name) {
        this.ring = ring;
        this.max = max;
        this.name = name;
    }

    void enqueue(Request r) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            r.state = Request.QUEUED;
            r.nextQueued = null;
            if (tail == null) {
                head = tail = r;
            } else {
                tail.nextQueued = r;
                tail = r;
            }
            if (idle > 0) {
                work.signal();
            } else if (workers < max) {
                workers++;
                startWorker();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code r} out of the queue if no worker has picked it up yet; the caller then cancels it. */
    boolean remove(Request r) {
        lock.lock();
        try {
            Request prev = null;
            for (Request q = head; q != null; prev = q, q = q.nextQueued) {
                if (q == r) {
                    if (prev == null) {
                        head = q.nextQueued;
                    } else {
                        prev.nextQueued = q.nextQueued;
                    }
                    if (tail == q) {
                        tail = prev;
                    }
                    q.nextQueued = null;
                    return true;
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    private void startWorker() {
        alive++;
        Thread.ofPlatform().daemon().name(name + "-" + started++).start(this::serve);
    }

    /**
     * Drops queued work and waits (boundedly) for the workers to leave, so that their per-thread resources are
     * released when the ring's close returns.
     */
    void close() {
        lock.lock();
        try {
            closed = true;
            head = tail = null;
            work.signalAll();
            long wait = CLOSE_WAIT_NANOS;
            while (alive > 0 && wait > 0) {
                wait = gone.awaitNanos(wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private void serve() {
        try {
            serveUntilIdle();
        } finally {
            lock.lock();
            try {
                alive--;
                gone.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private void serveUntilIdle() {
        while (true) {
            Request r;
            lock.lock();
            try {
                long wait = IDLE_NANOS;
                while (head == null && !closed && wait > 0) {
                    idle++;
                    try {
                        wait = work.awaitNanos(wait);
                    } catch (InterruptedException e) {
                        wait = 0;
                    } finally {
                        idle--;
                    }
                }
                if (head == null || closed) {
                    workers--;
                    return;
                }
                r = head;
                head = r.nextQueued;
                if (head == null) {
                    tail = null;
                }
                r.nextQueued = null;
                r.state = Request.RUNNING;
            } finally {
                lock.unlock();
            }
            ring.runOnWorker(r);
        }
    }
}
