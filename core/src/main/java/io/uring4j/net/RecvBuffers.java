package io.uring4j.net;

import io.uring4j.ring.BufferRing;
import io.uring4j.ring.IoUring;
import io.uring4j.runtime.NativeMemory;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One loop's provided-buffer ring for multishot receives: {@code count} buffers of {@code size} bytes in one
 * page-aligned slab, registered as buffer group {@code group} on the loop's ring. Every connection of the loop
 * receives into it, so memory scales with the loop, not with the number of connections.
 *
 * <p>A buffer goes back to the ring as soon as the handler that was given it returns ({@link #recycle}): the
 * kernel can only run out of buffers when more data arrives within one reap batch than the ring holds, and then
 * a multishot receive ends with ENOBUFS and leaves the data in the socket; the connection re-arms it.
 * Loop thread only.
 */
final class RecvBuffers {
    private final Arena arena = NativeMemory.sharedArena();
    private final BufferRing ring;
    private final MemorySegment[] buffers;
    private final int group;

    RecvBuffers(IoUring uring, int group, int count, int size) throws ErrnoException {
        if (Integer.bitCount(count) != 1 || count > 32768) {
            throw new IllegalArgumentException("buffer count must be a power of two up to 32768: " + count);
        }
        this.group = group;
        MemorySegment slab = arena.allocate((long) count * size, 4096);
        buffers = new MemorySegment[count];
        try {
            ring = uring.register().bufferRing(count, group, 0);
        } catch (ErrnoException | RuntimeException e) {
            arena.close();
            throw e;
        }
        for (int bid = 0; bid < count; bid++) {
            buffers[bid] = slab.asSlice((long) bid * size, size);
            ring.add(buffers[bid], bid, bid);
        }
        ring.advance(count);
    }

    int group() {
        return group;
    }

    /** The buffer a CQE's F_BUFFER id names. */
    MemorySegment buffer(int bid) {
        return buffers[bid];
    }

    /** Hands buffer {@code bid} back to the kernel. */
    void recycle(int bid) {
        ring.add(buffers[bid], bid, 0);
        ring.advance(1);
    }

    long bytes() {
        return (long) buffers.length * buffers[0].byteSize();
    }

    /** Unregisters the group and frees the slab; only once no receive can pick from it. */
    void close() {
        try {
            ring.close();
        } catch (ErrnoException e) {
            throw new IllegalStateException(e);
        } finally {
            arena.close();
        }
    }
}
