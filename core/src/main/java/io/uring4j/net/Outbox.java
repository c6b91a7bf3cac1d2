package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.nio.ByteBuffer;

/**
 * A receiving channel's queued sends: a non-blocking write made while its selector is not waiting copies into
 * here and returns, and the selector's next {@code io_uring_enter} — which it makes anyway — submits one SEND for
 * what is queued; a write made while the selector waits (another thread's), or a large one into an empty outbox,
 * is a send system call as before. Bounded like a socket buffer: at most {@link #CAPACITY} bytes are queued, a
 * write takes what fits and a full outbox takes nothing (and is not writable) until its send completes.
 *
 * <p>States: idle (empty, no chunk), queued (bytes, waiting in the selector's send queue), sending (one SEND in
 * flight; bytes written meanwhile go out with the next). The chunk is native memory the SEND reads, so it goes
 * back to the selector's {@link SendChunks} only at the completion that empties the outbox. A send that fails
 * makes every later write of the channel throw, as a socket's error does. Bytes queued before a close still go
 * out: the channel's fd is closed only when its key lets go of it, after the last send — unless the close resets
 * the connection (input left unread, {@link #discard}): then they are dropped, as the kernel drops unsent data.
 */
final class Outbox {
    static final int CAPACITY = 16 * 1024;
    /** What {@link #offer} answers when the write must be a system call. */
    static final int DIRECT = Integer.MIN_VALUE;
    private static final int IDLE = 0;
    private static final int QUEUED = 1;
    private static final int SENDING = 2;

    private final Readiness readiness;
    /** The key whose selector sends for this channel; null: writes are system calls. */
    private UringSelectionKey owner;
    private SendChunks.Chunk chunk;
    private int start;
    private int end;
    private int state;
    private int failure;
    /** The channel closed with input unread, which resets the connection: what is queued is dropped, not sent. */
    private boolean discarding;

    Outbox(Readiness readiness) {
        this.readiness = readiness;
    }

    /** Selecting thread: {@code key}'s selector sends for the channel from now on. */
    synchronized void attach(UringSelectionKey key) {
        owner = key;
    }

    /**
     * Selecting thread: {@code key} is going; true if the outbox is not its (another selector's, of a channel
     * registered with two), or nothing is queued or in flight (writes are system calls again at once). Otherwise
     * the outbox stays with the key until its last send has completed.
     */
    synchronized boolean detachIfIdle(UringSelectionKey key) {
        if (owner != key) {
            return true;
        }
        if (state == QUEUED && discarding) {
            idle(true);                 // no SEND in flight: the chunk goes back now
            return true;
        }
        if (state == IDLE) {
            owner = null;
            return true;
        }
        return false;
    }

    /** The channel's close resets the connection: nothing more is sent, and the SEND in flight is to be cancelled. */
    synchronized void discard() {
        discarding = true;
    }

    synchronized boolean discarding() {
        return discarding;
    }

    /**
     * A non-blocking write of {@code src}: the bytes taken (0 when full), a failed send's {@code -errno}, or
     * {@link #DIRECT}.
     */
    int offer(ByteBuffer src) {
        return offer(null, src, 0, 1);
    }

    /**
     * A non-blocking gathering write of {@code srcs[offset, offset + length)}, in order: as {@link #offer(ByteBuffer)},
     * and nothing for no bytes ({@link #DIRECT}).
     */
    int offer(ByteBuffer[] srcs, int offset, int length) {
        return offer(srcs, null, offset, length);
    }

