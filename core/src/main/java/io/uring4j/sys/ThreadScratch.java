package io.uring4j.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Native scratch memory of one size per OS thread, for what a call passes and gets back by pointer (errno, an
 * iovec, a {@code struct statx}): filled, passed and read with nothing in between that could park the caller.
 *
 * <p>A platform thread keeps its own, in an automatic arena freed with the thread. A virtual thread uses its
 * carrier's: it cannot leave the carrier inside such a window (only parking unmounts it, and a native call pins
 * it), and a segment of its own would cost every new virtual thread a native allocation and a cleaner. Carriers
 * are found by {@code pthread_self} in a small open-addressed table; a carrier's entry outlives it and serves
 * whichever thread the id is given to next. A carrier that finds no room uses a thread-local segment, as platform
 * threads do.
 *
 * <p>Public for the library's other bindings (the portable engine's system calls), not as an API.
 */
public final class ThreadScratch {
    private static final int CARRIERS = 256;            // a power of two
    private static final int PROBES = 16;

    private final long size;
    private final ThreadLocal<MemorySegment> own;
    private final AtomicReferenceArray<Carrier> carriers = new AtomicReferenceArray<>(CARRIERS);

    private record Carrier(long thread, MemorySegment segment) {
    }

    public ThreadScratch(long size) {
        this.size = size;
        this.own = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(size, 8));
    }

    /** The calling thread's segment (a virtual thread's carrier's): use it before anything that may park. */
    public MemorySegment get() {
        if (!Thread.currentThread().isVirtual()) {
            return own.get();
        }
        long self = LibC.threadSelf();
        int i = Long.hashCode(self * 0x9E3779B97F4A7C15L) & (CARRIERS - 1);
        for (int probe = 0; probe < PROBES; probe++, i = (i + 1) & (CARRIERS - 1)) {
            Carrier c = carriers.get(i);
            if (c == null) {
                // An automatic arena: a segment made for a slot another carrier took meanwhile is simply dropped.
                Carrier made = new Carrier(self, Arena.ofAuto().allocate(size, 8));
                if (carriers.compareAndSet(i, null, made)) {
                    return made.segment;
                }
                c = carriers.get(i);
            }
            if (c.thread == self) {
                return c.segment;
            }
        }
        return own.get();
    }
}
