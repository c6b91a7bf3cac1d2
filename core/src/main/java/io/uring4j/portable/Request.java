package io.uring4j.portable;

import java.lang.foreign.MemorySegment;

/**
 * Our io_kiocb: one in-flight request. Preallocated per ring (see {@link RequestPool}) and reused, so submitting
 * allocates nothing. The SQE is copied in at submission (FEAT_SUBMIT_STABLE: the application may reuse the slot
 * as soon as enter returns).
 *
 * <p>Size, with compressed oops: a 12-byte header, 4 longs (32), 9 ints (36), 4 bytes and 5 references (20):
 * 104 bytes — under two cache lines, half the kernel's 224-byte io_kiocb. READV/WRITEV add the
 * iovec copy, kept across reuse.
 */
final class Request {
    static final byte FREE = 0;
    /** Waiting for an IO_DRAIN barrier. */
    static final byte DEFERRED = 1;
    /** In a link chain, waiting for its predecessor. */
    static final byte LINKED = 2;
    /** In the io-wq queue, not yet picked up: cancellable. */
    static final byte QUEUED = 3;
    /** Executing on a worker: a blocking syscall cannot be interrupted, so cancel answers EALREADY. */
    static final byte RUNNING = 4;
    /** A TIMEOUT or LINK_TIMEOUT armed on the timer. */
    static final byte ARMED = 5;

    // ---- copied from the SQE ----
    long userData;
    long off;
    long addr;
    /** A timer deadline (System.nanoTime) while ARMED. */
    long deadline;
    int fd;
    int len;
    int opFlags;
    int bufIndex;
    int fileIndex;
    /** TIMEOUT with a completion count: CQEs still to be posted before it fires with 0. */
    int countLeft;
    /** Index in the ring's pool, for the free list. */
    int slot;
    /** Bytes a read or write asked for: fewer fails a link, as in the kernel. */
    int wanted;
    byte opcode;
    byte sqeFlags;
    byte state;
    /**
     * Set by cancel or an expired LINK_TIMEOUT (under the ring lock) for a request already on its way to run:
     * it stops before executing or while waiting for readiness ({@link Readiness}).
     */
    volatile boolean cancelRequested;
    /** The eventfd that wakes this request's worker out of its readiness wait; -1 when not waiting. */
    int wakeFd = -1;

    // ---- chain and queue links ----
    /** The next request of a link chain (the kernel's {@code link}); runs when this one completes. */
    Request link;
    /** Next in the io-wq queue, the drain list or the timer list (a request is in at most one). */
    Request nextQueued;
    /** The LINK_TIMEOUT guarding this request, or, on a LINK_TIMEOUT, the request it guards. */
    Request linkTimeout;
    /** An ASYNC_CANCEL waiting for this RUNNING request to finish: it answers 0 if we end -ECANCELED. */
    Request canceller;
    /** READV/WRITEV: the iovecs, copied at submission as the kernel imports them; grown on demand, reused. */
    MemorySegment iov;

    void reset() {
        link = null;
        nextQueued = null;
        linkTimeout = null;
        canceller = null;
        countLeft = 0;
        cancelRequested = false;
        wakeFd = -1;
        state = FREE;
    }
}
