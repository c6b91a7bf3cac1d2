package io.uring4j.net;

import io.uring4j.sys.ErrnoException;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link UringSelector}'s queued sends ({@link Outbox}): the outboxes waiting for a SEND, which the selector's
 * next enter submits; whether that enter is waiting (then a write is a system call instead, so that it never waits
 * for a select); and what the {@link SendFlusher} needs to tell a selector that has not selected since it looked.
 * The selecting-thread methods run under the selector's select lock.
 */
final class SelectorSends {
    /** Marks a send's user_data; the low half is its key's slot (one SEND per key in flight at a time). */
    static final long SEND = 1L << 61;
    /** Selector close: rounds of 1 ms given to the sends in flight; the cancel after the tenth of them. */
    private static final int SETTLE_ROUNDS = 1000;
    private static final int CANCEL_ROUND = 100;

    private final UringSelector selector;
    private final SelectorRing ring;
    /** Keys whose outbox has bytes queued and no SEND yet; under its own monitor (a node per write otherwise). */
    private final ArrayDeque<UringSelectionKey> queued = new ArrayDeque<>();
    /** A select is waiting in the kernel: a write now would wait for it, so it is a system call instead. */
    private volatile boolean waiting;
    /** Enters that have submitted the queued sends, for the flusher to tell whether one came since it looked. */
    private volatile long flushes;
    private long flusherSaw = -1;
    /** A blocking write waits for the sends to complete. */
    private volatile boolean drainWanted;
    private SendChunks chunks;
    /** Selecting thread: SENDs submitted whose CQE has not been reaped. */
    private int inFlight;
    /** Selecting thread: the selector is closing; an outbox its last send empties is let go at once. */
    private boolean ending;

    SelectorSends(UringSelector selector, SelectorRing ring) {
        this.selector = selector;
        this.ring = ring;
    }

    /**
     * Selecting thread: the select's enter, which submits the queued sends too. While it waits, writes are
     * system calls: a write that found it not waiting, and queued, is seen by the check after the flag is set,
     * or wakes it.
     */
    void enter(long wait) throws ErrnoException {
        flush();
        if (wait != 0) {
            waiting = true;
            if (anyQueued()) {
                flush();
            }
        }
        try {
            ring.enter(wait);
        } finally {
            waiting = false;
        }
    }

    /**
     * Selecting thread: one SEND for each outbox queued since the last enter. A deregistered key's is not: its
     * deregistration sent it ({@link #send}), and its slot may be gone.
     */
    void flush() throws ErrnoException {
        UringSelectionKey key;
        while ((key = nextQueued()) != null) {
            if (!key.dead) {
                send(key);
            }
        }
        flushes++;
    }

    /**
     * Selecting thread: the SEND of {@code key}'s outbox if bytes are queued, on the send queue yet or not (a
     * writer puts it there after it has queued the bytes).
     */
    void send(UringSelectionKey key) throws ErrnoException {
        int length = key.link.outbox.startSend();
        if (length > 0) {
            key.sendUserData = SEND | key.slot;
            ring.send(key.link.guard.fd(), key.link.outbox.sendAddress(), length, key.sendUserData);
            key.pollsInFlight++;
            inFlight++;
        }
    }

    /**
     * Selecting thread: a SEND of {@code key}'s outbox completed; what was queued meanwhile goes out at once. True
     * once the outbox is idle (the key's send has ended).
     */
    boolean sent(UringSelectionKey key, int res) {
        int next = key.link.outbox.sent(res, key.dead || ending);
        if (next > 0) {
            try {
                ring.send(key.link.guard.fd(), key.link.outbox.sendAddress(), next, key.sendUserData);
                return false;
            } catch (ErrnoException e) {
                key.link.outbox.lost(-Math.abs(e.errno()), key.dead);
            }
        }
        key.pollsInFlight--;
        inFlight--;
        key.link.drained();
        return true;
    }

    private boolean anyQueued() {
        synchronized (queued) {
            return !queued.isEmpty();
        }
    }

    private UringSelectionKey nextQueued() {
        synchronized (queued) {
            return queued.poll();
        }
    }

    /** A write queued bytes in {@code key}'s outbox (any thread). */
    void queue(UringSelectionKey key) {
        synchronized (queued) {
            queued.add(key);
        }
        if (waiting) {
            selector.wakeup();          // began to wait before the send was queued: it would wait for nothing
        } else {
            SendFlusher.pending(selector);
        }
    }

