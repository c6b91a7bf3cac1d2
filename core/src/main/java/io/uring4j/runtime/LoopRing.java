package io.uring4j.runtime;

import io.uring4j.ring.CompletionQueue;
import io.uring4j.ring.Cqe;
import io.uring4j.ring.CqeHandler;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.SetupFlags;
import io.uring4j.ring.abi.SqRingFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.Logs;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * A loop's ring and its request slots, on the loop thread: a request binds a slot and writes its SQE; a CQE finds
 * its slot by user_data and goes to the slot's handler, and the final CQE frees the slot — with the request's op,
 * and its use of its fd. An SQ that fills mid-iteration is handed to the kernel at once.
 */
final class LoopRing {
    /** Internal user_data: a cancellation the loop issued itself; its own result is not interesting. */
    private static final long INTERNAL_CANCEL = -2L;

    private final EventLoop loop;
    private final IoUring ring;
    private final CompletionQueue cq;
    private final RequestTable table;
    private final Waker waker;
    private final SleepPolicy sleep;
    private final LoopCounters stats;
    private final CqeHandler dispatcher = this::dispatch;
    /** Whether the CQ may still grow on overflow: a DEFER_TASKRUN ring the kernel has not refused to resize. */
    private boolean resizable;

    LoopRing(EventLoop loop, IoUring ring, RequestTable table, Waker waker, SleepPolicy sleep, LoopCounters stats) {
        this.loop = loop;
        this.ring = ring;
        this.cq = ring.cq();
        this.table = table;
        this.waker = waker;
        this.sleep = sleep;
        this.stats = stats;
        this.resizable = (ring.setupFlags() & SetupFlags.DEFER_TASKRUN) != 0;
    }

    /**
     * Binds a slot to the op and writes its SQE; false (nothing done) when no slot is free. The request becomes a
     * user of {@code guard}'s fd (if any) until its slot is released; {@code bounded}, it completes on its own
     * ({@link Submission#bounded}); {@code kind} says which of the table's bounds it counts against. A closing
     * runtime fails the handler instead.
     */
    boolean issue(Op op, CompletionHandler handler, FdGuard guard, boolean bounded, RequestTable.Kind kind) {
        if (loop.closing()) {
            handler.failed(new RejectedExecutionException("uring4j runtime is closed: request not submitted"));
            return true;
        }
        RequestTable.Request r = table.acquire(kind, handler, op);
        if (r == null) {
            tableFull();
            return false;
        }
        Sqe sqe = nextSqe();
        sqe.userData(r.userData());
        try {
            if (guard != null) {
                guard.acquireForRequests(1);
                r.guard = guard;
            }
            op.prepare(sqe, r.scratch);
        } catch (RuntimeException e) {
            sqe.prepNop().userData(INTERNAL_CANCEL);   // the slot is taken: turn it into a harmless NOP
            table.release(r);
            handler.failed(e);
            return true;
        }
        if (bounded) {
            r.bounded = true;
            sleep.boundedIssued();
        }
        r.opcode = sqe.opcode();
        stats.submitted++;
        return true;
    }

    /**
     * Writes step {@code index} of a chain into a slot known to be free, carrying {@code link} to the next step;
     * the step holds one of the chain's uses of {@code guard} (if any). Returns its user_data.
     */
    long issueStep(int index, Op op, CompletionHandler handler, FdGuard guard, int link) {
        RequestTable.Request r = table.acquire(handler, op);
        r.guard = guard;
        Sqe sqe = nextSqe();
        sqe.userData(r.userData());
        try {
            op.prepare(sqe, r.scratch);
        } catch (RuntimeException e) {
            // Keep the chain's shape: this step fails as the kernel would fail it, and breaks the link.
            Logs.runtime().log(System.Logger.Level.DEBUG, "uring4j loop " + loop.id() + ": chain step " + index
                    + " failed to prepare", e);
            sqe.prepNop(-Errno.EINVAL);
        }
        sqe.addFlags(link);
        r.opcode = sqe.opcode();
        stats.submitted++;
        return r.userData();
    }

    /** Cancels the request {@code userData}; the cancellation's own outcome is not reported. */
    void cancel(long userData) {
        nextSqe().prepCancel(userData, 0).userData(INTERNAL_CANCEL);
    }

