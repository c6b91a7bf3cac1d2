package io.uring4j.net;

import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.OpFlags;
import io.uring4j.runtime.CompletionHandler;
import io.uring4j.runtime.EventLoop;
import io.uring4j.runtime.FdGuard;

import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * How a blocking socket channel's read waits for bytes: a multishot POLLIN on the channel's loop, armed by the
 * first read that finds nothing and standing while arrivals find the reader waiting for them (a request and its
 * answer, and so on), until the channel closes or turns non-blocking. Each of its completions marks the socket
 * readable and unparks the reader, which then reads in place. A read that finds nothing again only parks: it
 * hands nothing to the loop (no RECV per read, so no hand-over that wakes the loop), and the loop's one wake-up
 * per arrival is the poll's completion.
 *
 * <p>The reader clears the mark before it tries the socket and parks only while the mark is still clear; the loop
 * sets the mark before it looks for a reader to unpark. Both are volatile, so either the reader sees the mark or
 * the loop sees the reader: an arrival between the try and the park is never missed. A mark left over from bytes
 * already read only costs one more try. The poll is a user of the channel's fd ({@link FdGuard}): a close cancels
 * it, and its last completion wakes the reader, who finds the channel closed.
 */
final class ReadWait implements CompletionHandler {
    private static final int IDLE = 0;
    private static final int ARMING = 1;
    private static final int ARMED = 2;
    /** Cancelled, its last completion still to come (which wakes the reader, who then arms it again). */
    private static final int CANCELLING = 3;

    private final EventLoop loop;
    private final FdGuard guard;
    private volatile Thread reader;
    private volatile boolean readable;
    private volatile int state = IDLE;
    /** Whether the poll should stand: false once the channel turned non-blocking, so a late arming is skipped. */
    private volatile boolean wanted;
    /** The poll's user_data while armed, for a cancel; written and read on the loop thread. */
    private long userData;

    ReadWait(EventLoop loop, FdGuard guard) {
        this.loop = loop;
        this.guard = guard;
    }

    /** Reader: forgets the last mark, before it tries the socket. */
    void consume() {
        readable = false;
    }

    /**
     * Reader: parks until the socket is marked readable (arming the poll first if it is not), its thread is
     * interrupted, or, if {@code timed}, {@code deadline} ({@link System#nanoTime()}) passes. Returns false once past
     * the deadline. The caller tries the socket again either way.
     *
     * @throws ClosedChannelException if the runtime is closed, so that no poll can be armed
     */
    boolean await(boolean timed, long deadline) throws ClosedChannelException {
        reader = Thread.currentThread();         // first: the poll's first arrival must find the reader waiting
        try {
            if (state == IDLE) {
                arm();
            }
            while (!readable && !Thread.currentThread().isInterrupted() && state != IDLE) {
                if (!timed) {
                    LockSupport.park(this);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    LockSupport.parkNanos(this, left);
                }
            }
            return true;
        } finally {
            reader = null;
        }
    }

    /** Any thread: the poll goes (the channel turns non-blocking); a later wait arms it again. */
    void disarm() {
        wanted = false;
        if (state == IDLE) {
            return;
        }
        try {
            loop.execute(() -> {
                if (state == ARMED) {
                    state = CANCELLING;
                    loop.cancel(userData);
                }
            });
        } catch (RejectedExecutionException runtimeClosed) {
            // the runtime's close has cancelled every request
        }
    }

    private void arm() throws ClosedChannelException {
        state = ARMING;
        wanted = true;
        try {
            loop.execute(() -> {
                if (!wanted) {
                    state = IDLE;
                    return;
                }
                try {
                    loop.submitStanding((sqe, scratch) -> {
                        sqe.prepPollMultishot(guard.fd(), OpFlags.Poll.POLLIN);
                        userData = sqe.userData();
                        state = ARMED;
                    }, this, guard);
                } catch (RejectedExecutionException closing) {
                    failed(closing);            // the loop's last tasks run as it closes: the reader must hear
                }
            });
        } catch (RejectedExecutionException runtimeClosed) {
            state = IDLE;
            throw (ClosedChannelException) new ClosedChannelException().initCause(runtimeClosed);
        }
    }

    /**
     * Loop thread: an arrival (or the poll's end: a cancel, a close, an error), for the reader to try. An arrival
     * that finds no reader waiting ends the poll: the reader is busy with bytes already there (a stream), and its
     * in-place reads need no loop — every further arrival would only wake the loop for nothing. Its next wait arms
     * the poll again.
     */
    @Override
    public void complete(int result, int flags) {
        if ((flags & CqeFlags.F_MORE) == 0) {
            state = IDLE;
        } else if (reader == null && state == ARMED) {
            state = CANCELLING;
            loop.cancel(userData);
        }
        wake();
    }

    /** Loop thread: the poll was never armed (the channel was closing). */
    @Override
    public void failed(Throwable cause) {
        state = IDLE;
        wake();
    }

    private void wake() {
        readable = true;
        Thread waiting = reader;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
    }
}
