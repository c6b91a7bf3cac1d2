package io.uring4j.ring;

/** Byte offsets of {@code struct io_uring_params} (120 bytes) and its two nested offset tables. */
final class ParamsLayout {
    static final long SIZE = 120;
    static final long SQ_ENTRIES = 0;
    static final long CQ_ENTRIES = 4;
    static final long FLAGS = 8;
    static final long SQ_THREAD_CPU = 12;
    static final long SQ_THREAD_IDLE = 16;
    static final long FEATURES = 20;
    static final long WQ_FD = 24;
    static final long SQ_OFF = 40;
    static final long CQ_OFF = 80;

    /** {@code struct io_sqring_offsets}, relative to {@link #SQ_OFF}. */
    static final long SQ_HEAD = 0;
    static final long SQ_TAIL = 4;
    static final long SQ_RING_MASK = 8;
    static final long SQ_RING_ENTRIES = 12;
    static final long SQ_FLAGS = 16;
    static final long SQ_DROPPED = 20;
    static final long SQ_ARRAY = 24;
    static final long SQ_USER_ADDR = 32;

    /** {@code struct io_cqring_offsets}, relative to {@link #CQ_OFF}. */
    static final long CQ_HEAD = 0;
    static final long CQ_TAIL = 4;
    static final long CQ_RING_MASK = 8;
    static final long CQ_RING_ENTRIES = 12;
    static final long CQ_OVERFLOW = 16;
    static final long CQ_CQES = 20;
    static final long CQ_FLAGS = 24;
    static final long CQ_USER_ADDR = 32;

    /** mmap offsets of the three regions. */
    static final long OFF_SQ_RING = 0;
    static final long OFF_CQ_RING = 0x8000000L;
    static final long OFF_SQES = 0x10000000L;
    static final long OFF_PBUF_RING = 0x80000000L;
    static final int OFF_PBUF_SHIFT = 16;

    private ParamsLayout() {
    }
}
