package io.uring4j.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared arena that counts the native bytes it holds, so the runtime can report (and tests can check) that
 * closing gives every byte back. Allocation here is rare (start-up, pools), never per request.
 */
final class TrackedArena implements Arena {
    private static final AtomicLong IN_USE = new AtomicLong();

    private final Arena arena = Arena.ofShared();
    private long allocated;

    /** Native bytes held by all open runtime arenas. */
    static long inUse() {
        return IN_USE.get();
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        MemorySegment segment = arena.allocate(byteSize, byteAlignment);
        synchronized (this) {
            allocated += byteSize;
        }
        IN_USE.addAndGet(byteSize);
        return segment;
    }

    @Override
    public MemorySegment.Scope scope() {
        return arena.scope();
    }

    @Override
    public void close() {
        arena.close();
        long bytes;
        synchronized (this) {
            bytes = allocated;
            allocated = 0;
        }
        IN_USE.addAndGet(-bytes);
    }
}
