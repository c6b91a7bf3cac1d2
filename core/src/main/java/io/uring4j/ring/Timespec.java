package io.uring4j.ring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** {@code struct __kernel_timespec} (16 bytes: s64 tv_sec, s64 tv_nsec), as TIMEOUT and EXT_ARG read it. */
public final class Timespec {
    public static final long SIZE = 16;

    private Timespec() {
    }

    /** A new timespec holding {@code nanos}. */
    public static MemorySegment allocate(SegmentAllocator allocator, long nanos) {
        MemorySegment ts = allocator.allocate(SIZE, 8);
        set(ts, nanos);
        return ts;
    }

    public static MemorySegment allocate(SegmentAllocator allocator, Duration duration) {
        return allocate(allocator, duration.toNanos());
    }

    /** Rewrites {@code ts} in place. */
    public static void set(MemorySegment ts, long nanos) {
        ts.set(JAVA_LONG, 0, nanos / 1_000_000_000L);
        ts.set(JAVA_LONG, 8, nanos % 1_000_000_000L);
    }
}
