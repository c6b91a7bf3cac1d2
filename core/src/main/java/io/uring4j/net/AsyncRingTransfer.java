package io.uring4j.net;

import io.uring4j.ring.Timespec;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.CompletionHandler;
import java.nio.channels.InterruptedByTimeoutException;

/**
 * A read or write of a {@link UringAsynchronousSocketChannel} that the socket was not ready for, as a request on the
 * group's ring; completed by its poller. A write behind bytes in the channel's outbox waits there first
 * ({@link AsyncOutbox.Waiter}), its timeout counted by a TIMEOUT request meanwhile, and is submitted with what is
 * left of it once they have gone.
 */
final class AsyncRingTransfer<V extends Number, A> implements AsyncRing.Completion, AsyncOutbox.Waiter {
    private final UringAsynchronousSocketChannel channel;
    private final boolean read;
    private final boolean vectored;
    private final AsyncTransfer transfer;
    private final AsyncRing ring;
    private final long timeoutNanos;
    private final A attachment;
    private final CompletionHandler<V, ? super A> handler;
    private volatile AsyncRing.Request request;
    /** While the write waits in the outbox with a timeout: the TIMEOUT request counting it. */
    private AsyncRing.Request timer;
    private long deadline;
    /** The caller's future, or null with a handler. */
    AsyncRequest.Pending<V> future;

    AsyncRingTransfer(UringAsynchronousSocketChannel channel, boolean read, boolean vectored, AsyncTransfer transfer,
                      AsyncRing ring, long timeoutNanos, A attachment, CompletionHandler<V, ? super A> handler) {
        this.channel = channel;
        this.read = read;
        this.vectored = vectored;
        this.transfer = transfer;
        this.ring = ring;
        this.timeoutNanos = timeoutNanos;
        this.attachment = attachment;
        this.handler = handler;
    }

    /** The request on the ring, with the time left of its timeout (all of it, unless it waited). */
    void submit() {
        long left = timeoutNanos;
        if (timeoutNanos > 0 && timer != null) {
            ring.cancel(timer);
            left = deadline - System.nanoTime();
            if (left <= 0) {
                completed(-Errno.ECANCELED, true);
                return;
            }
        }
        AsyncRing.Request r = new AsyncRing.Request(transfer, channel.guard(), left,
                left > 0 ? transfer.timespec() : null, this);
        request = r;
        ring.submit(r);
    }

    /** Waits in the outbox (and its timeout starts); false if the outbox is idle already. */
    boolean awaitOutbox() {
        AsyncOutbox outbox = channel.outbox();
        if (timeoutNanos > 0) {
            deadline = System.nanoTime() + timeoutNanos;
            MemorySegment ts = Arena.ofAuto().allocate(Timespec.SIZE, 8);
            Timespec.set(ts, timeoutNanos);
            timer = new AsyncRing.Request((sqe, scratch) -> sqe.prepTimeout(ts, 0, 0), null, 0, null,
                    (result, timedOut) -> {
                        if (result == -Errno.ETIME && outbox.withdraw(this)) {
                            completed(-Errno.ECANCELED, true);
                        }
                    });
        }
        if (!outbox.await(this)) {
            return false;
        }
        if (timer != null) {
            ring.submit(timer);
        }
        return true;
    }

    @Override
    public void proceed(int failure) {
        if (failure != 0) {
            if (timer != null) {
                ring.cancel(timer);
            }
            completed(failure, false);
        } else {
            submit();
        }
    }

    /** The channel is closing: a request is cancelled, a write waiting in the outbox fails at the ring. */
    void closing() {
        if (channel.outbox().withdraw(this)) {
            submit();
        } else if (request != null) {
            ring.cancel(request);
        }
    }

    /** The future's cancel: a waiting write is taken back, a request cancelled. */
    void cancel() {
        if (channel.outbox().withdraw(this)) {
            if (timer != null) {
                ring.cancel(timer);
            }
            completed(-Errno.ECANCELED, false);
        } else if (request != null) {
            ring.cancel(request);
        }
    }

    @Override
    public void completed(int n, boolean timedOut) {
        UringAsynchronousChannelGroup group = channel.group();
        channel.leftRing(read);
        if (future != null && future.isCancelled()) {
            transfer.release();
            group.operationEnded();         // nothing to deliver: cancelled, and the channel refuses more
            return;
        }
        V value = null;
        Throwable exc = null;
        if (timedOut) {
            transfer.release();
            exc = new InterruptedByTimeoutException();
        } else if (n >= 0) {
            transfer.finish(n);
            value = AsyncTransfer.count(vectored, read && n == 0 ? -1 : n);
        } else {
            transfer.release();
            exc = AsyncRequest.failure(new ErrnoException(read ? "recvmsg" : "sendmsg", n), channel.isOpen(), read);
        }
        channel.ended(read, timedOut);
        try {
            if (handler != null) {
                group.handlers().runHere(handler, attachment, value, exc);
            } else if (exc == null) {
                future.complete(value);
            } else {
                future.completeExceptionally(exc);
            }
        } finally {
            group.operationEnded();
        }
    }
}
