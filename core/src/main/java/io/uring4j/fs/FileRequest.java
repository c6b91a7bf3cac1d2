package io.uring4j.fs;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * The future style for a request on a guarded fd: the future, the op and the handler in one object. It differs
 * from the runtime's own future in what completion means: the request becomes a user of the fd when it is
 * prepared (so a close does not wait for it while it waits for a slot) and stops being one on the final CQE
 * (or when the request never reached the kernel), not when the future completes — a caller's
 * {@link #cancel} completes the future at once, while the kernel may still be about to look the fd up. For the
 * same reason memory a request borrowed is given back in {@link Outcome#done}, at the CQE.
 * Errors: {@link ErrnoException} naming the opcode (unless the outcome maps it), or
 * {@link AsynchronousCloseException} when the file was closed meanwhile.
 */
final class FileRequest<T> extends CompletableFuture<T> implements Op, CompletionHandler {
    /** What a request makes of its completion (a lambda maps the result); every method runs on the loop thread. */
    interface Outcome<T> {
        /** The value for a result {@code >= 0}, at the CQE. */
        T value(int result);

        /** The exception to report for {@code failure} (an ErrnoException naming the opcode, or another). */
        default Throwable error(Throwable failure) {
            return failure;
        }

        /**
         * The kernel is done with the request, or never had it; {@code failure} is null after a CQE. Runs before
         * the future completes, whether or not it was cancelled.
         */
        default void done(Throwable failure) {
        }
    }

    private final FdGuard guard;
    private final EventLoop loop;
    private final Op op;
    private final Outcome<T> outcome;
    private byte opcode;
    /** Loop thread: the request is a user of the fd. */
    private boolean guarding;
    /** 0 until the SQE is written (runtime user_data is never 0). */
    private volatile long userData;
    private volatile boolean cancelRequested;

    private FileRequest(FdGuard guard, EventLoop loop, Op op, Outcome<T> outcome) {
        this.guard = guard;
        this.loop = loop;
        this.op = op;
        this.outcome = outcome;
    }

    /** Submits {@code op} as a user of {@code guard}'s fd. */
    static <T> CompletableFuture<T> submit(FdGuard guard, EventLoop loop, Op op, Outcome<T> outcome) {
        if (guard.isClosing()) {
            ClosedChannelException e = new ClosedChannelException();
            outcome.done(e);
            return CompletableFuture.failedFuture(e);
        }
        FileRequest<T> request = new FileRequest<>(guard, loop, op, outcome);
        try {
            loop.submit(request, request);
        } catch (RejectedExecutionException e) {
            outcome.done(e);
            return CompletableFuture.failedFuture(Await.runtimeClosed(e));
        }
        return request;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        try {
            guard.acquire();
        } catch (ClosedChannelException e) {
            throw new ClosingException();
        }
        guarding = true;
        op.prepare(sqe, scratch);
        opcode = sqe.opcode();
        userData = sqe.userData();
        if (cancelRequested) {
            loop.cancel(userData);
        }
    }

    @Override
    public void complete(int cqeResult, int flags) {
        releaseGuard();
        int res = op.result(cqeResult);
        T value = null;
        Throwable failure = null;
        if (res < 0) {
            failure = guard.isClosing() ? new AsynchronousCloseException()
                    : outcome.error(new ErrnoException(Opcode.name(opcode), res));
        } else {
            try {
                value = outcome.value(res);
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        outcome.done(null);
        if (failure == null) {
            complete(value);
        } else {
            completeExceptionally(failure);
        }
    }

    @Override
    public void failed(Throwable cause) {
        releaseGuard();
        outcome.done(cause);
        completeExceptionally(cause instanceof ClosingException || guard.isClosing()
                ? new AsynchronousCloseException() : outcome.error(cause));
    }

    private void releaseGuard() {
        if (guarding) {
            guarding = false;
            guard.release();
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            cancelRequested = true;
            long ud = userData;
            if (ud != 0) {
                try {
                    loop.cancel(ud);
                } catch (RejectedExecutionException closing) {
                    // the runtime is closing and cancels everything itself
                }
            }
        }
        return cancelled;
    }

    /** Thrown from prepare when the file closed before the request reached the kernel: the SQE is not issued. */
    private static final class ClosingException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClosingException() {
            super("file closed before the request was submitted", null, false, false);
        }
    }
}
