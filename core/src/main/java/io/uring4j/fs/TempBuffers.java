package io.uring4j.fs;

import io.uring4j.runtime.BufferPool;
import io.uring4j.runtime.NativeMemory;
import io.uring4j.sys.LibC;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Native stand-ins for heap {@link java.nio.ByteBuffer}s, whose memory the kernel must never see (the GC moves
 * it). As the JDK's channels keep a temporary direct buffer per thread, a platform thread's reads and writes (up to
 * {@link #CACHED_MAX}) reuse a buffer of its own, grown to fit, and a virtual thread's reuse a buffer of its
 * carrier's ({@link Carriers}): memory the last call left in this CPU's cache, taken without the compare-and-sets
 * on lines every CPU writes that a shared pool's lease and release each make. As the JDK frees a thread's
 * temporary buffer when the thread ends, a thread's own buffer is freed once the thread has ended: every new one
 * first frees those of ended threads (not the GC, which a small heap may not run for a long time while short-lived
 * threads leave a megabyte each). When that buffer is held (its lease still in a request, or a virtual thread parked
 * with it), small ones lease a buffer of a shared pool; anything else gets memory of its own from an automatic arena,
 * freed by the GC once nothing, neither the caller nor the runtime's request slot, refers to it. No lease allocates
 * when its buffer's last lease was of the same size: that one is handed out again.
 */
final class TempBuffers {
    /** Pool buffer size: reads and writes up to this size are served by the pool when a thread's buffer is held. */
    static final int POOLED = 64 * 1024;
    /** The smallest buffer a thread or carrier keeps: a stream's 8 KiB calls and a database's pages fit. */
    private static final long KEPT_MIN = 16 * 1024;
    private static final int COUNT = 64;
    private static final long POOL_ALIGNMENT = 4096;
    /** The largest read or write a platform thread's own buffer serves. */
    static final long CACHED_MAX = 16L << 20;
    private static final ThreadLocal<Owned> OWNED = new ThreadLocal<>();
    /** Every thread's own buffer, until freed. */
    private static final Set<Owned> OWNERS = ConcurrentHashMap.newKeySet();
    /** Whether {@link Pool} is made, asked without making it. */
    private static volatile boolean poolMade;

    private TempBuffers() {
    }

    /**
     * Native bytes kept on purpose from one runtime to the next and free now: the threads' and carriers' buffers
     * and the pool's, less those leased. For a test that checks a runtime's close gave back every byte it took,
     * while its threads' transfers of heap buffers grew these: a lease never released still counts as taken.
     */
    static long keptBytes() {
        long bytes = poolMade ? (long) POOLED * Pool.POOL.available() : 0;
        for (Owned own : OWNERS) {
            bytes += own.inUse ? 0 : own.segment.byteSize();
        }
        for (int i = 0; i < Carriers.SLOTS; i++) {
            Owned own = Carriers.OWNED.get(i);
            bytes += own == null || own.inUse ? 0 : own.segment.byteSize();
        }
        return bytes;
    }

    /** The pool, created on first use (4 MiB). */
    private static final class Pool {
        static final BufferPool POOL = made(BufferPool.create(POOLED, COUNT));
        /**
         * Each pool buffer's last lease, by buffer id, handed out again to the next lessee of that buffer that asks
         * for the same size: a database's reads are mostly of one size, and a lease and its slice per read are two
         * objects that escape into the request. Only the buffer's holder touches its slot; the pool's acquire and
         * release order one holder's use before the next's.
         */
        static final Lease[] LAST = new Lease[COUNT];

        private static BufferPool made(BufferPool pool) {
            poolMade = true;
            return pool;
        }
    }

    /** {@code size} bytes of native memory aligned to {@code alignment} (a power of two). */
    static Lease lease(long size, long alignment) {
        if (size <= CACHED_MAX && alignment <= POOL_ALIGNMENT) {
            Lease kept = Thread.currentThread().isVirtual() ? Carriers.lease(size) : ownLease(size);
            if (kept != null) {
                return kept;
            }
        }
        if (size <= POOLED && alignment <= POOL_ALIGNMENT) {
            BufferPool.Buffer b = Pool.POOL.tryAcquire();
            if (b != null) {
                Lease lease = Lease.reuse(Pool.LAST[b.id()], b.segment(), size, b, null);
                Pool.LAST[b.id()] = lease;
                return lease;
            }
        }
        return new Lease(allocate(size, alignment).asSlice(0, size), null, null);
    }

    /** A lease of the calling platform thread's own buffer, grown to fit; null while it is leased. */
    private static Lease ownLease(long size) {
        Owned own = OWNED.get();
        // Asked once: a completion on another thread may release it meanwhile, but only this thread takes it.
        if (own != null && own.inUse) {
            return null;
        }
        if (own == null || own.segment.byteSize() < size) {
            if (own != null) {
                own.free();             // outgrown, and not in use: this thread is its only user
            }
            freeEndedThreads();
            own = new Owned(keptSize(size), true);
            OWNED.set(own);
        }
        own.inUse = true;
        return own.lease(size);
    }

    /** A kept buffer's size for a transfer of {@code size} bytes: a power of two, at least {@link #KEPT_MIN}. */
    private static long keptSize(long size) {
        return Math.max(KEPT_MIN, Long.highestOneBit(size - 1) << 1);
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

    /**
     * A platform thread's own buffer, or a carrier's; {@code inUse} until its lease is released (on any thread).
     * A thread's is among {@link #OWNERS}, to be freed once the thread has ended; a carrier's is kept.
     */
    static final class Owned {
        private static final VarHandle IN_USE;

        static {
            try {
                IN_USE = MethodHandles.lookup().findVarHandle(Owned.class, "inUse", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final MemorySegment segment;
        private final Arena arena = NativeMemory.sharedArena();
        private final WeakReference<Thread> owner = new WeakReference<>(Thread.currentThread());
        volatile boolean inUse;
        /** The last lease of this buffer: only its holder touches it (after taking {@link #inUse}). */
        private Lease last;

        Owned(long size, boolean perThread) {
            segment = arena.allocate(size, POOL_ALIGNMENT);
            if (perThread) {
                OWNERS.add(this);
            }
        }

        /** A lease of its first {@code size} bytes, by its holder: the last one again if of that size. */
        Lease lease(long size) {
            last = Lease.reuse(last, segment, size, null, this);
            return last;
        }

        /** Takes it if no one uses it: a carrier's may still be leased by a thread that has moved on. */
        boolean tryUse() {
            return IN_USE.compareAndSet(this, false, true);
        }

        /** Once: a sweep on another thread may come at the same time. */
        void free() {
            if (OWNERS.remove(this)) {
                arena.close();
            }
        }
    }

    /**
     * The carriers' buffers, for virtual threads' transfers: a few slots, a carrier's chosen by its
     * {@code pthread_self()} (which a virtual thread's downcall answers for the carrier it runs on). A virtual
     * thread that parks keeps its lease wherever it resumes, and carriers may hash alike, so the carrier's slot may
     * be taken: the next free one serves, and only when every slot is taken does a transfer lease a pool buffer, or
     * (larger than those) get memory of its own, a zeroed allocation the GC frees, several times the cost of the copy.
     * At most {@link #SLOTS} buffers are kept, each grown to the largest transfer it served (up to
     * {@link #CACHED_MAX}).
     */
    private static final class Carriers {
        static final int SLOTS = 2 * Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        private static final AtomicReferenceArray<Owned> OWNED = new AtomicReferenceArray<>(SLOTS);

        /**
         * A lease of the carrier's buffer, grown to fit; when another thread holds it, of the next slot's that is
         * free; null when every slot's is held.
         */
        static Lease lease(long size) {
            int start = Math.floorMod(Long.hashCode(LibC.threadSelf() * 0x9E3779B97F4A7C15L), SLOTS);
            for (int k = 0; k < SLOTS; k++) {
                Lease lease = lease((start + k) % SLOTS, size);
                if (lease != null) {
                    return lease;
                }
            }
            return null;
        }

        /** A lease of slot {@code i}'s buffer, grown to fit; null when another thread holds it. */
        private static Lease lease(int i, long size) {
            Owned own = OWNED.get(i);
            if (own != null && !own.tryUse()) {
                return null;
            }
            if (own == null || own.segment.byteSize() < size) {
                Owned grown = new Owned(keptSize(size), false);
                grown.inUse = true;
                if (!OWNED.compareAndSet(i, own, grown)) {      // another carrier made this slot's meanwhile
                    grown.arena.close();
                    return null;
                }
                if (own != null) {
                    own.arena.close();                          // leased by this thread alone, and replaced
                }
                own = grown;
            }
            return own.lease(size);
        }
    }

    /**
     * A leased buffer. {@link #release} it once the kernel is done with it: after the request's completion — not
     * merely after the caller gave up waiting.
     */
    record Lease(MemorySegment segment, BufferPool.Buffer pooled, Owned owned) {
        /** {@code last} again if it is of {@code size} bytes, else a lease of {@code whole}'s first {@code size}. */
        static Lease reuse(Lease last, MemorySegment whole, long size, BufferPool.Buffer pooled, Owned owned) {
            return last != null && last.segment().byteSize() == size ? last
                    : new Lease(whole.asSlice(0, size), pooled, owned);
        }

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
