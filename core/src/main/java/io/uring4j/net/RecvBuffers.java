package io.uring4j.net;

import io.uring4j.ring.BufferRing;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.Sqe;
import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.runtime.NativeMemory;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One loop's (or selector's) provided-buffer ring for multishot receives: {@code count} buffers of {@code size}
 * bytes, buffer {@code i} at {@code i × size} in one slab of anonymous pages, registered as buffer group
 * {@code group}. Every connection of the loop receives into it, so memory scales with the loop, not with the
 * number of connections, and a page takes RAM only once a receive has written to it.
 *
 * <h2>Incremental consumption and bundles (6.12)</h2>
 * Where the kernel has {@code IOU_PBUF_RING_INC}, a receive takes only the bytes it got and the next one, of any
 * connection, lands right behind them; each receive is a bundle ({@code IORING_RECVSEND_BUNDLE}), which may run
 * on into the following buffers. The kernel then takes buffers strictly in ring order and gives one back to us
 * only once it is full, and we add each back at the tail in the order it was used up, so ring position {@code p}
 * always holds buffer {@code p mod count}: a CQE's bytes are contiguous in the slab from {@link #offset}, wrapping
 * at most once from its end to its start ({@link #firstPart}). Only the buffer at the head can be part-used; a CQE
 * whose last buffer has room carries {@code F_BUF_MORE}. The ring runs dry only when more bytes than the slab
 * arrive within one reap batch, not more receives than it has buffers.
 *
 * <p>Without it (older kernels, the portable engine) each receive takes one whole buffer, which goes back to the
 * ring as soon as its CQE has been handled, in any order. Either way, a ring that runs dry ends a multishot
 * receive with ENOBUFS and leaves the data in the socket; the connection re-arms it. Loop thread only, and CQEs
 * must be handed to {@link #release} in the order they were posted.
 */
final class RecvBuffers {
    private final Arena arena = Arena.ofShared();
    private final BufferRing ring;
    private final MemorySegment slab;
    private final int size;
    private final int mask;
    private final boolean incremental;
    /** Incremental: the ring position the kernel takes from next, and how much of that buffer it has filled. */
    private int head;
    private int headUsed;

    RecvBuffers(IoUring uring, int group, int count, int size) throws ErrnoException {
        if (Integer.bitCount(count) != 1 || count > 32768) {
            throw new IllegalArgumentException("buffer count must be a power of two up to 32768: " + count);
        }
        this.size = size;
        this.mask = count - 1;
        slab = NativeMemory.mapPages((long) count * size, arena);
        try {
            ring = register(uring, count, group);
        } catch (ErrnoException | RuntimeException e) {
            arena.close();
            throw e;
        }
        incremental = ring.incremental();
        for (int bid = 0; bid < count; bid++) {
            add(bid, bid);
        }
        ring.advance(count);
    }

    /** An incrementally consumed ring where the kernel has one (EINVAL before 6.12), else a plain one. */
    private static BufferRing register(IoUring uring, int count, int group) throws ErrnoException {
        try {
            return uring.register().bufferRing(count, group, BufRingLayout.PBUF_RING_INC);
        } catch (ErrnoException e) {
            if (e.errno() != Errno.EINVAL) {
                throw e;
            }
            return uring.register().bufferRing(count, group, 0);
        }
    }

    /** Preps a multishot receive from {@code fd} into these buffers: bundles where they are consumed incrementally. */
    Sqe prepReceive(Sqe sqe, int fd) {
        Sqe prepped = incremental ? sqe.prepRecvMultishotBundle(fd, 0) : sqe.prepRecvMultishot(fd, 0);
        return prepped.bufferSelect(ring.groupId());
    }

    boolean incremental() {
        return incremental;
    }

    /** The slab every data CQE's bytes are in. */
    MemorySegment slab() {
        return slab;
    }

    /** Where in the {@link #slab} the bytes of a data CQE with {@code flags} start. */
    long offset(int flags) {
        int bid = CqeFlags.bufferId(flags);
        if (!incremental) {
            return (long) bid * size;
        }
        checkInStep(bid);
        return (long) bid * size + headUsed;
    }

    /** How many of a data CQE's {@code length} bytes lie before the end of the slab; the rest start at 0. */
    int firstPart(int flags, int length) {
        return (int) Math.min(length, slab.byteSize() - offset(flags));
    }

    /**
     * A data CQE's {@code length} bytes have been handled: hands back to the kernel the buffers it is done with —
     * the one buffer named (whole buffers), or every buffer the bytes filled (incremental), the last one included
     * unless {@code F_BUF_MORE} says it still has room.
     */
    void release(int flags, int length) {
        if (!incremental) {
            add(CqeFlags.bufferId(flags), 0);
            ring.advance(1);
            return;
        }
        checkInStep(CqeFlags.bufferId(flags));
        long used = (long) headUsed + length;
        long full = (flags & CqeFlags.F_BUF_MORE) != 0 ? used / size : (used + size - 1) / size;
        for (long i = 0; i < full; i++) {
            add(head & mask, (int) i);
            head++;
        }
        ring.advance((int) full);
        headUsed = (flags & CqeFlags.F_BUF_MORE) != 0 ? (int) (used - full * size) : 0;
    }

    /**
     * A data CQE must name the buffer at the head: if one was never handed to {@link #release} (a bug), where the
     * next bytes start is unknown, and failing loudly beats delivering the wrong bytes.
     */
    private void checkInStep(int bid) {
        if (bid != (head & mask)) {
            throw new IllegalStateException("receive buffers out of step: a CQE names buffer " + bid
                    + ", the ring's head is buffer " + (head & mask));
        }
    }

    /** Writes buffer {@code bid} into the ring slot {@code offset} past the tail, without a slice. */
    private void add(int bid, int offset) {
        ring.add(slab.address() + (long) bid * size, size, bid, offset);
    }

    /** Unregisters the group and unmaps the slab; only once no receive can pick from it. */
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
