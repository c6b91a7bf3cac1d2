package io.uring4j.runtime;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.Opcode;
import io.uring4j.sys.ErrnoException;

import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * The future style: a {@link CompletableFuture} that is also the request's op and handler, so one object per
 * request is all it costs. Completes with the CQE result, or exceptionally with an {@link ErrnoException} naming
 * the opcode and errno. {@link #cancel} also cancels the request in the kernel (or withdraws it while it waits for
 * a slot); the op's memory stays owned by the request until its CQE arrives regardless.
 */
final class OpFuture extends CompletableFuture<Integer> implements SelfHandledRequest {
    private final EventLoop loop;
    private final Op op;
    /** The fd the request names, or null; it is a user from its preparation to its final CQE. */
    private final FdGuard guard;
    private byte opcode;
    /** A zero-copy send's byte count, held until its notification ({@link ZeroCopy}). */
    private int held;
    /** 0 until the SQE is written (user_data 0 is never a runtime request: generations start at 1). */
    private long userData;

    OpFuture(EventLoop loop, Op op, FdGuard guard) {
        this.loop = loop;
        this.op = op;
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
        return isCancelled();
    }

    @Override
    public FdGuard guard() {
        return guard;
    }

    @Override
    public void complete(int cqeResult, int flags) {
        if (ZeroCopy.awaitsNotification(opcode, flags)) {
            held = cqeResult;
            return;
        }
        int result = op.result(ZeroCopy.reported(cqeResult, flags, held));
        if (result >= 0) {
            complete(ResultBoxes.of(result));
        } else {
            completeExceptionally(new ErrnoException(Opcode.name(opcode), result));
        }
    }

    @Override
    public void failed(Throwable cause) {
        completeExceptionally(cause instanceof UncheckedIOException unchecked ? unchecked.getCause() : cause);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            loop.cancel(this);
        }
        return cancelled;
    }
}
