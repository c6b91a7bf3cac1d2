package io.uring4j.net;

import io.uring4j.runtime.ChainResult;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.InterruptedByTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One asynchronous channel operation as one io_uring request on the channel's loop, a user of its fd
 * ({@link FdGuard}) from preparation to final CQE; with a timeout, the request and a LINK_TIMEOUT go in as a chain,
 * so the kernel itself cancels the request when time is up. The future completes only once the kernel is done with
 * the request — with the CQE result, or with the failure the channel turns into the JDK's exception
 * ({@link #failure}) — so memory the request uses may be reused once it has completed.
 */
final class AsyncRequest {
    private AsyncRequest() {
    }

    /**
     * Starts {@code op}; with {@code timeoutNanos > 0}, bounded by a link timeout. The future fails with an
     * {@link ErrnoException} naming {@code what}, {@link InterruptedByTimeoutException} when the timeout cut the
     * request short, {@link ClosedChannelException} when the fd closed before the request was prepared, or
     * {@link RejectedExecutionException} when the runtime is closed. Cancelling a future without timeout cancels
     * the request.
     */
    static CompletableFuture<Integer> start(EventLoop loop, FdGuard guard, Op op, long timeoutNanos, String what) {
        try {
            if (timeoutNanos <= 0) {
                return loop.submitAsync(op, guard);
            }
            return loop.chain(op).timeout(Duration.ofNanos(timeoutNanos)).guardedBy(guard).submitAsync()
                    .thenApply(r -> timedResult(r, what));
        } catch (RejectedExecutionException closed) {
            return CompletableFuture.failedFuture(closed);
        }
    }

    private static int timedResult(ChainResult r, String what) {
        if (NetErrors.timedOut(r)) {
            throw new CompletionException(new InterruptedByTimeoutException());
        }
        if (r.result(0) < 0) {
            throw new CompletionException(new ErrnoException(what, r.result(0)));
        }
        return r.result(0);
    }

    /** Whether the future ended because its caller cancelled it (nothing to deliver). */
    static boolean cancelled(Throwable failure) {
        return unwrap(failure) instanceof CancellationException;
    }

    /**
     * The exception a read or write reports for {@code failure}, as the JDK's channels report them: a closed channel
     * is {@link AsynchronousCloseException} (whatever ended the request); a read's ECONNRESET is
     * {@code SocketException("Connection reset")}; other errnos are an IOException with the strerror text, the
     * {@link ErrnoException} its cause.
     */
    static Throwable failure(Throwable failure, boolean open, boolean read) {
        Throwable f = unwrap(failure);
        if (!open || f instanceof ClosedChannelException) {
            return new AsynchronousCloseException();
        }
        if (f instanceof ErrnoException e) {
            IOException io = read && e.errno() == Errno.ECONNRESET ? new SocketException("Connection reset")
                    : new IOException(Errno.describe(e.errno()));
            io.initCause(e);
            return io;
        }
        if (f instanceof RejectedExecutionException closed) {
            return new IOException("uring4j runtime is closed: the channel can no longer do I/O", closed);
        }
        return f;
    }

    static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }

    /**
     * The future a Future-style operation returns: cancelling it does what the JDK's does — the channel refuses
     * further operations of that kind ({@code onCancel}), the request is cancelled ({@code cancelRequest}), and with
     * {@code mayInterruptIfRunning} the channel is closed. A plain {@link Future}, not a {@link CompletableFuture}:
     * it is completed on a loop or a group's poller, where code chained onto it must not run. A poller that waits
     * for one steps down first ({@link UringAsynchronousChannelGroup#beforeBlocking}), so that another reaps what it
     * waits for.
     */
    static final class Pending<V> implements Future<V> {
        private final CompletableFuture<V> result = new CompletableFuture<>();
        private final Runnable onCancel;
        private final Runnable cancelRequest;
        private final java.nio.channels.Channel channel;
        private final UringAsynchronousChannelGroup group;

        /** {@code group}: the group whose ring the operation is on, or null for one on a loop. */
        Pending(Runnable onCancel, Runnable cancelRequest, java.nio.channels.Channel channel,
                UringAsynchronousChannelGroup group) {
            this.onCancel = onCancel;
            this.cancelRequest = cancelRequest;
            this.channel = channel;
            this.group = group;
        }

        void complete(V value) {
            result.complete(value);
        }

        void completeExceptionally(Throwable failure) {
            result.completeExceptionally(failure);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (result.isDone()) {
                return false;
            }
            onCancel.run();
            boolean cancelled = result.cancel(mayInterruptIfRunning);
            cancelRequest.run();
            if (cancelled && mayInterruptIfRunning) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // closed whatever close reported
                }
            }
            return cancelled;
        }

        @Override
        public boolean isCancelled() {
            return result.isCancelled();
        }

        @Override
        public boolean isDone() {
            return result.isDone();
        }

        @Override
        public V get() throws InterruptedException, ExecutionException {
            if (group != null && !result.isDone()) {
                group.beforeBlocking();
            }
            return result.get();
        }

        @Override
        public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            if (group != null && !result.isDone()) {
                group.beforeBlocking();
            }
            return result.get(timeout, unit);
        }
    }
}
