package io.uring4j.net;

import io.uring4j.ring.Sqe;
import io.uring4j.ring.Timespec;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Op;
import io.uring4j.sys.Errno;
import io.uring4j.sys.Sockets;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * An asynchronous socket channel's writes made on its ring's poller — by the handlers it runs — gathered and sent
 * with the poller's next {@code io_uring_enter}, which it makes anyway: the responses to a batch of pipelined
 * requests go out in one SEND, and a response goes out with the enter that re-arms its connection's read, instead
 * of one send system call each. A write taken here completes at once, as a write into a socket's buffer does.
 *
 * <p>What is taken: a write on the poller that fits in what the chunk ({@link #CAPACITY}) has left. A write on
 * another thread, or a larger one, into an idle outbox goes as before (tried in place, else a request). A write
 * that finds bytes queued or in flight and cannot join them waits ({@link Waiter}) until they have gone, so the
 * stream keeps its order; one write is pending at a time, so at most one waits.
 *
 * <p>States: idle; queued (bytes, a SEND to be prepared just before the poller's next enter); sending (one SEND
 * in flight; bytes written meanwhile go out with the next). The outbox holds a use of the fd from its first byte
 * until it is idle again, so a close lets what was taken go out before the fd is closed, as the kernel sends a
 * closed socket's buffer — for at most the linger ({@link #lingerOnClose}), so that peers that stop reading cannot
 * hold fds and chunks for ever; a shutdown of the output follows them ({@link #shutdownWhenDrained}). A SEND
 * that fails loses what was queued, as a socket's error does, and fails every later write and shutdown of the
 * channel.
 */
final class AsyncOutbox implements Op, AsyncRing.Completion {
    static final int CAPACITY = Outbox.CAPACITY;
    /**
     * How long a closed channel's queued bytes may wait for a peer that does not read before their send is
     * cancelled and the fd closed ({@code -During4j.async.closeLingerMillis}, read at each such close): the kernel
     * likewise gives up on an orphaned socket's data in the end.
     */
    private static final String LINGER_PROPERTY = "uring4j.async.closeLingerMillis";
    private static final long LINGER_DEFAULT_MILLIS = 30_000;
    /** How soon a cancel that found the send between two requests is tried again. */
    private static final long RETRY_NANOS = 1_000_000;
    /** What {@link #offer} answers when the write goes as before. */
    static final int DIRECT = Integer.MIN_VALUE;
    /** What {@link #offer} answers when the write must wait until the outbox is idle. */
    static final int WAIT = Integer.MIN_VALUE + 1;
    private static final int IDLE = 0;
    private static final int QUEUED = 1;
    private static final int SENDING = 2;

    /** A write waiting for the outbox to be idle. */
    interface Waiter {
        /** The outbox is idle ({@code failure} 0), or a send failed with {@code failure} ({@code -errno}). */
        void proceed(int failure);
    }

    private final int fd;
    private final FdGuard guard;
    /** The one SEND request, reused: at most one is in flight. */
    private final AsyncRing.Request request = new AsyncRing.Request(this, null, 0, null, this);
    private AsyncRing ring;
    /** Native memory the SEND reads, lent by the ring from the first byte queued until the outbox is idle. */
    private SendChunks.Chunk chunk;
    private int start;
    private int end;
    private int state;
    private int failure;
    private Waiter waiter;
    /** A shutdownOutput came while bytes were queued: the output is shut down once they have gone, if they have. */
    private boolean shutdownWhenDrained;
    /** The channel closed and its linger ran out: what is left is dropped. */
    private boolean abandoned;
    /** After a close with bytes queued: the TIMEOUT request that ends the linger (one at a time), and its time. */
    private AsyncRing.Request linger;
    private MemorySegment lingerTime;

    AsyncOutbox(int fd, FdGuard guard) {
        this.fd = fd;
        this.guard = guard;
        request.preparedLast = true;
    }

    /**
     * A write of {@code total} bytes from {@code buffers[offset, offset + length)}; {@code poller}: the channel's
     * ring if the calling thread polls it, else null. Answers the bytes taken (all of them, their buffers' positions
     * moved past them), a failed send's {@code -errno}, {@link #DIRECT} or {@link #WAIT}.
     */
    int offer(ByteBuffer[] buffers, int offset, int length, long total, AsyncRing poller) {
        synchronized (this) {
            if (failure != 0) {
                return failure;
            }
            if (state != IDLE) {
                if (poller == null || waiter != null || total > CAPACITY - end) {
                    return WAIT;
                }
                take(buffers, offset, length);
                return (int) total;
            }
            if (poller == null || total > CAPACITY) {
                return DIRECT;
            }
            try {
                guard.acquire();
            } catch (ClosedChannelException closing) {
                return DIRECT;                  // the write fails as a close makes it fail
            }
            ring = poller;
            chunk = poller.chunks().take();
            state = QUEUED;
            take(buffers, offset, length);
        }
        poller.submit(request);
        return (int) total;
    }

    private void take(ByteBuffer[] buffers, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = buffers[i];
            int n = b.remaining();
            chunk.bytes().put(end, b, b.position(), n);
            b.position(b.position() + n);
            end += n;
        }
    }

    /** Ring lock, just before the enter: one SEND for everything queued. */
    @Override
    public synchronized void prepare(Sqe sqe, MemorySegment scratch) {
        state = SENDING;
        sqe.prepSend(fd, chunk.memory().asSlice(start, end - start), Sockets.MSG_NOSIGNAL);
    }

    /** The SEND's CQE, on the poller: what is left goes with the next enter, or the outbox is idle. */
    @Override
    public void completed(int result, boolean timedOut) {
        Waiter next = null;
        AsyncRing.Request lingering = null;
        boolean shut = false;
        boolean more;
        int failed;
        synchronized (this) {
            if (result >= 0) {
                start += result;
            } else if (!Outbox.tryAgain(result)) {
                failure = result;
                start = end;                    // what was queued is lost, as with a socket's error
            }
            if (start < end && (ring.stopping() || abandoned)) {
                failure = -Errno.ECANCELED;     // the group has terminated, or the linger ran out
                start = end;
            }
            more = start < end;
            if (more) {
                state = QUEUED;
            } else {
                state = IDLE;
                start = 0;
                end = 0;
                ring.chunks().give(chunk);
                chunk = null;
                next = waiter;
                waiter = null;
                lingering = linger;
                shut = shutdownWhenDrained && failure == 0;     // no FIN after lost bytes
                shutdownWhenDrained = false;
            }
            failed = failure;
        }
        if (more) {
            ring.submit(request);
            return;
        }
        if (shut) {
            Sockets.shutdown(fd, Sockets.SHUT_WR);      // as shutdownOutput would have; the peer may be gone
        }
        if (lingering != null) {
            ring.cancel(lingering);             // all sent: the linger has nothing to end
        }
        guard.release();
        if (next != null) {
            next.proceed(failed);
        }
    }

    /** Parks {@code w} until the outbox is idle; false if it is idle already (the write goes now). */
    synchronized boolean await(Waiter w) {
        if (state == IDLE) {
            return false;
        }
        waiter = w;
        return true;
    }

    /** Takes back {@code w} if it is still waiting: true if it was (it will not proceed). */
    synchronized boolean withdraw(Waiter w) {
        if (waiter != w) {
            return false;
        }
        waiter = null;
        return true;
    }

    /** The channel's close: the waiting write, to be failed, or null. What was taken still goes out. */
    synchronized Waiter closing() {
        Waiter w = waiter;
        waiter = null;
        return w;
    }

    /**
     * The channel's close: whether bytes are queued or in flight. Then the fd is held until they have gone — or
     * until the linger runs out, when their send is cancelled. With input left unread the close is a reset, as the
     * kernel's (SO_LINGER {on, 0}, for the fd's close once the send has ended), which drops unsent data: the
     * linger runs out at once.
     */
    boolean lingerOnClose() {
        AsyncRing r;
        synchronized (this) {
            if (state == IDLE) {
                return false;       // the fd closes now: the kernel resets for unread input itself
            }
            r = ring;
        }
        boolean reset = false;
        if (ChannelSockets.unreadInput(fd)) {                   // the outbox's use holds the fd open
            try {
                SocketOptions.linger(fd, 0);
                reset = true;
            } catch (IOException best) {
                // the bytes go out, and the fd's close resets for the unread input then
            }
        }
        after(r, reset ? 0 : TimeUnit.MILLISECONDS.toNanos(Long.getLong(LINGER_PROPERTY, LINGER_DEFAULT_MILLIS)));
        return true;
    }

    /**
     * Calls {@link #giveUp} after {@code nanos}, by a TIMEOUT request on {@code r}: once at the close, then from
     * the previous one's completion, so one is in flight at a time. Cancelled when the outbox is idle.
     */
    private void after(AsyncRing r, long nanos) {
        AsyncRing.Request timer;
        synchronized (this) {
            if (linger == null) {
                lingerTime = Arena.ofAuto().allocate(Timespec.SIZE, 8);
                MemorySegment ts = lingerTime;
                linger = new AsyncRing.Request((sqe, scratch) -> sqe.prepTimeout(ts, 0, 0), null, 0, null,
                        (result, timedOut) -> giveUp(r));
            }
            Timespec.set(lingerTime, nanos);
            timer = linger;
        }
        r.submit(timer);
    }

    /**
     * The linger has run out: the send in flight is cancelled and what is left dropped. A cancel that finds the
     * send between two requests (a partial send's rest, queued for the next enter) is tried again shortly.
     */
    private void giveUp(AsyncRing r) {
        synchronized (this) {
            abandoned = true;
            if (state == IDLE) {
                return;
            }
        }
        r.cancel(request);
        after(r, RETRY_NANOS);
    }

    /**
     * The channel's shutdownOutput: 0 when nothing is queued (the caller shuts the output down now), 1 when bytes
     * are (the output is shut down once they have gone, as a socket's FIN follows its buffer: the call does not
     * wait for a peer that may never read), or the {@code -errno} of a send that failed for good — the bytes it lost
     * must not be followed by a FIN as if they had gone, now or after a drain.
     */
    synchronized int shutdownWhenDrained() {
        if (failure != 0) {
            return failure;
        }
        if (state == IDLE) {
            return 0;
        }
        shutdownWhenDrained = true;
        return 1;
    }

    /** Nothing queued nor in flight. */
    synchronized boolean idle() {
        return state == IDLE;
    }
}
