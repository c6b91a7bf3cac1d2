package io.uring4j.runtime;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking style: the calling thread parks until the request's CQE. Virtual threads unmount while parked,
 * so no carrier is held. An interrupt cancels the request (ASYNC_CANCEL) and the call still waits for the CQE
 * — the kernel may be writing into the caller's buffer until then — before it throws
 * {@link InterruptedIOException} with the interrupt status set again; a request still waiting for a slot is
 * withdrawn instead and never reaches the kernel. Virtual waiters whose CQEs were reaped in one batch are woken
 * together: the loop unparks the first, which unparks the rest from its carrier.
 *
 * <p>The request must be single-shot: a multishot one is refused as it is prepared ({@link SingleShot}).
 *
 * <p>With an {@link FdGuard} the request becomes a user of the fd when the loop prepares it and stops being one at
 * its final CQE ({@link RequestTable.Request#guard}).
 */
final class BlockingCall implements SelfHandledRequest {
    private final Op op;
    private final EventLoop loop;
    /** The fd the request names, or null. */
    private final FdGuard guard;
    /** The request completes without an outside event ({@link EventLoop#callBounded}). */
    private final boolean bounded;
    private final Thread waiter = Thread.currentThread();
    /** Read here, on the waiter's thread: the loop would take a cache miss on the Thread object for it. */
    private final boolean virtualWaiter = waiter.isVirtual();
    private byte opcode;
    private long userData;
    private int result;
    /** A zero-copy send's byte count, held until its notification ({@link ZeroCopy}). */
    private int held;
    private Throwable failure;
    /**
     * Loop thread: the result is in. A virtual waiter's {@code done} waits for the batch's end, so this — not
     * {@code done} — keeps a request with more CQEs than {@link SingleShot} knows of from joining the batch twice.
     */
    private boolean reported;
    /** Set by the waiter when interrupted: a request not yet prepared never reaches the kernel. */
    private volatile boolean cancelRequested;
    /** Written last by the loop thread, read first by the waiter: publishes the fields above. */
    private volatile boolean done;
    /** Loop thread: the next call of the reaped batch whose waiter is virtual (see {@link EventLoop#wakeLater}). */
    BlockingCall nextWake;
    /** Set (before {@code done}) on the head of a batch: the rest, which this waiter unparks once it runs. */
    private BlockingCall wakeRest;

    BlockingCall(Op op, EventLoop loop, boolean bounded, FdGuard guard) {
        this.op = op;
        this.loop = loop;
        this.bounded = bounded;
        this.guard = guard;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        op.prepare(sqe, scratch);
        SingleShot.require(sqe);
        opcode = sqe.opcode();
        userData = sqe.userData();
    }

    @Override
    public long userData() {
        return userData;
    }

    @Override
    public boolean withdrawn() {
        return cancelRequested;
    }

    @Override
    public void complete(int res, int flags) {
        if (ZeroCopy.awaitsNotification(opcode, flags)) {
            held = res;
            return;
        }
        if (!reported) {
            reported = true;
            result = op.result(ZeroCopy.reported(res, flags, held));
            if ((flags & CqeFlags.F_MORE) != 0) {
                loop.io().cancel(userData);     // a multishot form SingleShot missed: its later CQEs go unheard
            }
            if (virtualWaiter) {
                loop.wakeLater(this);
            } else {
                done = true;
                LockSupport.unpark(waiter);
            }
        }
    }

    @Override
    public boolean bounded() {
        return bounded;
    }

    /** Loop thread, after a reaped batch: the head wakes, and unparks the rest from its carrier. */
    void wakeBatch(BlockingCall rest) {
        wakeRest = rest;
        for (BlockingCall c = rest; c != null; c = c.nextWake) {
            c.done = true;
        }
        done = true;
        LockSupport.unpark(waiter);
    }

    private void wakeRest() {
        BlockingCall c = wakeRest;
        if (c != null) {
            wakeRest = null;
            while (c != null) {
                BlockingCall next = c.nextWake;
                c.nextWake = null;
                LockSupport.unpark(c.waiter);
                c = next;
            }
        }
    }

    @Override
    public FdGuard guard() {
        return guard;
    }

    @Override
    public void failed(Throwable cause) {
        failure = cause instanceof UncheckedIOException unchecked ? unchecked.getCause() : cause;
        done = true;
        LockSupport.unpark(waiter);
    }

    /** Submits on {@code loop} and waits: the result ({@code >= 0}) or an exception naming the op and errno. */
    int call() throws IOException {
        if (loop.inLoop()) {
            throw new IllegalStateException("a blocking call on the event loop's own thread would never complete");
        }
        loop.submit(this);
        boolean interrupted = false;
        while (!done) {
            LockSupport.park(this);
            if (Thread.interrupted() && !interrupted) {
                interrupted = true;
                cancelRequested = true;
                loop.cancel(this);
            }
        }
        wakeRest();
        if (interrupted) {
            Thread.currentThread().interrupt();
            InterruptedIOException e = new InterruptedIOException(Opcode.name(opcode) + ": interrupted");
            e.bytesTransferred = Math.max(0, result);
            throw e;
        }
        if (failure instanceof IllegalArgumentException refused) {
            throw new IllegalArgumentException(refused.getMessage(), refused);     // the caller's mistake
        }
        if (failure != null) {
            throw failure instanceof IOException io ? io : new IOException(failure.getMessage(), failure);
        }
        if (result < 0) {
            throw new ErrnoException(Opcode.name(opcode), result);
        }
        return result;
    }
}
