package io.uring4j.portable;

/**
 * Where the portable engine puts things: the kernel's {@code struct io_rings} layout (6.x), reported through
 * io_uring_params exactly as the kernel reports it, and the params fields it fills in. The ring core reads every
 * offset from the params, so these are our choice — we choose the kernel's, so that a ring dump reads the same.
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
    static final int CQE_SIZE = 16;
    static final int SQE_SIZE = 64;

    // struct io_uring_params
    static final long P_SQ_ENTRIES = 0;
    static final long P_CQ_ENTRIES = 4;
    static final long P_FLAGS = 8;
    static final long P_FEATURES = 20;
    static final long P_SQ_OFF = 40;
    static final long P_CQ_OFF = 80;

    // mmap offsets
    static final long OFF_SQ_RING = 0;
    static final long OFF_CQ_RING = 0x8000000L;
    static final long OFF_SQES = 0x10000000L;

    static final int MAX_SQ_ENTRIES = 32768;
    static final int MAX_CQ_ENTRIES = 2 * MAX_SQ_ENTRIES;

    private RingLayout() {
    }
}
