package io.uring4j.fs;

import io.uring4j.ring.Opcode;
import io.uring4j.ring.Sqe;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.Op;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.nio.channels.AsynchronousCloseException;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The future style for a request on a guarded fd: the future, the op and the handler in one object. It differs
 * from the runtime's own future in what completion means: the fd's user count is released on the final CQE
 * (or when the request never reached the kernel), not when the future completes — a caller's
 * {@link #cancel} completes the future at once, while the kernel may still be about to look the fd up.
 * Errors: {@link ErrnoException} naming the opcode, or {@link AsynchronousCloseException} when the file was
 * closed meanwhile.
 */
final class FileRequest<T> extends CompletableFuture<T> implements Op, CompletionHandler {
    private final FdGuard guard;
    private final EventLoop loop;
    private final Op op;
    private final IntFunction<T> result;
    private byte opcode;
    /** 0 until the SQE is written (runtime user_data is never 0). */
    private volatile long userData;
    private volatile boolean cancelRequested;

    private FileRequest(FdGuard guard, EventLoop loop, Op op, IntFunction<T> result) {
        this.guard = guard;
        this.loop = loop;
        this.op = op;
        this.result = result;
    }

    /** Submits {@code op} as a user of {@code guard}'s fd; the future gets {@code result} of the CQE result. */
    static <T> CompletableFuture<T> submit(FdGuard guard, EventLoop loop, Op op, IntFunction<T> result) {
        try {
            guard.acquire();
        } catch (java.nio.channels.ClosedChannelException e) {
            return CompletableFuture.failedFuture(e);
        }
        FileRequest<T> request = new FileRequest<>(guard, loop, op, result);
        try {
            loop.submit(request, request);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            guard.release();
            return CompletableFuture.failedFuture(Await.runtimeClosed(e));
        }
        return request;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        if (guard.isClosing()) {
            throw new ClosingException();
        }
        op.prepare(sqe, scratch);
        opcode = sqe.opcode();
        userData = sqe.userData();
        if (cancelRequested) {
            loop.cancel(userData);
        }
    }

    @Override
    public void complete(int cqeResult, int flags) {
        guard.release();
        int res = op.result(cqeResult);
        if (res < 0) {
            completeExceptionally(guard.isClosing() ? new AsynchronousCloseException()
                    : new ErrnoException(Opcode.name(opcode), res));
            return;
        }
        try {
            complete(result.apply(res));
        } catch (RuntimeException e) {
            completeExceptionally(e);
        }
    }

    @Override
    public void failed(Throwable cause) {
        guard.release();
        completeExceptionally(cause instanceof ClosingException || guard.isClosing()
                ? new AsynchronousCloseException() : cause);
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
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the runtime is closing and cancels everything itself
                }
            }
        }
        return cancelled;
    }

    /** Thrown from prepare when the file closed before the request reached the kernel: the SQE is not issued. */
    static final class ClosingException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClosingException() {
            super("file closed before the request was submitted", null, false, false);
        }
    }
}
