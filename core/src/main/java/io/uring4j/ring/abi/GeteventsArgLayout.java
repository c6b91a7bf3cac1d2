package io.uring4j.ring.abi;

/**
 * Byte offsets of {@code struct io_uring_getevents_arg} (24 bytes), the {@code arg} of {@code io_uring_enter}
 * with {@link EnterFlags#EXT_ARG}; its size is passed as {@code argsz}.
 */
public final class GeteventsArgLayout {
    public static final long SIZE = 24;
    public static final long SIGMASK = 0;          // u64 sigset_t address, 0 for none
    public static final long SIGMASK_SZ = 8;       // u32 _NSIG / 8
    public static final long MIN_WAIT_USEC = 12;   // u32 min_wait_usec (6.12)
    public static final long TS = 16;              // u64 struct __kernel_timespec address, 0 for none

    private GeteventsArgLayout() {
    }
}
