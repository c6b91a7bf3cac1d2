package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * A selector's native memory for queued sends: {@link Outbox#CAPACITY}-byte chunks, lent to a channel's outbox
 * while it holds bytes and given back once its last send has completed, so an idle connection holds none. Slabs
 * are added as needed and freed with the selector (only if no send can still read them). Any thread.
 */
final class SendChunks {
    private static final int PER_SLAB = 16;

    private final Arena arena = NativeMemory.sharedArena();
    private final ArrayDeque<MemorySegment> free = new ArrayDeque<>();
    private boolean closed;

    synchronized MemorySegment take() {
        if (free.isEmpty()) {
            if (closed) {
                throw new IllegalStateException("selector closed");
            }
            MemorySegment slab = arena.allocate((long) PER_SLAB * Outbox.CAPACITY, 64);
            for (int i = 0; i < PER_SLAB; i++) {
                free.push(slab.asSlice((long) i * Outbox.CAPACITY, Outbox.CAPACITY));
            }
        }
        return free.pop();
    }

    synchronized void give(MemorySegment chunk) {
        free.push(chunk);
    }

    /** Frees the slabs: only once no send can read a chunk. */
    synchronized void close() {
        closed = true;
        free.clear();
        arena.close();
    }
}
