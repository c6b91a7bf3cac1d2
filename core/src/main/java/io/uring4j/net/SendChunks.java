package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A selector's or an asynchronous group's ring's native memory for queued sends: {@link Outbox#CAPACITY}-byte
 * chunks, lent to a channel's outbox ({@link Outbox}, {@link AsyncOutbox}) while it holds bytes and given back once
 * its last send has completed, so an idle connection holds none. Slabs are added as needed — as many as were ever
 * lent at once — and freed with their owner (only once no send can still read them). Any thread.
 */
final class SendChunks {
    private static final int PER_SLAB = 16;

    private final Arena arena = NativeMemory.sharedArena();
    private final ArrayDeque<Chunk> free = new ArrayDeque<>();
    private boolean closed;

    /**
     * One chunk, as memory (its address goes to the SEND) and as a buffer view made once: a write copies into the
     * view with {@code ByteBuffer.put(int, ByteBuffer, int, int)}, which allocates nothing, where a segment over
     * the caller's buffer would be an object per write unless C2 scalar-replaces it.
     */
    record Chunk(MemorySegment memory, ByteBuffer bytes) {
    }

    synchronized Chunk take() {
        if (free.isEmpty()) {
            if (closed) {
                throw new IllegalStateException("send chunks freed: their selector or ring is closed");
            }
            MemorySegment slab = arena.allocate((long) PER_SLAB * Outbox.CAPACITY, 64);
            for (int i = 0; i < PER_SLAB; i++) {
                MemorySegment memory = slab.asSlice((long) i * Outbox.CAPACITY, Outbox.CAPACITY);
                free.push(new Chunk(memory, memory.asByteBuffer()));
            }
        }
        return free.pop();
    }

    synchronized void give(Chunk chunk) {
        free.push(chunk);
    }

    /** Frees the slabs: only once no send can read a chunk. */
    synchronized void close() {
        closed = true;
        free.clear();
        arena.close();
    }
}
