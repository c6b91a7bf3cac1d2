package io.uring4j.fs;

import io.uring4j.ring.abi.Opcode;
import io.uring4j.runtime.FdGuard;
import io.uring4j.runtime.Uring;
import io.uring4j.sys.Errno;
import io.uring4j.sys.LibC;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The blocking reads of one {@link AsyncFile}, after the caller's checks, and the one place where a read's route
 * is chosen ({@link #route}):
 * <ul>
 *   <li>{@link Route#PREAD}: a platform thread's read of a regular file or block device is a plain pread on the
 *       calling thread — the JDK's call. The thread blocks either way, and a hand-over to an event loop and back
 *       (a wake-up, a park and an unpark) only adds to it, O_DIRECT or cached.</li>
 *   <li>{@link Route#NOWAIT}: a buffered file's read tries {@code preadv2(RWF_NOWAIT)} on the calling thread — the
 *       non-blocking attempt io_uring itself makes when it issues a read — so what the page cache holds is copied
 *       without a hand-over to an event loop and back. RWF_NOWAIT never waits for the device. A virtual thread's
 *       reads of a file whose attempts keep hitting take the PREAD route, with a probe now and then
 *       ({@link CacheHits}).</li>
 *   <li>{@link Route#CARRIER_BATCH}: a virtual thread's attempt is batched with those of its carrier's other
 *       virtual threads ({@link InlineReads}) where a system call costs more than a park and an unpark
 *       ({@link ReadBatching}) — unless it is the file's only reader, with no one to batch with.</li>
 *   <li>{@link Route#DIRECT_BATCH}: an O_DIRECT read waits for its device, so it holds its thread: a virtual
 *       thread's is batched likewise and waited for on its carrier while the device answers fast
 *       ({@link DirectDevice}); the file's only reader makes a plain pread there instead.</li>
 *   <li>{@link Route#RING}: everything else goes through an event loop, where no carrier waits — and so does what
 *       an attempt on the calling thread left: a miss (EAGAIN), the rest of a short page-cache read (a caller
 *       never gets a short read the JDK would not give), an error (the ring names it).</li>
 * </ul>
 * The fd is guarded around the attempt on the calling thread, and by the ring's request from its preparation to
 * its CQE: not across both, or a close would wait for a read that waits for a slot.
 */
final class BlockingReads {
    /** {@code -During4j.fs.nowaitReads=false} sends every buffered read through the ring, for comparison. */
    private static final boolean NOWAIT_READS =
            !"false".equalsIgnoreCase(System.getProperty("uring4j.fs.nowaitReads"));

    /** {@code -During4j.fs.readsInPlace=false} sends a platform thread's reads through the ring, for comparison. */
    private static final boolean READS_IN_PLACE =
            !"false".equalsIgnoreCase(System.getProperty("uring4j.fs.readsInPlace"));

    /** Where a read goes. */
    enum Route { PREAD, NOWAIT, CARRIER_BATCH, DIRECT_BATCH, RING }

    private final AsyncFile file;
    private final FdGuard guard;
    private final Uring uring;
    /** O_DIRECT and bounded: whether its device answers fast enough for reads waited for on a carrier; else null. */
    private final DirectDevice device;
    /** Virtual threads in a batched read of this file: one alone reads as it would without batching. */
    private final AtomicInteger virtualReaders = new AtomicInteger();
    /** Whether a virtual thread's RWF_NOWAIT attempts on this file keep hitting, so it may read plainly. */
    private final CacheHits cacheHits = new CacheHits();

    BlockingReads(AsyncFile file, FdGuard guard, Uring uring, DirectDevice device) {
        this.file = file;
        this.guard = guard;
        this.uring = uring;
        this.device = device;
    }

    /** pread into {@code dst} (at most {@link AsyncFile#MAX_RW_COUNT} bytes): the bytes read, 0 at end of file. */
    int read(MemorySegment dst, long position) throws IOException {
        Route route = route();
        if (route != Route.CARRIER_BATCH && route != Route.DIRECT_BATCH) {
            return read(route, dst, position);
        }
        // A virtual thread alone in a read of this file has no one to batch with: a yield and a ring of its own
        // would only add to the system call it would make anyway, a preadv2(RWF_NOWAIT) or (O_DIRECT) a pread.
        boolean alone = virtualReaders.getAndIncrement() == 0;
        try {
            return read(alone ? route == Route.CARRIER_BATCH ? Route.NOWAIT : Route.PREAD : route, dst, position);
        } finally {
            virtualReaders.decrementAndGet();
        }
    }

    private int read(Route route, MemorySegment dst, long position) throws IOException {
        return switch (route) {
            case PREAD -> {
                long n = inPlace(dst, position);
                yield n >= 0 ? (int) n : ring(dst, position);           // the ring names an error
            }
            case NOWAIT -> noWait(dst, position);
            case CARRIER_BATCH -> orRest(onCarrier(InlineReads.of(uring), dst, position), dst, position);
            case DIRECT_BATCH -> {
                InlineReads batch = InlineReads.of(uring);
                long n = batch == null ? -Errno.EAGAIN : onCarrier(batch, dst, position);
                yield n >= 0 ? (int) n : ring(dst, position);           // the ring names an error
            }
            case RING -> ring(dst, position);
        };
    }

    /** The route of the calling thread's next read. */
    private Route route() {
        boolean virtual = Thread.currentThread().isVirtual();
        // A regular file's or block device's reads end on their own: a platform thread may wait in one. A file whose
        // type was not asked is read so too, as the JDK's one call: one without positions (FIFO, socket, terminal)
        // refuses the pread at once with ESPIPE, and the ring then reads it (asking the type).
        if (!virtual && READS_IN_PLACE && (!file.typeKnown() || file.isBounded())) {
            return Route.PREAD;
        }
        if (file.isDirect()) {
            boolean onCarrier = device != null && ReadBatching.DIRECT && virtual && device.inline();
            return onCarrier ? Route.DIRECT_BATCH : Route.RING;
        }
        if (!NOWAIT_READS) {
            return Route.RING;
        }
        return virtual && ReadBatching.cached() ? Route.CARRIER_BATCH : Route.NOWAIT;
    }

    /**
     * A page-cache read on the calling thread: a preadv2(RWF_NOWAIT), or — a virtual thread's read of a file whose
     * attempts keep hitting ({@link CacheHits}) — a plain pread ({@link Route#PREAD}), which spares the kernel the
     * iovec. Only a file whose reads end on their own (a regular file, a block device) answers RWF_NOWAIT at an
     * offset with data, so no other file starts a run, and its type need not be asked (a system call, for a
     * stream's every open).
     */
    private int noWait(MemorySegment dst, long position) throws IOException {
        boolean counted = Thread.currentThread().isVirtual();
        if (counted && cacheHits.plain()) {
            return read(Route.PREAD, dst, position);
        }
        long n = onCarrier(null, dst, position);
        if (counted) {
            cacheHits.attempted(n == dst.byteSize() || n == 0);
        }
        return orRest(n, dst, position);
    }

    /**
     * The read on the calling thread, while the fd is guarded: through {@code batch} with its carrier's other
     * readers (waited for on an O_DIRECT file), else — a page-cache read only — a preadv2(RWF_NOWAIT)
     * ({@link #noWaitHere}). The bytes read, or a negative number.
     */
    private long onCarrier(InlineReads batch, MemorySegment dst, long position) throws IOException {
        if (batch == null) {
            // A miss's EAGAIN starts readahead of what it lacked; on a fast device (a VM's host cache) that is often
            // in by a second try, a system call where the ring's hand-over costs a wake-up each way.
            long n = noWaitHere(dst, 0, position);
            return n >= 0 ? n : noWaitHere(dst, 0, position);
        }
        int fd = guard.acquire();
        try {
            return device != null ? batch.readDirect(fd, dst, position, device) : batch.read(fd, dst, position);
        } finally {
            guard.release();
        }
    }

    /**
     * A plain pread on the calling thread, while the fd is guarded: the bytes read or {@code -errno}. A virtual
     * thread's O_DIRECT read holds its carrier for the device's time, which its device learns (from one read in
     * {@link DirectDevice#TIME_EVERY}), as from a batch.
     */
    private long inPlace(MemorySegment dst, long position) throws IOException {
        int fd = guard.acquire();
        try {
            if (device == null || !Thread.currentThread().isVirtual() || !device.timeThisRead()) {
                return LibC.pread(fd, dst, position);
            }
            long start = System.nanoTime();
            long n = LibC.pread(fd, dst, position);
            device.waited(System.nanoTime() - start, 1);
            return n;
        } finally {
            guard.release();
        }
    }

    /**
     * A page-cache attempt's bytes when it got all of them or reached the file's end; else the rest through the
     * ring. A short attempt stopped at the end or at pages the cache lacks: an RWF_NOWAIT try of the rest tells
     * which (nothing: the end, where a pread's count is short too — a small file read into a larger buffer), one
     * call where the ring's hand-over costs a wake-up each way.
     */
    private int orRest(long n, MemorySegment dst, long position) throws IOException {
        long done = n;
        while (done > 0 && done < dst.byteSize()) {
            long more = noWaitHere(dst, done, position);
            if (more == 0) {
                return (int) done;
            }
            if (more < 0) {
                break;
            }
            done += more;
        }
        return done == dst.byteSize() || done == 0 ? (int) done : file.restThroughRing(done, dst, position,
                Opcode.READ);
    }

    /**
     * A preadv2(RWF_NOWAIT) of {@code dst} from byte {@code from} (at {@code position + from}), while the fd is
     * guarded: bytes read, or a negative number (its errno not asked: the ring, which the rest goes to, names it).
     */
    private long noWaitHere(MemorySegment dst, long from, long position) throws IOException {
        int fd = guard.acquire();
        try {
            return LibC.tryPreadv2(fd, dst.address() + from, dst.byteSize() - from, position + from, LibC.RWF_NOWAIT);
        } finally {
            guard.release();
            Reference.reachabilityFence(dst);
        }
    }

    private int ring(MemorySegment dst, long position) throws IOException {
        return file.restThroughRing(0, dst, position, Opcode.READ);
    }
}
