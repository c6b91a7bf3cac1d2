package io.uring4j.net;

import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Bytes a connection received after it paused reading: the CQEs a multishot receive had already posted before
 * its cancel took effect. They are handed to the handler again, in order and a buffer's worth at a time, once
 * the output has drained — so a peer that sends requests and never reads the answers costs at most what was
 * already on its way, not the answers to all of it. Loop thread only; the memory goes when the last byte does.
 */
final class InputBacklog {
    private final Arena arena = NativeMemory.confinedArena();
    private MemorySegment segment;
    private long start;
    private long end;

    InputBacklog(long initialCapacity) {
        segment = arena.allocate(initialCapacity, 64);
    }

    /** Keeps {@code data[offset, offset + length)}. */
    void append(MemorySegment data, long offset, int length) {
        if (end + length > segment.byteSize()) {
            long pending = end - start;
            long capacity = segment.byteSize();
            while (capacity < pending + length) {
                capacity *= 2;
            }
            MemorySegment grown = capacity == segment.byteSize() ? segment : arena.allocate(capacity, 64);
            MemorySegment.copy(segment, start, grown, 0, pending);     // overlapping copies are safe
            segment = grown;
            start = 0;
            end = pending;
        }
        MemorySegment.copy(data, offset, segment, end, length);
        end += length;
    }

    /** The next bytes to hand on, at most {@code max}; valid until {@link #consume}. */
    MemorySegment front(long max) {
        return segment.asSlice(start, Math.min(max, end - start));
    }

    /** The front {@code n} bytes were handed on; true (and the memory freed) once nothing is left. */
    boolean consume(long n) {
        start += n;
        if (start < end) {
            return false;
        }
        free();
        return true;
    }

    void free() {
        arena.close();
    }
}
