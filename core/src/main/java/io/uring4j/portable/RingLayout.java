package io.uring4j.portable;

/**
 * Where the portable engine puts things in the ring region: the kernel's {@code struct io_rings} layout (6.x),
 * reported through io_uring_params ({@code ParamsLayout}) exactly as the kernel reports it. The ring core reads
 * every offset from the params, so these are our choice — we choose the kernel's, so that a ring dump reads the
 * same.
 */
final class RingLayout {
    // struct io_rings: sq {head, tail}, cq {head, tail}, masks, entries, dropped, flags, then the CQEs.
    static final int SQ_HEAD = 0;
    static final int SQ_TAIL = 4;
    static final int CQ_HEAD = 8;
    static final int CQ_TAIL = 12;
    static final int SQ_RING_MASK = 16;
    static final int CQ_RING_MASK = 20;
    static final int SQ_RING_ENTRIES = 24;
    static final int CQ_RING_ENTRIES = 28;
    static final int SQ_DROPPED = 32;
    static final int SQ_FLAGS = 36;
    static final int CQ_FLAGS = 40;
    static final int CQ_OVERFLOW = 44;
    static final int CQES = 64;

    private RingLayout() {
    }
}