    /** Cancels every request in flight (a close). */
    void cancelAll() {
        if (table.inFlight() > 0) {
            RuntimeEvents.closeWithWork(loop.id(), table.inFlight());
        }
        nextSqe().prepCancel(0, OpFlags.Cancel.ANY | OpFlags.Cancel.ALL).userData(INTERNAL_CANCEL);
    }

    /** How many ordinary requests may be in flight at once. */
    int slots() {
        return table.size();
    }

    /** Hands what is prepared to the kernel if the SQ has no room for {@code n} more SQEs. */
    void makeSqRoom(int n) {
        if (ring.sq().spaceLeft() < n) {
            flushSq();
        }
    }

    /** An SQE to fill; flushes the SQ to the kernel when it is full. */
    Sqe nextSqe() {
        Sqe sqe = ring.sq().next();
        while (sqe == null) {
            flushSq();
            sqe = ring.sq().next();
        }
        return sqe;
    }

    /** The SQ is full mid-iteration: hand what is prepared to the kernel now. */
    private void flushSq() {
        stats.sqFull++;
        RuntimeEvents.sqFull(loop.id());
        try {
            ring.submit();
        } catch (ErrnoException e) {
            if (!IoUring.underPressure(e)) {
                throw new IllegalStateException("uring4j loop " + loop.id() + ": submit failed while the SQ was full", e);
            }
            LockSupport.parkNanos(IoUring.PRESSURE_PAUSE_NANOS);     // the caller finds the SQ still full and tries again
        }
    }

    /** Counts a submission that found every slot in flight, and says so once per loop. */
    void tableFull() {
        if (stats.tableFull++ == 0) {
            warn("all " + table.size() + " request slots are in flight; submissions wait for one (raise"
                    + " UringBuilder.maxInFlight if this is the steady state)", null);
        }
    }

    /** After an enter: dispatches every CQE ready; returns how many. */
    int reap() {
        if ((ring.sq().kernelFlags() & SqRingFlags.CQ_OVERFLOW) != 0) {
            stats.cqOverflow++;
            RuntimeEvents.cqOverflow(loop.id(), table.inFlight());
            growCq();
        }
        int reaped = cq.drain(dispatcher);
        stats.reaped += reaped;
        return reaped;
    }

    /**
     * Doubles the CQ, up to the kernel's limit, when completions had to wait in the overflow list (kernel memory,
     * and a flush on every enter until drained). Only DEFER_TASKRUN rings can be resized (6.13); where the kernel
     * refuses, the loop lives with the overflow, as it did before resizing existed.
     */
    private void growCq() {
        int size = ring.cqEntries();
        if (!resizable || size >= ParamsLayout.MAX_CQ_ENTRIES) {
            return;
        }
        try {
            ring.resize(ring.sqEntries(), 2 * size);
        } catch (ErrnoException e) {
            resizable = false;           // what every loop did before 6.13: not worth a warning
            Logs.runtime().log(System.Logger.Level.DEBUG, "uring4j loop " + loop.id() + ": its CQ of " + size
                    + " entries overflowed and cannot grow: " + e.getMessage());
        }
    }

    private void dispatch(Cqe cqe) {
        long userData = cqe.userData();
        if (userData < 0) {
            if (userData == Waker.WAKEUP) {
                waker.fired();
            }
            return;
        }
        RequestTable.Request r = table.lookup(userData);
        if (r == null) {
            stats.stale++;
            return;
        }
        int result = cqe.res();
        if (result <= -Errno.ERESTARTSYS && result >= -Errno.ERESTART_RESTARTBLOCK) {
            result = -Errno.EINTR;      // a worker's request interrupted by a cancel: the kernel's code leaks out
        }
        int flags = cqe.flags();
        CompletionHandler handler = r.handler;
        if ((flags & CqeFlags.F_MORE) == 0) {
            if (r.bounded) {
                sleep.boundedCompleted();
            }
            table.release(r);
        }
        stats.completed++;
        try {
            handler.complete(result, flags);
        } catch (Throwable t) {
            stats.handlerFailures++;
            warn("completion handler failed", t);
        }
    }

    /**
     * Logs a handler's or task's failure, never throwing: the loop thread must outlive both, and a logger can
     * fail too — out of descriptors it cannot load its time-zone data or a class.
     */
    void warn(String what, Throwable t) {
        try {
            Logs.runtime().log(System.Logger.Level.WARNING, "uring4j loop " + loop.id() + ": " + what, t);
        } catch (Throwable unloggable) {
            // counted in handlerFailures; nothing else can be done
        }
    }
}
