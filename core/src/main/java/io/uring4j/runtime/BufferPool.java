package io.uring4j.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Library-owned I/O buffers: one page-aligned slab (so every buffer suits O_DIRECT when its size is a multiple of
 * the block size), mapped so that it takes memory only as its pages are first used, cut into equal buffers, leased
 * and returned without allocation. A pool given to {@link UringBuilder#fixedBuffers} is registered with every loop's
 * ring as fixed buffer 0, so reads and writes on its buffers can use READ_FIXED / WRITE_FIXED ({@link Op#readFixed}).
 *
 * <p>The memory-safety rule: a buffer is released only when no request may still touch it — after the final
 * CQE of every request that used it. The blocking and future styles of the file and socket layers do this for
 * you; with callbacks, release in the handler. The pool frees its slab only when every buffer is back.
 *
 * <p>Leasing takes no lock: a permit of a {@link Semaphore} (a CAS, parking only when none is left) and then a bit of
 * a bitmap of free buffers. Many platform threads reading through a shared pool (a heap buffer's stand-in) would
 * otherwise queue on one lock, and a holder descheduled by the kernel would stall them all.
 */
public final class BufferPool implements AutoCloseable {
    /** Fixed-buffer index of the pool's slab in each ring it is registered with. */
    public static final int FIXED_INDEX = 0;

    private final Arena arena = new TrackedArena();
    private final MemorySegment slab;
    private final int bufferSize;
    private final Buffer[] buffers;
    /** Bit {@code i} set: buffer {@code i} is free. Set before its permit is given back, cleared after one is taken. */
    private final AtomicLongArray freeBits;
    private final Semaphore permits;
    private boolean closed;

    private BufferPool(int bufferSize, int count) {
        this.bufferSize = bufferSize;
        // Mapped, not allocated: nothing is zeroed up front, and a page takes memory only once a buffer uses it
        // (the file channels' shared pool is 4 MiB; a short program touches a page or two of it).
        this.slab = NativeMemory.mapPages((long) bufferSize * count, arena);
        this.buffers = new Buffer[count];
        this.freeBits = new AtomicLongArray((count + 63) / 64);
        for (int i = 0; i < count; i++) {
            buffers[i] = new Buffer(this, i, slab.asSlice((long) i * bufferSize, bufferSize));
            freeBits.set(i >>> 6, freeBits.get(i >>> 6) | 1L << (i & 63));
        }
        this.permits = new Semaphore(count);
    }

    /** {@code count} buffers of {@code bufferSize} bytes (at most 1 GiB in all, the fixed-buffer limit). */
    public static BufferPool create(int bufferSize, int count) {
        if (bufferSize <= 0 || count <= 0) {
            throw new IllegalArgumentException("bufferSize and count must be positive: " + bufferSize + ", " + count);
        }
        if ((long) bufferSize * count > 1L << 30) {
            throw new IllegalArgumentException("a pool holds at most 1 GiB (the kernel's fixed-buffer limit)");
        }
        return new BufferPool(bufferSize, count);
    }

    /** A free buffer, or {@code null} if all are leased. */
    public Buffer tryAcquire() {
        return permits.tryAcquire() ? take() : null;
    }

    /** A free buffer, waiting for one to be released if necessary (virtual threads park). */
    public Buffer acquire() throws InterruptedException {
        permits.acquire();
        return take();
    }

    /** Clears a free buffer's bit: the permit just taken guarantees one is set, if perhaps after a racing taker's. */
    private Buffer take() {
        while (true) {
            for (int word = 0; word < freeBits.length(); word++) {
                for (long bits = freeBits.get(word); bits != 0; bits = freeBits.get(word)) {
                    long lowest = bits & -bits;
                    if (freeBits.compareAndSet(word, bits, bits & ~lowest)) {
                        return buffers[word * 64 + Long.numberOfTrailingZeros(lowest)];
                    }
                }
            }
            Thread.onSpinWait();
        }
    }

    private void giveBack(Buffer buffer) {
        int word = buffer.id >>> 6;
        long bit = 1L << (buffer.id & 63);
        while (true) {
            long bits = freeBits.get(word);
            if ((bits & bit) != 0) {
                throw new IllegalStateException("buffer " + buffer.id + " released twice");
            }
            if (freeBits.compareAndSet(word, bits, bits | bit)) {
                permits.release();
                return;
            }
        }
    }

    public int bufferSize() {
        return bufferSize;
    }

    public int available() {
        return permits.availablePermits();
    }

    /** The whole slab, for registration as one fixed buffer. */
    MemorySegment slab() {
        return slab;
    }

    /**
     * Frees the slab. Refused while buffers are leased: one of them may be in the kernel's hands.
     *
     * @throws IllegalStateException if buffers are still leased
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        int available = available();
        if (available != buffers.length) {
            throw new IllegalStateException((buffers.length - available)
                    + " buffer(s) still leased: release them after their requests complete, then close the pool");
        }
        closed = true;
        arena.close();
    }

    /** One leased buffer. */
    public static final class Buffer {
        private final BufferPool pool;
        private final int id;
        private final MemorySegment segment;

        Buffer(BufferPool pool, int id, MemorySegment segment) {
            this.pool = pool;
            this.id = id;
            this.segment = segment;
        }

        public MemorySegment segment() {
            return segment;
        }

        /** This buffer's position in its pool. */
        public int id() {
            return id;
        }

        public BufferPool pool() {
            return pool;
        }

        /** Returns the buffer; it must not be used, nor be in any request's hands, afterwards. */
        public void release() {
            pool.giveBack(this);
        }
    }
}
