package io.uring4j.ring.abi;

/**
 * Provided-buffer rings ({@code IORING_REGISTER_PBUF_RING}): byte offsets of the ring's entries
 * ({@code struct io_uring_buf}), of the register argument ({@code struct io_uring_buf_reg}) and of the
 * status argument ({@code struct io_uring_buf_status}), and the register flags.
 */
public final class BufRingLayout {
    /** {@code struct io_uring_buf}: one entry of the ring. */
    public static final long BUF_SIZE = 16;
    public static final long BUF_ADDR = 0;         // u64
    public static final long BUF_LEN = 8;          // u32
    public static final long BUF_BID = 12;         // u16
    /** The ring's u16 tail overlays {@code bufs[0].resv}: entries are written field by field, never whole. */
    public static final long TAIL = 14;

    /** {@code struct io_uring_buf_reg}. */
    public static final long REG_SIZE = 40;
    public static final long REG_RING_ADDR = 0;    // u64
    public static final long REG_RING_ENTRIES = 8; // u32, a power of two
    public static final long REG_BGID = 12;        // u16
    public static final long REG_FLAGS = 14;       // u16 IOU_PBUF_RING_*
    public static final long REG_RESV = 16;        // u64[3], must be zero

    /** {@code struct io_uring_buf_status}. */
    public static final long STATUS_SIZE = 40;
    public static final long STATUS_BUF_GROUP = 0; // u32, in
    public static final long STATUS_HEAD = 4;      // u32, out
    public static final long STATUS_RESV = 8;      // u32[8], must be zero

    /** {@code IOU_PBUF_RING_MMAP}: the kernel allocates the buffer ring; we map it. */
    public static final int PBUF_RING_MMAP = 1;
    /** {@code IOU_PBUF_RING_INC}: buffers are consumed incrementally (6.12). */
    public static final int PBUF_RING_INC = 2;

    private BufRingLayout() {
    }
}