    boolean waiting() {
        return waiting;
    }

    /** The native memory of the outboxes (any thread). */
    synchronized SendChunks chunks() {
        if (chunks == null) {
            chunks = new SendChunks();
        }
        return chunks;
    }

    /**
     * A blocking write waits for the sends (any thread): submitted and reaped here unless a select is in progress
     * (the writer may itself hold the select, in one of its actions), else by that select or, if nobody selects,
     * the flusher.
     */
    void needsFlush(ReentrantLock selectLock, SelectorRing.Handler completions) throws ErrnoException {
        if (selectLock.tryLock()) {
            try {
                if (selector.isOpen()) {
                    submitAndReap(completions);
                }
                return;
            } finally {
                selectLock.unlock();
            }
        }
        drainWanted = true;
        selector.wakeup();
        SendFlusher.drainWanted(selector);
    }

    /** Something for the flusher: sends queued, a blocking write waiting for them, or an fd waiting for CQEs. */
    boolean wanted() {
        return drainWanted || anyQueued() || selector.releasesAwaited();
    }

    /**
     * The flusher's look: unless a select has entered since its last look, or one is in progress (holding
     * {@code selectLock}), submits the queued sends and reaps as a select would (a blocking write waiting for the
     * sends needs their CQEs reaped).
     */
    SendFlusher.Look flusherLook(ReentrantLock selectLock, SelectorRing.Handler completions) {
        long seen = flushes;
        boolean entered = seen != flusherSaw;
        flusherSaw = seen;
        if (!selector.isOpen()) {
            return SendFlusher.Look.QUIET;
        }
        if (entered && !drainWanted) {
            return SendFlusher.Look.SELECTING;
        }
        if (!wanted()) {
            return SendFlusher.Look.QUIET;
        }
        if (!selectLock.tryLock()) {
            return SendFlusher.Look.SELECTING;
        }
        try {
            if (!selector.isOpen()) {
                return SendFlusher.Look.QUIET;
            }
            drainWanted = false;
            submitAndReap(completions);
            selector.expireLingers();
            flusherSaw = flushes;
        } catch (ErrnoException e) {
            throw new IllegalStateException(e);
        } finally {
            selectLock.unlock();
        }
        return SendFlusher.Look.FLUSHED;
    }

    /**
     * Under the select lock, outside a select (a blocking write's, the flusher's): submits the queued sends and reaps
     * their completions, as a select does.
     */
    private void submitAndReap(SelectorRing.Handler completions) throws ErrnoException {
        flush();
        ring.enter(0);
        ring.reap(completions);
    }

    /**
     * Selector close, under the select lock: submits what is queued and gives the sends in flight a moment to
     * complete; those that do not (a peer that does not read) are cancelled. The outboxes let go of the channels:
     * an idle one at once, so that a write from now on is a system call, not bytes queued for a send that never
     * comes; the others once their last send has completed.
     */
    void end(UringSelectionKey[] slots, SelectorRing.Handler completions) {
        ending = true;
        try {
            for (UringSelectionKey key : slots) {
                if (key != null && key.link.outbox != null && !key.link.outbox.detachIfIdle(key)) {
                    send(key);          // queued, on the send queue yet or not (a writer puts it there after)
                }
            }
            for (int i = 0; inFlight > 0 && i < SETTLE_ROUNDS; i++) {
                ring.enter(i == 0 ? 0 : TimeUnit.MILLISECONDS.toNanos(1));
                ring.reap(completions);
                if (i == CANCEL_ROUND) {
                    for (UringSelectionKey key : slots) {
                        if (key != null && key.sendUserData != 0 && !key.link.outbox.idle()) {
                            ring.cancel(key.sendUserData);
                        }
                    }
                }
            }
        } catch (ErrnoException | RuntimeException e) {
            // the ring is unusable: the chunks are left to the process (see freeChunks)
        }
        for (UringSelectionKey key : slots) {
            if (key != null && key.link.outbox != null) {
                key.link.outbox.abandon(key);
            }
        }
    }

    int inFlight() {
        return inFlight;
    }

    /** Selector close, once no send can read the chunks any more. */
    synchronized void freeChunks() {
        if (chunks != null) {
            chunks.close();
        }
    }
}
