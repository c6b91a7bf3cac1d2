package io.uring4j.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An arena whose allocations count against {@link NativeMemory}'s limit and are given back when it closes, so
 * the runtime can report (and tests can check) that closing returns every byte.
 */
final class TrackedArena implements Arena {
    private final Arena arena;
    private long allocated;

    /** A shared arena. */
    TrackedArena() {
        this(Arena.ofShared());
    }

    TrackedArena(Arena arena) {
        this.arena = arena;
    }

    /** Native bytes held by all open tracked arenas. */
    static long inUse() {
        return NativeMemory.inUse();
    }

    @Override
    public MemorySegment allocate(long byteSize, long byteAlignment) {
        NativeMemory.reserve(byteSize);
        MemorySegment segment;
        try {
            segment = arena.allocate(byteSize, byteAlignment);
        } catch (RuntimeException | Error e) {
            NativeMemory.unreserve(byteSize);
            throw e;
        }
        synchronized (this) {
            allocated += byteSize;
        }
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
        NativeMemory.unreserve(bytes);
    }
}