    /** {@code single}, or else {@code srcs[offset, offset + length)}. */
    private int offer(ByteBuffer[] srcs, ByteBuffer single, int offset, int length) {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += (single != null ? single : srcs[i]).remaining();
        }
        UringSelectionKey queueFor;
        int n = 0;
        synchronized (this) {
            if (failure != 0) {
                return failure;
            }
            if (owner == null) {
                return DIRECT;
            }
            UringSelector selector = owner.uringSelector();
            if (state == IDLE) {
                if (total == 0 || total > CAPACITY || selector.sends().waiting()) {
                    return DIRECT;
                }
                chunk = selector.sends().chunks().take();
                start = 0;
                end = 0;
            }
            for (int i = offset; i < offset + length && end < CAPACITY; i++) {
                ByteBuffer src = single != null ? single : srcs[i];
                int part = Math.min(CAPACITY - end, src.remaining());
                chunk.bytes().put(end, src, src.position(), part);
                src.position(src.position() + part);
                end += part;
                n += part;
            }
            if (end == CAPACITY) {
                readiness.forget(OpFlags.Poll.POLLOUT);
            }
            queueFor = state == IDLE ? owner : null;
            if (queueFor != null) {
                state = QUEUED;
            }
        }
        if (queueFor != null) {
            queueFor.uringSelector().sends().queue(queueFor);
        }
        return n;
    }

    /**
     * Selecting thread: how many bytes to send now, from {@link #sendAddress}, if queued (0 otherwise); the outbox
     * is then sending.
     */
    synchronized int startSend() {
        if (state != QUEUED || discarding) {
            return 0;                   // discarding: dropped when the closed channel's key is deregistered
        }
        state = SENDING;
        return end - start;
    }

    /** Selecting thread: where the bytes that {@link #startSend} or {@link #sent} counted begin. */
    synchronized long sendAddress() {
        return chunk.memory().address() + start;
    }

    /**
     * Selecting thread: the SEND completed with {@code result}: how many bytes to send next (from
     * {@link #sendAddress}), or 0 once the outbox is idle again (then detached if its key has gone, and writable).
     */
    synchronized int sent(int result, boolean keyGone) {
        if (discarding) {
            return lost(-Errno.ECANCELED, keyGone);     // the kernel is done with the chunk: it goes back
        }
        if (result > 0) {
            start += result;
        } else if (result < 0 && !tryAgain(result)) {
            return lost(result, keyGone);
        }
        return start < end ? end - start : idle(keyGone);
    }

    /**
     * A SEND's result that sent nothing and left the socket as it was: the kernel could not take the request now
     * (no memory for it). The writer was told the bytes were taken, so they go again.
     */
    static boolean tryAgain(int result) {
        return result == -Errno.ENOMEM || result == -Errno.EAGAIN;
    }

    /**
     * Selecting thread: the send failed with {@code failure}, or could not be queued. What was queued is lost, as
     * with a socket's error, and the channel's next write or shutdown says so. Returns 0: the outbox is idle.
     */
    synchronized int lost(int failure, boolean keyGone) {
        this.failure = failure;
        start = end;
        return idle(keyGone);
    }

    private int idle(boolean keyGone) {
        owner.uringSelector().sends().chunks().give(chunk);
        chunk = null;
        start = 0;
        end = 0;
        state = IDLE;
        if (keyGone) {
            owner = null;
        }
        readiness.report(OpFlags.Poll.POLLOUT);
        notifyAll();
        return 0;
    }

    /**
     * For a write in blocking mode, or a shutdown: waits until what was queued has gone (a cancelled key's last
     * sends are submitted and reaped here, by a select in progress or, if nobody selects, by the
     * {@link SendFlusher}).
     */
    synchronized void awaitDrained() throws java.io.IOException {
        while (state != IDLE) {
            owner.uringSelector().needsFlush();
            try {
                wait(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("write interrupted");
            }
        }
        if (failure != 0) {         // bytes the channel took were lost: nothing may follow them as if they had gone
            throw NetErrors.transfer("send", new ErrnoException("send", failure));
        }
    }

    /** Nothing queued nor in flight. */
    synchronized boolean idle() {
        return state == IDLE;
    }

    /**
     * Selector close: {@code key}'s sends are over (completed or cancelled); writes are system calls from now on.
     * Not {@code key}'s (another selector's, of a channel registered with two): left alone.
     */
    synchronized void abandon(UringSelectionKey key) {
        if (owner != key) {
            return;
        }
        owner = null;
        chunk = null;
        start = 0;
        end = 0;
        state = IDLE;
        notifyAll();
    }
}
