package io.uring4j.runtime;

import io.uring4j.sys.ErrnoException;
import io.uring4j.sys.LibC;

import java.io.UncheckedIOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * An open fd and the requests using it, for the layers above the runtime (files, sockets). The fd is closed only
 * after the last of them has completed: until a request's SQE reaches the kernel it names the file by number,
 * and a number closed early can be reused by the next open — the request would then read or write someone
 * else's file. (The JDK guards the same race with its
 * NativeThreadSet and a dup2 pre-close.)
 *
 * <p>{@link #close()} refuses new users, cancels the requests in flight on every loop (a cancel by fd is itself
 * a user, so its fd lookup is safe too; it takes one of the slots kept for control requests, so it never waits
 * behind the requests it cancels), and closes the fd when the count drops to zero — at once if idle, otherwise on
 * the thread that releases last. Requests still waiting to be prepared see {@link #isClosing()} and fail without
 * reaching the kernel; those that become users only when prepared ({@link EventLoop#call(Op, FdGuard, boolean)})
 * do not hold a close up while they wait for a slot.
 *
 * <p>The users are counted as the kernel counts references with percpu_ref: striped ({@link LongAdder}), so
 * that an acquire or release — twice per request, from every thread doing I/O on the fd — touches a counter of
 * its own thread's rather than one cache line they all fight over. The exact count (a sum) is needed only once
 * the guard is closing. Acquire adds, then reads {@code closing}; close sets {@code closing}, then sums: with
 * both sides volatile, either the acquirer sees the close and backs off, or the sum sees the acquirer.
 *
 * <p>A sum reads the stripes one after another, so it is no snapshot: it may miss an add to a stripe it has
 * read and see a later subtract from one it has not. That is safe for the users that were counted before the
 * close (every sum sees their add, so it can only over-count) but not for an acquirer that backs off: its add
 * and an undo could land in different stripes and read as -1 beside a user still in flight. So a back-off
 * never subtracts; it counts itself in {@code backedOff}, which a sum reads first: a back-off seen there is
 * seen in the stripes too. Back-offs happen only once closing, so the hot path is as before.
 */
public final class FdGuard {
    /** The loops the fd's requests may run on: close cancels on each. */
    private final EventLoop[] loops;
    private final int fd;
    private final LongAdder users;
    /** Acquirers that found the guard closing: their adds to {@code users}, never subtracted. */
    private final AtomicLong backedOff = new AtomicLong();
    private volatile boolean closing;
    private final AtomicBoolean fdClosed = new AtomicBoolean();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private final CompletionHandler releaseOnCompletion = new CompletionHandler() {
        @Override
        public void complete(int result, int flags) {
            release();
        }

        @Override
        public void failed(Throwable cause) {
            release();
        }
    };

    /** Guards {@code fd}, whose requests may go to any loop of {@code uring}. */
    public FdGuard(Uring uring, int fd) {
        this(loopsOf(uring), fd, new LongAdder());
    }

    /** Guards {@code fd}, whose requests all go to {@code loop}. */
    public FdGuard(EventLoop loop, int fd) {
        this(new EventLoop[] {loop}, fd, new LongAdder());
    }

    /** With the users' counter given, for tests that read its stripes in an order they choose. */
    FdGuard(EventLoop[] loops, int fd, LongAdder users) {
        this.loops = loops;
        this.fd = fd;
        this.users = users;
    }

    private static EventLoop[] loopsOf(Uring uring) {
        EventLoop[] loops = new EventLoop[uring.loopCount()];
        for (int i = 0; i < loops.length; i++) {
            loops[i] = uring.loop(i);
        }
        return loops;
    }

    /** Registers a user of the fd and returns it; pair with {@link #release()} after the request's final CQE. */
    public int acquire() throws ClosedChannelException {
        users.increment();
        if (closing) {
            backOff(1);
            throw new ClosedChannelException();
        }
        return fd;
    }

    /**
     * Loop thread, as {@code n} requests on this fd (one, or a chain's steps) are prepared: each becomes a user (as
     * the kernel looks a file up when it issues a request) until its slot is released, or all fail with
     * ClosedChannelException — unchecked, since a prepare cannot throw it. One check for all: a chain is written
     * whole or not at all.
     */
    void acquireForRequests(int n) {
        users.add(n);
        if (closing) {
            backOff(n);
            throw new UncheckedIOException(new ClosedChannelException());
        }
    }

    /**
     * Submits a control request that names this fd by number (a cancel of some of its requests): it is a user of
     * the fd from now to its CQE, and takes a slot kept for control requests, so it never waits behind the
     * requests it is there to end. Nothing happens once the fd is closing (the close cancels everything).
     */
    public void submitControl(EventLoop loop, Op op) {
        try {
            acquire();
        } catch (ClosedChannelException closing) {
            return;
        }
        try {
            loop.submitControl(op, releaseOnCompletion);
        } catch (RejectedExecutionException runtimeClosed) {
            release();
        }
    }

    public void release() {
        users.decrement();
        if (closing) {
            closeIfUnused();
        }
    }

    /** Undoes {@code n} adds made after the close, without a subtract (see the class comment). */
    private void backOff(int n) {
        backedOff.addAndGet(n);
        closeIfUnused();
    }

    private void closeIfUnused() {
        if (count() == 0 && fdClosed.compareAndSet(false, true)) {
            closeFd();
        }
    }

    /** The users now or more, never fewer: {@code backedOff} first, so that the sum holds every add it counts. */
    private long count() {
        long backOffs = backedOff.get();
        return users.sum() - backOffs;
    }

    public boolean isClosing() {
        return closing;
    }

    /** The fd, for reporting and for callers that manage their own requests; it may be closed already. */
    public int fd() {
        return fd;
    }

    /**
     * Starts closing (idempotent) and returns a future completed once the fd is closed — with the close error, if
     * {@code close(2)} reported one.
     */
    public CompletableFuture<Void> close() {
        synchronized (this) {
            if (closing) {
                return closed;
            }
            // One user per loop for its cancel, taken before closing is seen: the users in flight cannot all
            // release (and close the fd) before the cancels have looked the fd up.
            users.add(loops.length);
            closing = true;
        }
        for (EventLoop loop : loops) {
            loop.refuseSlotWaiters(this);
        }
        if (count() == loops.length) {      // idle: no request names the fd, so no cancel is needed
            for (int i = 0; i < loops.length; i++) {
                release();
            }
            return closed;
        }
        for (EventLoop loop : loops) {
            try {
                loop.submitControl(Op.cancelFd(fd), releaseOnCompletion);     // never waits for a slot
            } catch (RejectedExecutionException runtimeClosed) {
                release();                      // a closed runtime has cancelled everything itself
            }
        }
        return closed;
    }

    private void closeFd() {
        int ret = LibC.close(fd);
        if (ret < 0) {
            closed.completeExceptionally(new ErrnoException("close", ret));
        } else {
            closed.complete(null);
        }
    }
}
