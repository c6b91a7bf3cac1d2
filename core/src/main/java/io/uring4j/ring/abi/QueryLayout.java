package io.uring4j.ring.abi;

/**
 * {@code IORING_REGISTER_QUERY} (6.18; fd -1, no ring needed): a chain of headers, each pointing at a result
 * struct, from liburing's {@code io_uring/query.h}.
 */
public final class QueryLayout {
    /** {@code struct io_uring_query_hdr}. */
    public static final long HDR_SIZE = 40;
    public static final long HDR_NEXT_ENTRY = 0;        // u64 next header, 0: last
    public static final long HDR_QUERY_DATA = 8;        // u64 result struct
    public static final long HDR_QUERY_OP = 16;         // u32 QUERY_*
    public static final long HDR_SIZE_FIELD = 20;       // u32 size of the result struct; the kernel writes back its own
    public static final long HDR_RESULT = 24;           // s32 0 or -errno (EOPNOTSUPP: unknown query)

    /** {@code IO_URING_QUERY_OPCODES}: what the kernel knows of opcodes and flags. */
    public static final int QUERY_OPCODES = 0;
    /** {@code IO_URING_QUERY_ZCRX}. */
    public static final int QUERY_ZCRX = 1;
    /** {@code IO_URING_QUERY_SCQ}. */
    public static final int QUERY_SCQ = 2;

    /** {@code struct io_uring_query_opcode}. */
    public static final long OPCODES_SIZE = 48;
    public static final long OPCODES_NR_REQUEST = 0;    // u32 number of IORING_OP_*
    public static final long OPCODES_NR_REGISTER = 4;   // u32 number of IORING_REGISTER_*
    public static final long OPCODES_FEATURES = 8;      // u64 IORING_FEAT_*
    public static final long OPCODES_SETUP_FLAGS = 16;  // u64 IORING_SETUP_*
    public static final long OPCODES_ENTER_FLAGS = 24;  // u64 IORING_ENTER_*
    public static final long OPCODES_SQE_FLAGS = 32;    // u64 IOSQE_*
    public static final long OPCODES_NR_QUERY = 40;     // u32 number of query opcodes (newer kernels)

    private QueryLayout() {
    }
}
