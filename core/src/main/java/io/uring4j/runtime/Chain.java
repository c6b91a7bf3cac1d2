package io.uring4j.runtime;

import io.uring4j.ring.Timespec;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.SqeFlags;
import io.uring4j.sys.Errno;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * Linked requests: each step starts when the one before it has completed. A soft link ({@link #then}) breaks
 * when its predecessor fails or comes up short; a hard link ({@link #thenHard}) survives a failed predecessor.
 * All SQEs of a chain are written together into one submit, since a chain never spans two submits: the chain
 * waits until the loop has a slot for every step, and makes room in the SQ for all of them first.
 *
 * <pre>{@code
 * ChainResult r = loop.chain(Op.write(fd, buf, 0)).then(Op.fsync(fd)).call();
 * }</pre>
 *
 * <p>A step whose op sets IOSQE_ASYNC goes to the kernel's io-wq workers, and on the loop's DEFER_TASKRUN ring its
 * completion — and the start of the next step — waits for the loop to enter the kernel again: such chains run
 * several times slower per step. Leave ASYNC off unless a step would otherwise block the submit.
 */
public final class Chain {
    private final EventLoop loop;
    private final List<Op> steps = new ArrayList<>();
    /** {@code links.get(i)}: the flag step i carries to step i + 1 (IO_LINK or IO_HARDLINK). */
    private final List<Integer> links = new ArrayList<>();
    private FdGuard guard;

    Chain(EventLoop loop, Op first) {
        this.loop = loop;
        append(first);
    }

    /** Runs {@code op} after the previous step if that one succeeded. */
    public Chain then(Op op) {
        links.set(links.size() - 1, (int) SqeFlags.IO_LINK);
        return append(op);
    }

    /** Runs {@code op} after the previous step whatever its result. */
    public Chain thenHard(Op op) {
        links.set(links.size() - 1, (int) SqeFlags.IO_HARDLINK);
        return append(op);
    }

    /**
     * Bounds the previous step by {@code timeout} (IORING_OP_LINK_TIMEOUT): if it is still running then, it is
     * cancelled (-ECANCELED or -EINTR) and this step reports -ETIME; if it finished first, this step reports
     * -ECANCELED. The timespec lives in this step's own request memory.
     */
    public Chain timeout(Duration timeout) {
        long nanos = timeout.toNanos();
        if (nanos < 0) {
            throw new IllegalArgumentException("negative timeout: " + timeout);
        }
        if (links.getLast() == 0) {
            links.set(links.size() - 1, (int) SqeFlags.IO_LINK);
        }
        return append((sqe, scratch) -> {
            Timespec.set(scratch, nanos);
            sqe.prepLinkTimeout(scratch, 0);
        });
    }

    /**
     * Makes the chain a user of {@code guard}'s fd from its preparation to its last CQE, as a guarded call is
     * ({@link EventLoop#call(Op, FdGuard, boolean)}): a close never waits for it while it waits for slots, and a
     * chain prepared after the close fails with {@link java.nio.channels.ClosedChannelException}.
     */
    public Chain guardedBy(FdGuard guard) {
        this.guard = Objects.requireNonNull(guard, "guard");
        return this;
    }

    private Chain append(Op op) {
        steps.add(Objects.requireNonNull(op, "op"));
        links.add(0);
        return this;
    }

    /** Submits the chain; the future completes once every step has its final CQE. */
    public CompletableFuture<ChainResult> submitAsync() {
        ChainFuture future = new ChainFuture(loop, steps.toArray(Op[]::new),
                links.stream().mapToInt(Integer::intValue).toArray(), guard);
        loop.submit(future);
        return future;
    }

    /**
     * Submits the chain and waits for every step. An interrupt cancels the steps still running and waits for
     * their completion before throwing {@link InterruptedIOException}.
     */
    public ChainResult call() throws IOException {
        ChainFuture future = (ChainFuture) submitAsync();
        boolean interrupted = false;
        while (true) {
            try {
                ChainResult result = future.get();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("chain interrupted: " + result);
                }
                return result;
            } catch (InterruptedException e) {
                if (!interrupted) {
                    interrupted = true;
                    future.cancelSteps();
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            }
        }
    }

    /** The chain's state, touched only by the loop thread until it completes the future. */
    static final class ChainFuture extends CompletableFuture<ChainResult> implements Submission {
        private final EventLoop loop;
        private final Op[] ops;
        /** The fd the chain names, or null: each step is a user of it from its preparation to its final CQE. */
        private final FdGuard guard;
        private final int[] links;
        private final long[] userData;
        private final int[] results;
        private final int[] held;
        private final boolean[] done;
        private int remaining;
        /** Cancelled (any thread): if not yet prepared, the chain never reaches the kernel. */
        private volatile boolean withdrawn;

        ChainFuture(EventLoop loop, Op[] ops, int[] links, FdGuard guard) {
            this.loop = loop;
            this.ops = ops;
            this.guard = guard;
            this.links = links;
            this.userData = new long[ops.length];
            this.results = new int[ops.length];
            this.held = new int[ops.length];
            this.done = new boolean[ops.length];
            this.remaining = ops.length;
        }

        /** Loop thread: reserves a slot and an SQE for every step, then writes them back to back. */
        @Override
        public void submitOn(EventLoop loop) {
            int n = ops.length;
            if (loop.closing()) {
                completeExceptionally(new RejectedExecutionException("uring4j runtime is closed: chain not submitted"));
                return;
            }
            if (withdrawn) {
                withdraw();
                return;
            }
            LoopRing io = loop.io();
            if (n > loop.ring().sq().entries() || n > io.slots()) {
                completeExceptionally(new IllegalArgumentException("a chain of " + n + " steps does not fit this loop"
                        + " (SQ " + loop.ring().sq().entries() + ", slots " + io.slots() + ")"));
                return;
            }
            if (!loop.hasSlotsOrDefer(n, this)) {
                return;
            }
            if (guard != null) {
                try {
                    guard.acquireForRequests(n);
                } catch (UncheckedIOException closed) {
                    completeExceptionally(closed.getCause());
                    return;
                }
            }
            io.makeSqRoom(n);
            for (int i = 0; i < n; i++) {
                userData[i] = io.issueStep(i, ops[i], step(i), guard, links[i]);
            }
        }

        @Override
        public FdGuard guard() {
            return guard;
        }

        @Override
        public void refuse(Throwable cause) {
            completeExceptionally(cause);
        }

        /**
         * Any thread: cancels the steps that have not completed; a chain still waiting for slots never reaches
         * the kernel, and every step reports -ECANCELED.
         */
        void cancelSteps() {
            withdrawn = true;
            loop.runOnLoop(() -> {
                if (loop.takeBack(this)) {
                    withdraw();
                    return;
                }
                for (int i = 0; i < ops.length; i++) {
                    if (!done[i] && userData[i] != 0) {
                        loop.io().cancel(userData[i]);
                    }
                }
            });
        }

        /** Cancelled before it was prepared: every step reports -ECANCELED, none reaches the kernel. */
        private void withdraw() {
            for (int i = 0; i < ops.length; i++) {
                step(i).complete(-Errno.ECANCELED, 0);
            }
        }

        private CompletionHandler step(int index) {
            return new CompletionHandler() {
                @Override
                public void complete(int result, int flags) {
                    if ((flags & CqeFlags.F_MORE) != 0) {
                        held[index] = result;     // a zero-copy send's count: its final CQE is the notification
                    } else if (!done[index]) {
                        done[index] = true;
                        results[index] = ZeroCopy.reported(result, flags, held[index]);
                        if (--remaining == 0) {
                            ChainFuture.this.complete(new ChainResult(results));
                        }
                    }
                }

                /** The runtime gave up on the step (a close that timed out): the chain ends, or no one wakes. */
                @Override
                public void failed(Throwable cause) {
                    completeExceptionally(cause);
                }
            };
        }
    }
}
