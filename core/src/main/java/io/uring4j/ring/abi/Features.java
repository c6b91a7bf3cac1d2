package io.uring4j.ring.abi;

/** {@code IORING_FEAT_*}: what the kernel reported in {@code io_uring_params.features}. */
public final class Features {
    public static final int SINGLE_MMAP = 1;
    public static final int NODROP = 1 << 1;
    public static final int SUBMIT_STABLE = 1 << 2;
    public static final int RW_CUR_POS = 1 << 3;
    public static final int CUR_PERSONALITY = 1 << 4;
    public static final int FAST_POLL = 1 << 5;
    public static final int POLL_32BITS = 1 << 6;
    public static final int SQPOLL_NONFIXED = 1 << 7;
    public static final int EXT_ARG = 1 << 8;
    public static final int NATIVE_WORKERS = 1 << 9;
    public static final int RSRC_TAGS = 1 << 10;
    public static final int CQE_SKIP = 1 << 11;
    public static final int LINKED_FILE = 1 << 12;
    public static final int REG_REG_RING = 1 << 13;
    public static final int RECVSEND_BUNDLE = 1 << 14;
    public static final int MIN_TIMEOUT = 1 << 15;
    public static final int RW_ATTR = 1 << 16;
    public static final int NO_IOWAIT = 1 << 17;

    private static final String[] NAMES = {"SINGLE_MMAP", "NODROP", "SUBMIT_STABLE", "RW_CUR_POS",
        "CUR_PERSONALITY", "FAST_POLL", "POLL_32BITS", "SQPOLL_NONFIXED", "EXT_ARG", "NATIVE_WORKERS",
        "RSRC_TAGS", "CQE_SKIP", "LINKED_FILE", "REG_REG_RING", "RECVSEND_BUNDLE", "MIN_TIMEOUT", "RW_ATTR",
        "NO_IOWAIT"};

    private Features() {
    }

    public static String toString(int features) {
        return BitNames.of(Integer.toUnsignedLong(features), NAMES);
    }
}
