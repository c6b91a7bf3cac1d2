package io.uring4j.ring.abi;

/**
 * Registered wait arguments (6.13): the structs of {@code IORING_REGISTER_MEM_REGION} and the
 * {@code io_uring_reg_wait} entries that {@code IORING_ENTER_EXT_ARG_REG} points into, as the uapi header lays
 * them out. Reserved fields must be zero.
 */
public final class WaitRegionLayout {
    /** {@code struct io_uring_region_desc}. */
    public static final long DESC_SIZE = 64;
    public static final long DESC_USER_ADDR = 0;        // u64
    public static final long DESC_SIZE_FIELD = 8;       // u64
    public static final long DESC_FLAGS = 16;           // u32 MEM_REGION_TYPE_*
    public static final long DESC_ID = 20;              // u32
    public static final long DESC_MMAP_OFFSET = 24;     // u64
    /** {@code IORING_MEM_REGION_TYPE_USER}: the region is the caller's memory at user_addr. */
    public static final int MEM_REGION_TYPE_USER = 1;

    /** {@code struct io_uring_mem_region_reg}. */
    public static final long REG_SIZE = 32;
    public static final long REG_REGION_UPTR = 0;       // u64 struct io_uring_region_desc *
    public static final long REG_FLAGS = 8;             // u64 MEM_REGION_REG_*
    /** {@code IORING_MEM_REGION_REG_WAIT_ARG}: the region holds io_uring_reg_wait entries. */
    public static final int MEM_REGION_REG_WAIT_ARG = 1;

    /** {@code struct io_uring_reg_wait}: one wait argument; enter's arg is its byte offset in the region. */
    public static final long WAIT_SIZE = 64;
    public static final long WAIT_TS_SEC = 0;           // struct __kernel_timespec
    public static final long WAIT_TS_NSEC = 8;
    public static final long WAIT_MIN_WAIT_USEC = 16;   // u32
    public static final long WAIT_FLAGS = 20;           // u32 REG_WAIT_*
    public static final long WAIT_SIGMASK = 24;         // u64
    public static final long WAIT_SIGMASK_SZ = 32;      // u32
    /** {@code IORING_REG_WAIT_TS}: the entry's timespec applies. */
    public static final int REG_WAIT_TS = 1;

    private WaitRegionLayout() {
    }
}
