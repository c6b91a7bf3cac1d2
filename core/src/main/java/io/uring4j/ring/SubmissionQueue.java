package io.uring4j.ring;

import io.uring4j.ring.abi.ParamsLayout;
import io.uring4j.ring.abi.SqRingFlags;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The submission queue: hands out SQEs and publishes them to the kernel.
 *
 * <p>Two ordering points, as in liburing: {@link #flush()} publishes the tail with a release store (SQE
 * contents before the tail), and the kernel head is read with acquire under SQPOLL — where the kernel thread
 * consumes concurrently and a slot must not be rewritten before it has been read — and opaque otherwise (it
 * moves only inside io_uring_enter). Between them, {@link #next()} touches only the SQE and local cursors.
 *
 * <p>Not thread-safe: one thread prepares and submits.
 */
public final class SubmissionQueue {
    private final boolean sqpoll;
    private final int sqeSize;

    // Where the ring is: set at setup and again by a resize (IORING_REGISTER_RESIZE_RINGS), on the submitting thread.
    private MemorySegment ring;
    private long kHead;
    private long kTail;
    private long kFlags;
    private long kDropped;
    private int mask;
    private int entries;
    private Sqe[] sqes;

    /** SQEs in [sqeHead, sqeTail) are prepared but not yet published. */
    private int sqeHead;
    private int sqeTail;
    /** Last kernel head seen; re-read only when the queue looks full. */
    private int cachedHead;

    /**
     * @param ring   the mapped SQ ring
     * @param params the io_uring_params the kernel filled in: every offset is read from there, none assumed
     */
    SubmissionQueue(MemorySegment ring, MemorySegment params, MemorySegment sqeArray, int sqeSize, boolean sqpoll) {
        this.sqpoll = sqpoll;
        this.sqeSize = sqeSize;
        remap(ring, params, sqeArray);
        this.sqeHead = this.sqeTail = this.cachedHead = Barriers.getAcquire(ring, kHead);
    }

    /**
     * Points at the ring and SQE array given, laid out as {@code params} says: at setup, and after a resize, whose
     * new ring the kernel starts at the old head and tail. Only with nothing prepared and unpublished: the SQEs
     * handed out before belong to the old array.
     */
    void remap(MemorySegment ring, MemorySegment params, MemorySegment sqeArray) {
        if (sqeHead != sqeTail) {
            throw new IllegalStateException((sqeTail - sqeHead) + " SQEs prepared but not submitted: submit first");
        }
        this.ring = ring;
        this.kHead = offset(params, ParamsLayout.SQ_HEAD);
        this.kTail = offset(params, ParamsLayout.SQ_TAIL);
        this.kFlags = offset(params, ParamsLayout.SQ_FLAGS);
        this.kDropped = offset(params, ParamsLayout.SQ_DROPPED);
        this.mask = ring.get(JAVA_INT, offset(params, ParamsLayout.SQ_RING_MASK));
        this.entries = ring.get(JAVA_INT, offset(params, ParamsLayout.SQ_RING_ENTRIES));
        this.sqes = new Sqe[entries];
        for (int i = 0; i < entries; i++) {
            sqes[i] = new Sqe(sqeArray.asSlice((long) i * sqeSize, sqeSize), i);
        }
    }

    private static long offset(MemorySegment params, long field) {
        return Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.SQ_OFF + field));
    }

    /**
     * The next free SQE, or {@code null} when the queue is full (never blocks; submit to make room). As with
     * liburing's {@code io_uring_get_sqe}, the slot still holds an earlier request: start with a prep method,
     * which writes every field but user_data, and set single fields after it.
     */
    public Sqe next() {
        if (!ring.scope().isAlive()) {
            throw new IllegalStateException("io_uring is closed: its SQEs are unmapped");
        }
        final int tail = sqeTail;
        if (tail - cachedHead >= entries) {
            cachedHead = loadHead();
            if (tail - cachedHead >= entries) {
                return null;
            }
        }
        final Sqe sqe = sqes[tail & mask];
        sqeTail = tail + 1;
        return sqe;
    }

    private int loadHead() {
        return sqpoll ? Barriers.getAcquire(ring, kHead) : Barriers.getOpaque(ring, kHead);
    }

    /**
     * Publishes prepared SQEs to the kernel (release store of the tail) and returns how many entries the kernel
     * has yet to consume — liburing's {@code __io_uring_flush_sq}.
     */
    int flush() {
        final int tail = sqeTail;
        if (sqeHead != tail) {
            sqeHead = tail;
            Barriers.setRelease(ring, kTail, tail);
        }
        return tail - Barriers.getOpaque(ring, kHead);
    }

    /** SQEs handed out and not yet consumed by the kernel. */
    public int ready() {
        return sqeTail - loadHead();
    }

    /** Free slots. */
    public int spaceLeft() {
        return entries - ready();
    }

    public int entries() {
        return entries;
    }

    /** The shared {@code IORING_SQ_*} flags word. */
    public int kernelFlags() {
        return Barriers.getOpaque(ring, kFlags);
    }

    /**
     * SQPOLL: whether the kernel thread sleeps and needs {@code IORING_ENTER_SQ_WAKEUP}. The full fence orders
     * the preceding tail store before this load (a store→load order that release/acquire does not give).
     */
    boolean needsWakeup() {
        Barriers.fullFence();
        return (Barriers.getOpaque(ring, kFlags) & SqRingFlags.NEED_WAKEUP) != 0;
    }

    /** Completions wait in the kernel's overflow list or as task_work: an enter with GETEVENTS will flush them. */
    boolean cqNeedsFlush() {
        return (Barriers.getOpaque(ring, kFlags) & (SqRingFlags.CQ_OVERFLOW | SqRingFlags.TASKRUN)) != 0;
    }

    /** SQEs the kernel dropped as invalid (an out-of-range SQ array index). */
    public int dropped() {
        return Barriers.getOpaque(ring, kDropped);
    }

    /** Writes the kernel's dropped counter (tests reproduce liburing's defer.c with it). */
    void dropped(int value) {
        Barriers.setOpaque(ring, kDropped, value);
    }
}
