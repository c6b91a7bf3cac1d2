package io.uring4j.runtime;

import io.uring4j.ring.Opcode;
import io.uring4j.ring.Sqe;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;

/**
 * The blocking style: the calling thread parks until the request's CQE. Virtual threads unmount while parked,
 * so no carrier is held. An interrupt cancels the request (ASYNC_CANCEL) and the call still waits for the CQE
 * — the kernel may be writing into the caller's buffer until then — before it throws
 * {@link InterruptedIOException} with the interrupt status set again.
 */
final class BlockingCall implements EventLoop.SelfSubmitting {
    private final Op op;
    private final Thread waiter = Thread.currentThread();
    private byte opcode;
    private long userData;
    private int result;
    /** A zero-copy send's byte count, held until its notification ({@link ZeroCopy}). */
    private int held;
    private Throwable failure;
    /** Written last by the loop thread, read first by the waiter: publishes the fields above. */
    private volatile boolean done;

    BlockingCall(Op op) {
        this.op = op;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        op.prepare(sqe, scratch);
        opcode = sqe.opcode();
        userData = sqe.userData();
    }

    @Override
    public void complete(int res, int flags) {
        if (ZeroCopy.awaitsNotification(opcode, flags)) {
            held = res;
            return;
        }
        if (!done) {
            result = op.result(ZeroCopy.reported(res, flags, held));
            done = true;
            LockSupport.unpark(waiter);
        }
    }

    @Override
    public void failed(Throwable cause) {
        failure = cause;
        done = true;
        LockSupport.unpark(waiter);
    }

    /** Submits on {@code loop} and waits: the result ({@code >= 0}) or an exception naming the op and errno. */
    int call(EventLoop loop) throws IOException {
        if (loop.inLoop()) {
            throw new IllegalStateException("a blocking call on the event loop's own thread would never complete");
        }
        loop.submitSelf(this);
        boolean interrupted = false;
        while (!done) {
            LockSupport.park(this);
            if (Thread.interrupted() && !interrupted) {
                interrupted = true;
                // Runs after the submit task (same queue, FIFO), so the user_data is known by then.
                try {
                    loop.execute(() -> loop.cancel(userData));
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the runtime is closing and cancels everything itself
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            InterruptedIOException e = new InterruptedIOException(Opcode.name(opcode) + ": interrupted");
            e.bytesTransferred = Math.max(0, result);
            throw e;
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
