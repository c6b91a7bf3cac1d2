package io.uring4j.net;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A connection's pending output: bytes appended by the handler, sent from the front. Loop thread only.
 *
 * <p>The bytes {@code [start, end)} of the current buffer are pending. While a send is in flight, the kernel
 * reads from the buffer that was current when it was submitted, so that buffer is never written below
 * {@code end} nor freed: an append that does not fit moves the pending bytes to a new, larger buffer and
 * keeps the old one as {@code retired} until the send completes. Without a send in flight, the pending bytes
 * are moved to the front instead (compaction), and the buffer grows only if that is not enough.
 *
 * <p>The buffer is the loop's ({@link OutputSlabs}), lent while output is pending: once a send has taken
 * everything, it goes back (a grown one is freed), so an idle connection holds no output memory.
 */
final class OutboundBuffer {
    private final OutputSlabs slabs;
    /** Null while nothing is pending and no send is in flight. */
    private OutputSlabs.Slab current;
    /** The buffer an in-flight send points into, when it is no longer the current one. */
    private OutputSlabs.Slab retired;
    private long start;
    private long end;
    private boolean sending;

    OutboundBuffer(OutputSlabs slabs) {
        this.slabs = slabs;
    }

    long pending() {
        return end - start;
    }

    /** Bytes of output memory held now: 0 when idle. */
    long capacity() {
        return current == null ? 0 : current.size();
    }

    /** Appends {@code length} bytes of {@code src} from {@code offset}. */
    void append(MemorySegment src, long offset, long length) {
        ensureRoom(length);
        MemorySegment.copy(src, offset, current.segment(), end, length);
        end += length;
    }

    void append(byte[] src, int offset, int length) {
        ensureRoom(length);
        MemorySegment.copy(src, offset, current.segment(), JAVA_BYTE, end, length);
        end += length;
    }

    private void ensureRoom(long length) {
        if (current == null) {
            current = length <= slabs.size() ? slabs.take() : OutputSlabs.allocate(grownSize(slabs.size(), length));
            return;
        }
        if (end + length <= current.size()) {
            return;
        }
        long pending = end - start;
        if (!sending && pending + length <= current.size()) {
            MemorySegment.copy(current.segment(), start, current.segment(), 0, pending);
            start = 0;
            end = pending;
            return;
        }
        OutputSlabs.Slab grown = OutputSlabs.allocate(grownSize(current.size(), pending + length));
        MemorySegment.copy(current.segment(), start, grown.segment(), 0, pending);
        if (sending && retired == null) {
            retired = current;          // the in-flight send still reads from it
        } else {
            slabs.give(current);        // nothing in the kernel points here
        }
        current = grown;
        start = 0;
        end = pending;
    }

    private static long grownSize(long from, long needed) {
        long capacity = from;
        while (capacity < needed) {
            capacity *= 2;
        }
        return capacity;
    }

    /** Marks a send of the pending bytes as submitted; returns their address (length: {@link #pending()}). */
    long beginSend() {
        sending = true;
        return current.segment().address() + start;
    }

    /** A send took {@code n} bytes from the front. */
    void sent(int n) {
        sending = false;
        if (retired != null) {
            slabs.give(retired);
            retired = null;
        }
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
            slabs.give(current);        // drained: the buffer goes back to the loop
            current = null;
        }
    }

    boolean sending() {
        return sending;
    }

    /** Gives the memory back; only once no send is in flight. */
    void free() {
        if (sending) {
            throw new IllegalStateException("a send is still in flight");
        }
        if (current != null) {
            slabs.give(current);
            current = null;
        }
        start = 0;
        end = 0;
    }
}
