package io.uring4j.portable;

import java.lang.foreign.MemorySegment;

/**
 * Our io_kiocb: one in-flight request. Preallocated per ring (see {@link RequestPool}) and reused, so submitting
 * allocates nothing. The SQE is copied in at submission (FEAT_SUBMIT_STABLE: the application may reuse the slot
 * as soon as enter returns).
 *
 * <p>Size, with compressed oops: a 12-byte header, 4 longs (32), 14 ints (56), 6 bytes and 5 references (20):
 * 126, padded to 128 bytes — two cache lines, little over half the kernel's 224-byte io_kiocb. READV/WRITEV add the
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
    /** Executing (in enter, on a worker or the poller): a blocking syscall cannot be interrupted, so cancel waits. */
    static final byte RUNNING = 4;
    /** A TIMEOUT or LINK_TIMEOUT armed on the timer. */
    static final byte ARMED = 5;
    /** Waiting on the {@link Poller} for its fd to become ready. */
    static final byte POLLING = 6;
    /** Found ready by the poller, waiting for the issuer's next enter to run again (COOP_TASKRUN task work). */
    static final byte READY = 7;

    // ---- copied from the SQE ----
    long userData;
    long off;
    long addr;
    /**
     * A timer deadline (System.nanoTime) while ARMED; while QUEUED or RUNNING on the io-wq, its work class
     * instead ({@link WorkQueue#workClass}: the file's hash for a write that is serialized). Never both at once.
     */
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
    /** Bytes a read or write (or a MSG_WAITALL send or receive) asked for: fewer fails a link, as in the kernel. */
    int wanted;
    /** The SQE's ioprio: multishot and poll-first flags of socket opcodes. */
    int ioprio;
    /** Flags of the final CQE (F_BUFFER and the buffer id of a buffer-select receive). */
    int cqeFlags;
    /** While POLLING: the fd armed on and the events waited for. */
    int pollFd;
    int pollEvents;
    /**
     * The poller round in which a wake-up took this request off {@link #pollFd} (0: none). Only such a request
     * may wait on that fd again in the same round without an epoll_ctl: any other could be on a new file that
     * reused the number after the old one was closed, which the epoll set has never seen.
     */
    int firedRound;
    /** What the poller saw when it woke this request (0 before any wait): POLL_ADD's result, connect's cue. */
    int revents;
    /**
     * Op-specific progress across waits: a connect under way (1), the bytes a MSG_WAITALL transfer has done;
     * MSG_RING's source slot ({@code addr3}).
     */
    int progress;
    byte opcode;
    byte sqeFlags;
    byte state;
    /**
     * Set by cancel or an expired LINK_TIMEOUT (under the ring lock) for a request already on its way to run:
     * it stops before executing or when it would arm a wait on the {@link Poller}.
     */
    volatile boolean cancelRequested;
    /** A multishot POLL_ADD: armed on its own edge-triggered registration, it posts and stays armed. */
    boolean multishotPoll;
    /**
     * Its fixed file was looked up ({@link FileTable#fd}): {@code fd} is now the registered fd it holds, kept
     * open for it until it ends, and FIXED_FILE is cleared.
     */
    boolean fileHeld;

    // ---- chain and queue links ----
    /** The next request of a link chain (the kernel's {@code link}); runs when this one completes. */
    Request link;
    /** Next in the io-wq queue, the drain list or the timer list (a request is in at most one). */
    Request nextQueued;
    /** The LINK_TIMEOUT guarding this request, or, on a LINK_TIMEOUT, the request it guards. */
    Request linkTimeout;
    /** An ASYNC_CANCEL waiting for this RUNNING request to finish: it answers 0 if we end -ECANCELED. */
    Request canceller;
    /**
     * User memory the kernel copies at prep: READV/WRITEV's iovecs, OPENAT2's open_how, BIND's address, a
     * multishot RECVMSG's msghdr lengths; grown on demand, reused.
     */
    MemorySegment iov;

    void reset() {
        link = null;
        nextQueued = null;
        linkTimeout = null;
        canceller = null;
        countLeft = 0;
        cancelRequested = false;
        multishotPoll = false;
        fileHeld = false;
        cqeFlags = 0;
        revents = 0;
        firedRound = 0;
        progress = 0;
        wanted = 0;             // only the opcodes that can come up short set it
        state = FREE;
    }
}
