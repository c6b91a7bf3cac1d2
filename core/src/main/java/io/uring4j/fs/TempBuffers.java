package io.uring4j.fs;

import io.uring4j.runtime.BufferPool;
import io.uring4j.runtime.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Native stand-ins for heap {@link java.nio.ByteBuffer}s, whose memory the kernel must never see (the GC moves
 * it). Small reads and writes lease a buffer of a shared pool — the common case costs no allocation. A platform
 * thread's larger ones (up to {@link #CACHED_MAX}) reuse a buffer of its own, grown to fit, as the JDK's channels
 * keep a temporary direct buffer per thread: a database writing megabyte chunks from heap arrays would otherwise pay a
 * zeroed allocation per call. As the JDK frees a thread's temporary buffer when the thread ends, a thread's own
 * buffer is freed once the thread has ended: every new one first frees those of ended threads (not the GC, which
 * a small heap may not run for a long time while short-lived threads leave a megabyte each). Anything else — a
 * virtual thread's large read or write, a buffer still in use — gets memory of its own from an automatic arena, freed
 * by the GC once nothing, neither the caller nor the runtime's request slot, refers to it.
 */
final class TempBuffers {
    /** Pool buffer size: reads and writes up to this size are served by the pool. */
    static final int POOLED = 64 * 1024;
    private static final int COUNT = 64;
    private static final long POOL_ALIGNMENT = 4096;
    /** The largest read or write a platform thread's own buffer serves. */
    static final long CACHED_MAX = 16L << 20;
    private static final ThreadLocal<Owned> OWNED = new ThreadLocal<>();
    /** Every thread's own buffer, until freed. */
    private static final Set<Owned> OWNERS = ConcurrentHashMap.newKeySet();

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
                return new Lease(b.segment().asSlice(0, size), b, null);
            }
        }
        if (size > POOLED && size <= CACHED_MAX && alignment <= POOL_ALIGNMENT
                && !Thread.currentThread().isVirtual()) {
            Owned own = OWNED.get();
            if (own == null || !own.inUse && own.segment.byteSize() < size) {
                if (own != null) {
                    own.free();             // outgrown, and not in use: this thread is its only user
                }
                freeEndedThreads();
                own = new Owned(Long.highestOneBit(size - 1) << 1);
                OWNED.set(own);
            }
            if (!own.inUse && own.segment.byteSize() >= size) {
                own.inUse = true;
                return new Lease(own.segment.asSlice(0, size), null, own);
            }
        }
        return new Lease(allocate(size, alignment).asSlice(0, size), null, null);
    }

    private static MemorySegment allocate(long size, long alignment) {
        return Arena.ofAuto().allocate(Math.max(size, 1), Math.max(alignment, 8));
    }

    /** Frees the buffers of threads that have ended, unless still leased (abandoned to the kernel: kept for good). */
    private static void freeEndedThreads() {
        for (Owned own : OWNERS) {
            Thread owner = own.owner.get();
            if ((owner == null || !owner.isAlive()) && !own.inUse) {
                own.free();
            }
        }
    }

    /** A platform thread's own buffer; {@code inUse} until its lease is released (on any thread). */
    static final class Owned {
        final MemorySegment segment;
        private final Arena arena = NativeMemory.sharedArena();
        private final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        volatile boolean inUse;

        Owned(long size) {
            segment = arena.allocate(size, POOL_ALIGNMENT);
            OWNERS.add(this);
        }

        /** Once: a sweep on another thread may come at the same time. */
        void free() {
            if (OWNERS.remove(this)) {
                arena.close();
            }
        }
    }

    /**
     * A leased buffer. {@link #release} it once the kernel is done with it: after the request's completion — not
     * merely after the caller gave up waiting.
     */
    record Lease(MemorySegment segment, BufferPool.Buffer pooled, Owned owned) {
        void release() {
            if (pooled != null) {
                pooled.release();
            } else if (owned != null) {
                owned.inUse = false;
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
