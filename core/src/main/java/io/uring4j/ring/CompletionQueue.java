package io.uring4j.ring;

import io.uring4j.ring.abi.CqRingFlags;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.ring.abi.ParamsLayout;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The completion queue: reads CQEs the kernel posted and gives their slots back.
 *
 * <p>Two ordering points: the kernel tail is read with acquire (CQE contents are visible after it), and the
 * head is published with release once per batch (the kernel cannot reuse a slot before we have read it). The
 * head itself is written only by us, so we keep it in a plain field.
 *
 * <p>Not thread-safe: one thread reaps.
 */
public final class CompletionQueue {
    /** log2 of the slot size: 4 (16-byte CQEs) or 5 (CQE32). */
    private final int slotShift;
    /** CQE_MIXED: 32-byte entries take two slots and are flagged F_32; padding is flagged F_SKIP. */
    private final boolean mixed;
    private final boolean bigCqes;

    // Where the ring is: set at setup and again by a resize (IORING_REGISTER_RESIZE_RINGS), on the reaping thread.
    private MemorySegment ring;
    private long kHead;
    private long kTail;
    private long kOverflow;
    /** 0 when the kernel has no CQ flags word. */
    private long kFlags;
    private int mask;
    private int entries;
    private Cqe cursor;
    /** Where the CQE array starts in {@link #ring}. */
    private long cqes;

    private int head;

    CompletionQueue(MemorySegment ring, MemorySegment params, boolean cqe32, boolean mixed) {
        this.slotShift = cqe32 ? 5 : 4;
        this.mixed = mixed;
        this.bigCqes = cqe32 || mixed;
        remap(ring, params);
        this.head = Barriers.getAcquire(ring, kHead);
    }

    /**
     * Points at the ring at {@code ring}, laid out as {@code params} says: at setup, and after a resize, whose new
     * ring the kernel starts at the old head and tail (so {@link #head} stays right).
     */
    void remap(MemorySegment ring, MemorySegment params) {
        this.ring = ring;
        this.kHead = offset(params, ParamsLayout.CQ_HEAD);
        this.kTail = offset(params, ParamsLayout.CQ_TAIL);
        this.kOverflow = offset(params, ParamsLayout.CQ_OVERFLOW);
        this.kFlags = offset(params, ParamsLayout.CQ_FLAGS);
        this.mask = ring.get(JAVA_INT, offset(params, ParamsLayout.CQ_RING_MASK));
        this.entries = ring.get(JAVA_INT, offset(params, ParamsLayout.CQ_RING_ENTRIES));
        this.cqes = offset(params, ParamsLayout.CQ_CQES);
        // The cursor reads through the ring's own segment, the one the tail is read from: one segment object
        // (and cache line) fewer to touch per batch than a separate slice for the CQE array.
        this.cursor = new Cqe(ring, bigCqes);
    }

    private static long offset(MemorySegment params, long field) {
        return Integer.toUnsignedLong(params.get(JAVA_INT, ParamsLayout.CQ_OFF + field));
    }

    /**
     * The kernel's tail: how many CQEs (16-byte slots) the ring has ever posted, modulo 2^32. Any thread may read
     * it, as an order: a CQE at an index below a value read was posted before the read.
     */
    public int tail() {
        return Barriers.getAcquire(ring, kTail);
    }

    /** CQEs posted and not yet consumed (16-byte slots on CQE_MIXED rings). */
    public int ready() {
        return Barriers.getAcquire(ring, kTail) - head;
    }

    /**
     * Hands every CQE that is ready to {@code handler}, then releases their slots with one store.
     * Padding CQEs ({@link CqeFlags#F_SKIP}) are consumed without a call. Returns the number handled.
     */
    public int drain(CqeHandler handler) {
        return drain(handler, Integer.MAX_VALUE);
    }

    /** As {@link #drain(CqeHandler)}, handling at most {@code max} CQEs. */
    public int drain(CqeHandler handler, int max) {
        final Cqe cqe = cursor;
        final long cqes = this.cqes;
        final int mask = this.mask;
        final int shift = slotShift;
        final int start = head;
        final int tail = Barriers.getAcquire(ring, kTail);
        int h = start;
        int handled = 0;
        try {
            while (h != tail && handled < max) {
                cqe.at(cqes + ((long) (h & mask) << shift));
                if (mixed) {
                    int flags = cqe.flags();
                    h += (flags & CqeFlags.F_32) != 0 ? 2 : 1;
                    if ((flags & CqeFlags.F_SKIP) != 0) {
                        continue;
                    }
                } else {
                    h++;
                }
                handled++;
                handler.handle(cqe);
            }
        } finally {
            if (h != start) {
                head = h;
                Barriers.setRelease(ring, kHead, h);
            }
        }
        return handled;
    }

    /**
     * The CQE at the head, or {@code null} if none is ready; consumed only by {@link #advance} or
     * {@link #seen}. Leading padding CQEs are consumed here.
     */
    public Cqe peek() {
        while (true) {
            int tail = Barriers.getAcquire(ring, kTail);
            if (head == tail) {
                return null;
            }
            Cqe cqe = cursor.at(cqes + ((long) (head & mask) << slotShift));
            if (!mixed || (cqe.flags() & CqeFlags.F_SKIP) == 0) {
                return cqe;
            }
            advance(1);
        }
    }

    /** Marks the CQE returned by {@link #peek()} consumed (two slots for an F_32 entry). */
    public void seen(Cqe cqe) {
        advance(mixed && (cqe.flags() & CqeFlags.F_32) != 0 ? 2 : 1);
    }

    /** Releases {@code count} slots to the kernel (liburing's {@code io_uring_cq_advance}). */
    public void advance(int count) {
        if (count != 0) {
            head += count;
            Barriers.setRelease(ring, kHead, head);
        }
    }

    public int entries() {
        return entries;
    }

    /** CQEs the kernel could not post (dropped on overflow; with FEAT_NODROP only under memory pressure). */
    public int overflow() {
        return Barriers.getOpaque(ring, kOverflow);
    }

    /** Whether a registered eventfd is signalled for new CQEs (false after {@link #eventfdEnabled(boolean)}). */
    public boolean eventfdEnabled() {
        return kFlags == 0 || (Barriers.getOpaque(ring, kFlags) & CqRingFlags.EVENTFD_DISABLED) == 0;
    }

    /** Turns eventfd notification on or off ({@code IORING_CQ_EVENTFD_DISABLED}). */
    public void eventfdEnabled(boolean enabled) {
        if (kFlags == 0) {
            throw new UnsupportedOperationException("this kernel has no CQ flags word");
        }
        int flags = Barriers.getOpaque(ring, kFlags);
        Barriers.setRelease(ring, kFlags,
                enabled ? flags & ~CqRingFlags.EVENTFD_DISABLED : flags | CqRingFlags.EVENTFD_DISABLED);
    }
}
