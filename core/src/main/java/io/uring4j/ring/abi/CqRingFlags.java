package io.uring4j.ring.abi;

/** {@code IORING_CQ_*}: bits of the CQ ring's flags word, set by the application. */
public final class CqRingFlags {
    /** Do not signal the registered eventfd for new completions. */
    public static final int EVENTFD_DISABLED = 1;

    private CqRingFlags() {
    }
}
