package io.uring4j.ring.abi;

/** Byte offsets of {@code struct io_uring_cqe} (16 bytes; 32 on CQE32 rings and for F_32 entries). */
public final class CqeLayout {
    public static final long SIZE = 16;
    public static final long USER_DATA = 0;    // u64
    public static final long RES = 8;          // s32 result or -errno
    public static final long FLAGS = 12;       // u32 IORING_CQE_F_*, buffer id in the upper 16 bits
    public static final long BIG_CQE = 16;     // u64[2], CQE32 only

    private CqeLayout() {
    }
}
