package io.uring4j.fs;

import io.uring4j.ring.Sqe;
import io.uring4j.runtime.Op;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A statx request and the {@code struct statx} the kernel writes: the op owns both the path and the result
 * memory, so the kernel's write lands in memory that lives as long as the request. Read {@link #statx()} after a
 * successful completion: {@code uring.submitAsync(op).thenApply(r -> op.statx())}.
 */
public final class StatxOp implements Op {
    private final int dirfd;
    private final MemorySegment path;
    private final int flags;
    private final int mask;
    private final MemorySegment result = Arena.ofAuto().allocate(Statx.BYTES, 8);

    StatxOp(int dirfd, MemorySegment path, int flags, int mask) {
        this.dirfd = dirfd;
        this.path = path;
        this.flags = flags;
        this.mask = mask;
    }

    @Override
    public void prepare(Sqe sqe, MemorySegment scratch) {
        sqe.prepStatx(dirfd, path, flags, mask, result);
    }

    /** The decoded result; meaningful once the request has completed with 0. */
    public Statx statx() {
        return Statx.decode(result);
    }
}
