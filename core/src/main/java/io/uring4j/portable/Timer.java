package io.uring4j.portable;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.Errno;

import java.util.concurrent.locks.Condition;

/**
 * The ring's timeouts: TIMEOUT and LINK_TIMEOUT requests armed in a list sorted by deadline (linked through
 * {@link Request#nextQueued}), fired by one daemon thread started with the first timeout. Guarded by the ring
 * lock. A counted TIMEOUT ({@code off} > 0) that sees its count of other CQEs posted fires at once with 0.
 *
 * <p>Absolute deadlines are CLOCK_MONOTONIC, the kernel's default clock, which {@link System#nanoTime} reads on
 * Linux.
 */
final class Timer {
    /** A counted timeout whose count was reached: fires now, with 0. */
    static final int COUNT_REACHED = -1;

    private final PortableRing ring;
    private final Condition changed;
    private final String name;
    private Request head;
    private int counted;
    private Thread thread;
    private boolean closed;

    Timer(PortableRing ring, String name) {
        this.ring = ring;
        this.changed = ring.lock.newCondition();
        this.name = name;
    }

    /** Arms {@code r} for {@code deadline} (System.nanoTime). Under the ring lock. */
    void arm(Request r, long deadline) {
        r.deadline = deadline;
        r.state = Request.ARMED;
        if (r.opcode == Opcode.TIMEOUT && r.countLeft > 0) {
            counted++;
        }
        insert(r);
        if (thread == null && !closed) {
            thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        }
    }

    private void insert(Request r) {
        if (head == null || r.deadline < head.deadline) {
            r.nextQueued = head;
            head = r;
            changed.signal();
            return;
        }
        Request q = head;
        while (q.nextQueued != null && q.nextQueued.deadline <= r.deadline) {
            q = q.nextQueued;
        }
        r.nextQueued = q.nextQueued;
        q.nextQueued = r;
    }

    /** Takes an armed request off the list (cancel, remove, its guarded request finished). Under the lock. */
    void remove(Request r) {
        if (head == r) {
            head = r.nextQueued;
        } else {
            for (Request q = head; q != null; q = q.nextQueued) {
                if (q.nextQueued == r) {
                    q.nextQueued = r.nextQueued;
                    break;
                }
            }
        }
        r.nextQueued = null;
        if (r.opcode == Opcode.TIMEOUT && r.countLeft > 0) {
            counted--;
        }
        r.state = Request.RUNNING;
    }

    /** Re-arms an armed TIMEOUT with a new deadline (TIMEOUT_REMOVE with UPDATE). Under the lock. */
    void rearm(Request r, long deadline) {
        remove(r);
        arm(r, deadline);
    }

    /** A non-timeout CQE was posted: counted timeouts move one step. Under the lock. */
    void countCompletion() {
        if (counted == 0) {
            return;
        }
        for (Request q = head; q != null; ) {
            Request next = q.nextQueued;
            if (q.opcode == Opcode.TIMEOUT && q.countLeft > 0 && --q.countLeft == 0) {
                counted--;
                remove(q);
                q.countLeft = COUNT_REACHED;
                arm(q, Long.MIN_VALUE);
            }
            q = next;
        }
    }

    void close() {
        ring.lock.lock();
        try {
            closed = true;
            head = null;
            changed.signalAll();
        } finally {
            ring.lock.unlock();
        }
    }

    private void run() {
        ring.lock.lock();
        try {
            while (!closed) {
                if (head == null) {
                    changed.awaitUninterruptibly();
                    continue;
                }
                long now = System.nanoTime();
                if (head.deadline > now) {
                    try {
                        changed.awaitNanos(head.deadline - now);
                    } catch (InterruptedException e) {
                        return;
                    }
                    continue;
                }
                Request due = head;
                remove(due);
                // A link timeout is settled under the lock: its guarded request may be finishing right now.
                Request victim = due.opcode == Opcode.LINK_TIMEOUT ? ring.links.linkTimeoutFired(due) : due;
                if (victim == null) {
                    continue;
                }
                int res = victim != due ? -Errno.ECANCELED
                        : due.countLeft == COUNT_REACHED ? 0 : -Errno.ETIME;
                ring.lock.unlock();
                try {
                    ring.links.complete(victim, res, true);
                } finally {
                    ring.lock.lock();
                }
            }
        } catch (IllegalStateException e) {
            if (!ring.closed) {
                throw e;
            }
        } finally {
            ring.lock.unlock();
        }
    }
}
