package io.uring4j.ring.abi;

/** {@code IORING_ENTER_*}: flags for {@code io_uring_enter}. */
public final class EnterFlags {
    public static final int GETEVENTS = 1;
    public static final int SQ_WAKEUP = 1 << 1;
    public static final int SQ_WAIT = 1 << 2;
    public static final int EXT_ARG = 1 << 3;
    public static final int REGISTERED_RING = 1 << 4;
    public static final int ABS_TIMER = 1 << 5;
    public static final int EXT_ARG_REG = 1 << 6;
    public static final int NO_IOWAIT = 1 << 7;

    private EnterFlags() {
    }
}
