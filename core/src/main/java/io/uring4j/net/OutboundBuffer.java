package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A connection's pending output: bytes appended by the handler, sent from the front. Loop thread only.
 *
 * <p>The bytes {@code [start, end)} of the current segment are pending. While a send is in flight, the kernel
 * reads from the segment that was current when it was submitted, so that segment is never written below
 * {@code end} nor freed: an append that does not fit moves the pending bytes to a new, larger segment and
 * keeps the old one as {@code retired} until the send completes. Without a send in flight, the pending bytes
 * are moved to the front instead (compaction), and the segment grows only if that is not enough.
 */
final class OutboundBuffer {
    private final int initialCapacity;
    private Arena arena;
    private MemorySegment segment;
    /** The segment an in-flight send points into, when it is no longer the current one. */
    private Arena retired;
    private long start;
    private long end;
    private boolean sending;

    OutboundBuffer(int initialCapacity) {
        this.initialCapacity = initialCapacity;
        arena = NativeMemory.confinedArena();
        segment = arena.allocate(initialCapacity, 64);
    }

    long pending() {
        return end - start;
    }

    long capacity() {
        return segment.byteSize();
    }

    /** Appends {@code length} bytes of {@code src} from {@code offset}. */
    void append(MemorySegment src, long offset, long length) {
        ensureRoom(length);
        MemorySegment.copy(src, offset, segment, end, length);
        end += length;
    }

    void append(byte[] src, int offset, int length) {
        ensureRoom(length);
        MemorySegment.copy(src, offset, segment, JAVA_BYTE, end, length);
        end += length;
    }

    private void ensureRoom(long length) {
        if (end + length <= segment.byteSize()) {
            return;
        }
        long pending = end - start;
        if (!sending && pending + length <= segment.byteSize()) {
            MemorySegment.copy(segment, start, segment, 0, pending);
            start = 0;
            end = pending;
            return;
        }
        long capacity = segment.byteSize();
        while (capacity < pending + length) {
            capacity *= 2;
        }
        Arena next = NativeMemory.confinedArena();
        MemorySegment grown = next.allocate(capacity, 64);
        MemorySegment.copy(segment, start, grown, 0, pending);
        if (sending && retired == null) {
            retired = arena;            // the in-flight send still reads from it
        } else {
            arena.close();              // nothing in the kernel points here
        }
        arena = next;
        segment = grown;
        start = 0;
        end = pending;
    }

    /** Marks a send of the pending bytes as submitted; returns their address (length: {@link #pending()}). */
    long beginSend() {
        sending = true;
        return segment.address() + start;
    }

    /** A send took {@code n} bytes from the front. */
    void sent(int n) {
        sending = false;
        if (retired != null) {
            retired.close();
            retired = null;
        }
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
            if (segment.byteSize() > 4L * initialCapacity) {
                shrink();
            }
        }
    }

    /** Drained after a burst: back to the first size, so that an idle connection does not keep its peak. */
    private void shrink() {
        Arena small = NativeMemory.confinedArena();
        MemorySegment fresh = small.allocate(initialCapacity, 64);     // first: it may fail (the memory limit)
        arena.close();
        arena = small;
        segment = fresh;
    }

    boolean sending() {
        return sending;
    }

    /** Frees the memory; only once no send is in flight. */
    void free() {
        if (sending) {
            throw new IllegalStateException("a send is still in flight");
        }
        arena.close();
        start = 0;
        end = 0;
    }
}
