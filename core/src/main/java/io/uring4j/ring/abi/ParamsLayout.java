package io.uring4j.ring.abi;

/** Byte offsets of {@code struct io_uring_params} (120 bytes) and its two nested offset tables. */
public final class ParamsLayout {
    public static final long SIZE = 120;
    public static final long SQ_ENTRIES = 0;
    public static final long CQ_ENTRIES = 4;
    public static final long FLAGS = 8;
    public static final long SQ_THREAD_CPU = 12;
    public static final long SQ_THREAD_IDLE = 16;
    public static final long FEATURES = 20;
    public static final long WQ_FD = 24;
    public static final long SQ_OFF = 40;
    public static final long CQ_OFF = 80;

    /** {@code struct io_sqring_offsets}, relative to {@link #SQ_OFF}. */
    public static final long SQ_HEAD = 0;
    public static final long SQ_TAIL = 4;
    public static final long SQ_RING_MASK = 8;
    public static final long SQ_RING_ENTRIES = 12;
    public static final long SQ_FLAGS = 16;
    public static final long SQ_DROPPED = 20;
    public static final long SQ_ARRAY = 24;
    public static final long SQ_USER_ADDR = 32;

    /** {@code struct io_cqring_offsets}, relative to {@link #CQ_OFF}. */
    public static final long CQ_HEAD = 0;
    public static final long CQ_TAIL = 4;
    public static final long CQ_RING_MASK = 8;
    public static final long CQ_RING_ENTRIES = 12;
    public static final long CQ_OVERFLOW = 16;
    public static final long CQ_CQES = 20;
    public static final long CQ_FLAGS = 24;
    public static final long CQ_USER_ADDR = 32;

    /** mmap offsets of the three regions. */
    public static final long OFF_SQ_RING = 0;
    public static final long OFF_CQ_RING = 0x8000000L;
    public static final long OFF_SQES = 0x10000000L;
    public static final long OFF_PBUF_RING = 0x80000000L;
    public static final int OFF_PBUF_SHIFT = 16;

    /** The kernel's limits on sq_entries ({@code IORING_MAX_ENTRIES}) and cq_entries; CLAMP clamps to them. */
    public static final int MAX_ENTRIES = 32768;
    public static final int MAX_CQ_ENTRIES = 2 * MAX_ENTRIES;

    private ParamsLayout() {
    }
}
