package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One loop's spare output buffers of the first size, lent to connections while they have output pending: an idle
 * connection holds none, so its memory is its socket and a few small objects, not a buffer per connection. A
 * busy connection takes one per burst and gives it back once the kernel has sent it all — a push and a pop, no
 * allocation. At most {@link #MAX_SPARE} are kept; more are freed as they come back. Loop thread only.
 */
final class OutputSlabs {
    /** Spares kept per loop: enough for the connections that send at once, not a peak held forever. */
    static final int MAX_SPARE = 256;

    /** A buffer and the arena that frees it. */
    record Slab(Arena arena, MemorySegment segment) {
        long size() {
            return segment.byteSize();
        }
    }

    private final int size;
    private final Slab[] spare = new Slab[MAX_SPARE];
    private int count;
    private boolean closed;

    OutputSlabs(int size) {
        this.size = size;
    }

    /** The first size of a connection's output buffer. */
    int size() {
        return size;
    }

    /** A buffer of {@link #size()} bytes: a spare one, or a new one. */
    Slab take() {
        return count > 0 ? spare[--count] : allocate(size);
    }

    /** A buffer of {@code bytes} bytes (larger than the first size), never pooled. */
    static Slab allocate(long bytes) {
        Arena arena = NativeMemory.confinedArena();
        return new Slab(arena, arena.allocate(bytes, 64));
    }

    /** Takes back a buffer nothing refers to any more (no send in flight reads it). */
    void give(Slab slab) {
        if (!closed && slab.size() == size && count < MAX_SPARE) {
            spare[count++] = slab;
        } else {
            slab.arena().close();
        }
    }

    /** Frees the spares; buffers given back later are freed at once. */
    void close() {
        closed = true;
        while (count > 0) {
            spare[--count].arena().close();
            spare[count] = null;
        }
    }

    /** Spares held now. */
    int spares() {
        return count;
    }
}
