package io.uring4j.fs;

import io.uring4j.runtime.BufferPool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native stand-ins for heap {@link java.nio.ByteBuffer}s, whose memory the kernel must never see (the GC moves
 * it). Small transfers lease a buffer of a shared pool — the common case costs no allocation; larger ones, or
 * any when the pool is drained, get memory of their own from an automatic arena, freed by the GC once nothing —
 * neither the caller nor the runtime's request slot — refers to it.
 */
final class TempBuffers {
    /** Pool buffer size: transfers up to this size are served by the pool. */
    static final int POOLED = 64 * 1024;
    private static final int COUNT = 64;
    private static final long POOL_ALIGNMENT = 4096;

    private TempBuffers() {
    }

    /** The pool, created on first use (4 MiB). */
    private static final class Pool {
        static final BufferPool POOL = BufferPool.create(POOLED, COUNT);
    }

    /** {@code size} bytes of native memory aligned to {@code alignment} (a power of two). */
    static Lease lease(long size, long alignment) {
        if (size <= POOLED && alignment <= POOL_ALIGNMENT) {
            BufferPool.Buffer b = Pool.POOL.tryAcquire();
            if (b != null) {
                return new Lease(b.segment().asSlice(0, size), b);
            }
        }
        return new Lease(Arena.ofAuto().allocate(Math.max(size, 1), Math.max(alignment, 8)).asSlice(0, size), null);
    }

    /**
     * A leased buffer. {@link #release} it once the kernel is done with it: after the request's completion — not
     * merely after the caller gave up waiting.
     */
    record Lease(MemorySegment segment, BufferPool.Buffer pooled) {
        void release() {
            if (pooled != null) {
                pooled.release();
            }
        }

        /**
         * Releases unless {@code failure} says the runtime abandoned the request (closed without the kernel's
         * answer: an {@link IllegalStateException} in the cause chain). Then the kernel may still write into the
         * buffer, and it stays leased for good, as the runtime leaks such memory on purpose.
         */
        void releaseAfter(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof IllegalStateException) {
                    return;
                }
            }
            release();
        }
    }
}
