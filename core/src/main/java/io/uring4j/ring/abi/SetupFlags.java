package io.uring4j.ring.abi;

/** {@code IORING_SETUP_*}: flags for {@code io_uring_params.flags}. Bit positions follow the uapi header. */
public final class SetupFlags {
    public static final int IOPOLL = 1;
    public static final int SQPOLL = 1 << 1;
    public static final int SQ_AFF = 1 << 2;
    public static final int CQSIZE = 1 << 3;
    public static final int CLAMP = 1 << 4;
    public static final int ATTACH_WQ = 1 << 5;
    public static final int R_DISABLED = 1 << 6;
    public static final int SUBMIT_ALL = 1 << 7;
    public static final int COOP_TASKRUN = 1 << 8;
    public static final int TASKRUN_FLAG = 1 << 9;
    public static final int SQE128 = 1 << 10;
    public static final int CQE32 = 1 << 11;
    public static final int SINGLE_ISSUER = 1 << 12;
    public static final int DEFER_TASKRUN = 1 << 13;
    public static final int NO_MMAP = 1 << 14;
    public static final int REGISTERED_FD_ONLY = 1 << 15;
    public static final int NO_SQARRAY = 1 << 16;
    public static final int HYBRID_IOPOLL = 1 << 17;
    public static final int CQE_MIXED = 1 << 18;
    /** 64- and 128-byte SQEs in one ring (6.19: newer than 6.18, which refuses it with EINVAL). */
    public static final int SQE_MIXED = 1 << 19;
    /** The kernel takes SQEs from index 0 on every enter (newer than 6.18, which refuses it with EINVAL). */
    public static final int SQ_REWIND = 1 << 20;

    private static final String[] NAMES = {"IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE", "CLAMP", "ATTACH_WQ",
        "R_DISABLED", "SUBMIT_ALL", "COOP_TASKRUN", "TASKRUN_FLAG", "SQE128", "CQE32", "SINGLE_ISSUER",
        "DEFER_TASKRUN", "NO_MMAP", "REGISTERED_FD_ONLY", "NO_SQARRAY", "HYBRID_IOPOLL", "CQE_MIXED", "SQE_MIXED",
        "SQ_REWIND"};

    private SetupFlags() {
    }

    /** {@code SINGLE_ISSUER|DEFER_TASKRUN}-style rendering of a flag set. */
    public static String toString(int flags) {
        return BitNames.of(Integer.toUnsignedLong(flags), NAMES);
    }

    /** The name of a single flag bit. */
    public static String name(int bit) {
        return toString(bit);
    }

    /** Every flag this library knows, lowest bit first. */
    public static int[] all() {
        int[] all = new int[NAMES.length];
        for (int i = 0; i < all.length; i++) {
            all[i] = 1 << i;
        }
        return all;
    }
}
