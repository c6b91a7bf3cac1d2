package io.uring4j.ring.abi;

/** {@code IORING_SQ_*}: bits of the SQ ring's shared flags word, set by the kernel. */
public final class SqRingFlags {
    /** The SQPOLL thread sleeps: wake it with {@link EnterFlags#SQ_WAKEUP}. */
    public static final int NEED_WAKEUP = 1;
    /** Completions wait in the overflow list: enter with GETEVENTS to flush them. */
    public static final int CQ_OVERFLOW = 1 << 1;
    /** Task work is pending (TASKRUN_FLAG rings): enter to run it. */
    public static final int TASKRUN = 1 << 2;

    private SqRingFlags() {
    }
}
