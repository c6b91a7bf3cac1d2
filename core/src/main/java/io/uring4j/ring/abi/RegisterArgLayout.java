package io.uring4j.ring.abi;

/**
 * The arguments of {@code io_uring_register} other than the buffer ring's ({@link BufRingLayout}): byte offsets
 * of each struct's fields, as the kernel's uapi header lays them out. Reserved fields must be zero.
 */
public final class RegisterArgLayout {
    /** {@code struct iovec}: REGISTER_BUFFERS takes an array of them. */
    public static final long IOVEC_SIZE = 16;
    public static final long IOVEC_BASE = 0;                // u64
    public static final long IOVEC_LEN = 8;                 // u64

    /** {@code struct io_uring_rsrc_register}: REGISTER_FILES2, REGISTER_BUFFERS2. */
    public static final long RSRC_REGISTER_SIZE = 32;
    public static final long RSRC_REGISTER_NR = 0;          // u32
    public static final long RSRC_REGISTER_FLAGS = 4;       // u32 IORING_RSRC_REGISTER_*
    public static final long RSRC_REGISTER_DATA = 16;       // u64
    public static final long RSRC_REGISTER_TAGS = 24;       // u64
    /** {@code IORING_RSRC_REGISTER_SPARSE}: a table of empty slots. */
    public static final int RSRC_REGISTER_SPARSE = 1;

    /** {@code struct io_uring_rsrc_update} (= {@code io_uring_files_update}): REGISTER_FILES_UPDATE, ring fds. */
    public static final long RSRC_UPDATE_SIZE = 16;
    public static final long RSRC_UPDATE_OFFSET = 0;        // u32
    public static final long RSRC_UPDATE_DATA = 8;          // u64

    /** {@code struct io_uring_rsrc_update2}: REGISTER_FILES_UPDATE2, REGISTER_BUFFERS_UPDATE. */
    public static final long RSRC_UPDATE2_SIZE = 32;
    public static final long RSRC_UPDATE2_OFFSET = 0;       // u32
    public static final long RSRC_UPDATE2_DATA = 8;         // u64
    public static final long RSRC_UPDATE2_TAGS = 16;        // u64
    public static final long RSRC_UPDATE2_NR = 24;          // u32

    /** {@code struct io_uring_file_index_range}: REGISTER_FILE_ALLOC_RANGE. */
    public static final long FILE_INDEX_RANGE_SIZE = 16;
    public static final long FILE_INDEX_RANGE_OFF = 0;      // u32
    public static final long FILE_INDEX_RANGE_LEN = 4;      // u32
    public static final long FILE_INDEX_RANGE_RESV = 8;     // u64

    /** {@code struct io_uring_sync_cancel_reg}: REGISTER_SYNC_CANCEL. */
    public static final long SYNC_CANCEL_SIZE = 64;
    public static final long SYNC_CANCEL_ADDR = 0;          // u64 user_data to match
    public static final long SYNC_CANCEL_FD = 8;            // s32
    public static final long SYNC_CANCEL_FLAGS = 12;        // u32 IORING_ASYNC_CANCEL_*
    public static final long SYNC_CANCEL_TIMEOUT_SEC = 16;  // struct __kernel_timespec, -1/-1: no timeout
    public static final long SYNC_CANCEL_TIMEOUT_NSEC = 24;
    public static final long SYNC_CANCEL_OPCODE = 32;       // u8
    public static final long SYNC_CANCEL_PAD = 33;          // u8[7] and u64[3], up to the end

    /** {@code struct io_uring_probe}, followed by {@code ops_len} {@code io_uring_probe_op}s. */
    public static final long PROBE_HEADER = 16;
    public static final long PROBE_LAST_OP = 0;             // u8
    public static final long PROBE_OPS_LEN = 1;             // u8
    public static final long PROBE_OP_SIZE = 8;
    public static final long PROBE_OP_OP = 0;               // u8
    public static final long PROBE_OP_FLAGS = 2;            // u16
    /** {@code IO_URING_OP_SUPPORTED}, in a probe op's flags. */
    public static final int PROBE_OP_SUPPORTED = 1;

    /** {@code struct io_uring_restriction}: REGISTER_RESTRICTIONS takes an array of them. */
    public static final long RESTRICTION_SIZE = 16;
    public static final long RESTRICTION_OPCODE = 0;        // u16 IORING_RESTRICTION_*
    public static final long RESTRICTION_VALUE = 2;         // u8: register_op, sqe_op or sqe_flags

    /** {@code struct io_uring_clock_register}: REGISTER_CLOCK. */
    public static final long CLOCK_SIZE = 16;
    public static final long CLOCK_ID = 0;                  // u32 CLOCK_MONOTONIC (1) or CLOCK_BOOTTIME (7)

    /** {@code struct io_uring_clone_buffers}: REGISTER_CLONE_BUFFERS. */
    public static final long CLONE_SIZE = 32;
    public static final long CLONE_SRC_FD = 0;              // u32
    public static final long CLONE_FLAGS = 4;               // u32 CLONE_*
    public static final long CLONE_SRC_OFF = 8;             // u32
    public static final long CLONE_DST_OFF = 12;            // u32
    public static final long CLONE_NR = 16;                 // u32, 0: all
    /** {@code IORING_REGISTER_SRC_REGISTERED}: src_fd is a registered ring index. */
    public static final int CLONE_SRC_REGISTERED = 1;
    /** {@code IORING_REGISTER_DST_REPLACE}: replace the destination's buffers instead of failing (EBUSY). */
    public static final int CLONE_DST_REPLACE = 1 << 1;

    /** {@code struct io_uring_napi}: REGISTER_NAPI / UNREGISTER_NAPI (which writes back the settings). */
    public static final long NAPI_SIZE = 16;
    public static final long NAPI_BUSY_POLL_TO = 0;         // u32 microseconds
    public static final long NAPI_PREFER_BUSY_POLL = 4;     // u8

    private RegisterArgLayout() {
    }
}
