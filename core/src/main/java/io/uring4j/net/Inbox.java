package io.uring4j.net;

import io.uring4j.ring.abi.OpFlags;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The bytes a selector's multishot receive delivered for one socket channel, until the channel's reads take
 * them: a read then copies what the kernel already delivered instead of calling recv, and finding nothing costs
 * no system call either. The selector copies each provided buffer in here as it reaps it and hands the buffer
 * back to its ring at once, so no buffer of the selector's is ever held by a channel or another thread.
 *
 * <p>While a receive is armed (from the preparation of its SQE to its final CQE) the socket belongs to it: the
 * channel must not call recv itself, or bytes could be taken out of order. Once it has ended (end of stream, an
 * error, ENOBUFS, a cancel) the channel reads what is left here, then asks the socket again. The cached POLLIN
 * readiness follows this state exactly: set while there is something to read here (bytes, end of stream or an
 * error), cleared when the last byte is taken. Memory is bounded: a receive is armed for the room left below
 * {@link #HIGH_WATER} bytes and ends by itself there (to within a buffer; where the kernel has no such limit, the
 * selector cancels it, and bytes the kernel took meanwhile still come); the peer's bytes then wait in the socket,
 * and TCP slows the peer; the receive is armed again once the reads have taken half. An emptied inbox gives its
 * array back to the selector's {@link InboxArrays}.
 */
final class Inbox {
    /** What {@link #take} answers when the socket itself must be asked: nothing here, and no receive armed. */
    static final int ASK_SOCKET = Integer.MIN_VALUE;
    /** End of stream. */
    static final int EOF = -1;
    static final int HIGH_WATER = 64 * 1024;

    private final Readiness readiness;
    private byte[] data;
    /** Where {@link #data} came from, and goes back to once the reads have emptied it. */
    private InboxArrays lender;
    private int start;
    private int end;
    /** A receive is armed: it may still deliver, so the socket must not be read directly. */
    private boolean armed;
    /** The key whose selector armed the receive (woken by a blocking read that waits for the receive to end). */
    private UringSelectionKey owner;
    private boolean eof;
    /** The {@code -errno} that ended the receive, for the next read to throw once the bytes before it are taken. */
    private int failure;

    Inbox(Readiness readiness) {
        this.readiness = readiness;
    }

    /**
     * Selecting thread: a receive is about to be armed for {@code owner}; the bytes it may bring (the room below
     * {@link #HIGH_WATER}), or 0 if there is no point (yet), or the key has been cancelled since the select looked
     * at it: its channel may have turned blocking, and a read that found nothing here asks the socket.
     */
    synchronized int arm(UringSelectionKey owner) {
        if (armed || eof || failure != 0 || end - start >= HIGH_WATER || !owner.isValid()) {
            return 0;
        }
        armed = true;
        this.owner = owner;
        return HIGH_WATER - (end - start);
    }

    /**
     * Selecting thread: {@code buffer[offset, offset + length)} received, into an array of {@code arrays} (or a
     * larger one of its own); true if the inbox is now full.
     */
    synchronized boolean append(InboxArrays arrays, MemorySegment buffer, long offset, int length) {
        if (data == null) {
            lender = arrays;
            data = length <= InboxArrays.SIZE ? arrays.take() : new byte[length];
        } else if (end + length > data.length) {
            int pending = end - start;
            byte[] grown = pending + length > data.length ? new byte[Math.max(data.length * 2, pending + length)] : data;
            System.arraycopy(data, start, grown, 0, pending);
            if (grown != data) {
                lender.give(data);
            }
            data = grown;
            start = 0;
            end = pending;
        }
        MemorySegment.copy(buffer, JAVA_BYTE, offset, data, end, length);
        end += length;
        readiness.report(OpFlags.Poll.POLLIN);
        notifyAll();
        return end - start >= HIGH_WATER;
    }

    /**
     * Selecting thread: the receive has ended with {@code result} (its final CQE's): 0 end of stream, a
     * {@code -errno} to report, or ENOBUFS / ECANCELED / a final data CQE, after which it may be armed again.
     */
    synchronized void ended(int result, boolean again) {
        armed = false;
        if (result == 0) {
            eof = true;
        } else if (result < 0 && !again) {
            failure = result;
        }
        if (eof || failure != 0) {
            readiness.report(OpFlags.Poll.POLLIN);
        }
        notifyAll();
    }

    /**
     * For a read in blocking mode: waits while a receive is armed and has delivered nothing. Only a cancelled
     * key's receive can still be armed in blocking mode; this ends it, or wakes the select in progress to.
     */
    synchronized void awaitDelivery() throws java.io.IOException {
        while (end == start && armed) {
            owner.uringSelector().endCancelledReceive(owner);   // or has its selector's next select end it
            if (!armed) {
                break;
            }
            try {
                wait(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("read interrupted");
            }
        }
    }

    /**
     * A read into {@code dst}: the bytes here (up to its room), else 0 while a receive is armed, {@link #EOF},
     * a failure's {@code -errno} (once), or {@link #ASK_SOCKET}.
     */
    synchronized int take(ByteBuffer dst) {
        if (end > start) {
            int n = Math.min(end - start, dst.remaining());
            dst.put(data, start, n);
            consumed(n);
            return n;
        }
        return nothing();
    }

    /** As {@link #take(ByteBuffer, boolean)} (non-blocking), spreading the bytes over {@code dsts} in order. */
    synchronized long take(ByteBuffer[] dsts, int offset, int length) {
        if (end == start) {
            return nothing();
        }
        long total = 0;
        for (int i = offset; i < offset + length && end > start; i++) {
            int n = Math.min(end - start, dsts[i].remaining());
            dsts[i].put(data, start, n);
            consumed(n);
            total += n;
        }
        return total;
    }

    private int nothing() {
        if (armed) {
            return 0;
        }
        if (failure != 0) {
            int f = failure;
            failure = 0;
            return f;
        }
        return eof ? EOF : ASK_SOCKET;
    }

    private void consumed(int n) {
        int before = end - start;
        start += n;
        if (start == end) {
            lender.give(data);
            data = null;                     // an idle connection keeps no array
            start = 0;
            end = 0;
            if (!eof && failure == 0) {
                readiness.forget(OpFlags.Poll.POLLIN);
            }
        }
        if (!armed && before >= HIGH_WATER / 2 && end - start < HIGH_WATER / 2 && owner != null
                && !eof && failure == 0) {
            owner.resumeReceive();              // paused at the high-water mark: arm the receive again
        }
    }

    /** Bytes waiting here. */
    synchronized int available() {
        return end - start;
    }

    /** Whether a receive is armed (its reads must come from here). */
    synchronized boolean armed() {
        return armed;
    }
}
