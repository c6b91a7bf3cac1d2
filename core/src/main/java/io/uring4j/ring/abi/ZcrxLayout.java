package io.uring4j.ring.abi;

/**
 * Zero-copy receive (6.15): the structs of {@code IORING_REGISTER_ZCRX_IFQ} and of its refill queue, as the
 * uapi header lays them out. Reserved fields must be zero.
 */
public final class ZcrxLayout {
    /** {@code struct io_uring_zcrx_ifq_reg}. */
    public static final long IFQ_SIZE = 96;
    public static final long IFQ_IF_IDX = 0;            // u32 network interface index
    public static final long IFQ_IF_RXQ = 4;            // u32 hardware receive queue
    public static final long IFQ_RQ_ENTRIES = 8;        // u32 refill queue entries
    public static final long IFQ_FLAGS = 12;            // u32
    public static final long IFQ_AREA_PTR = 16;         // u64 struct io_uring_zcrx_area_reg *
    public static final long IFQ_REGION_PTR = 24;       // u64 struct io_uring_region_desc * (the refill queue)
    public static final long IFQ_OFFSETS = 32;          // struct io_uring_zcrx_offsets (out)
    public static final long IFQ_ZCRX_ID = 64;          // u32 (out): the index RECV_ZC names
    public static final long IFQ_RX_BUF_LEN = 68;       // u32

    /** {@code struct io_uring_zcrx_offsets}, byte offsets inside the refill queue region. */
    public static final long OFFSETS_HEAD = 0;          // u32
    public static final long OFFSETS_TAIL = 4;          // u32
    public static final long OFFSETS_RQES = 8;          // u32

    /** {@code struct io_uring_zcrx_area_reg}: the memory received data lands in. */
    public static final long AREA_SIZE = 48;
    public static final long AREA_ADDR = 0;             // u64
    public static final long AREA_LEN = 8;              // u64
    public static final long AREA_RQ_TOKEN = 16;        // u64 (out)
    public static final long AREA_FLAGS = 24;           // u32
    public static final long AREA_DMABUF_FD = 28;       // u32

    /** {@code struct io_uring_zcrx_rqe}: a refill entry handing a buffer back (off, len). */
    public static final long RQE_SIZE = 16;
    /** {@code struct io_uring_zcrx_cqe}: follows the CQE in the big-CQE half (off). */
    public static final long CQE_SIZE = 16;
    /** {@code IORING_ZCRX_AREA_SHIFT}: the area id lives in the offset's bits from here on. */
    public static final int AREA_SHIFT = 48;

    private ZcrxLayout() {
    }
}
