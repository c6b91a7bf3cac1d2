package io.uring4j.net;

import io.uring4j.ring.BufferRing;
import io.uring4j.ring.IoUring;
import io.uring4j.ring.abi.BufRingLayout;
import io.uring4j.ring.abi.CqeFlags;
import io.uring4j.runtime.NativeMemory;
import io.uring4j.sys.Errno;
import io.uring4j.sys.ErrnoException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One loop's provided-buffer ring for multishot receives: {@code count} buffers of {@code size} bytes in one
 * slab of anonymous pages, registered as buffer group {@code group} on the loop's ring. Every connection of the
 * loop receives into it, so memory scales with the loop, not with the number of connections; and a page takes
 * RAM only once a receive has written to it.
 *
 * <p>Where the kernel has them (6.12, {@code IOU_PBUF_RING_INC}) the buffers are consumed incrementally: a
 * receive takes only the bytes it got, and the next receive, of any connection, lands right behind them in the
 * same buffer. A small request then costs its length, not a whole buffer, so the ring runs dry only when more
 * bytes than the whole slab arrive within one reap batch, not more receives than it has buffers. A CQE whose
 * buffer has room left carries {@code F_BUF_MORE}; the buffer goes back to the ring once a CQE without it says
 * the kernel is done with it. {@link #offset} is where a CQE's bytes start.
 *
 * <p>Without incremental consumption (older kernels, the portable engine) each receive takes a whole buffer, which
 * goes back to the ring as soon as the handler that was given it returns ({@link #release}). Either way the ring
 * can run out only within one reap batch; a multishot receive then ends with ENOBUFS and leaves the data in the
 * socket, and the connection re-arms it. Loop thread only.
 */
final class RecvBuffers {
    private final Arena arena = Arena.ofShared();
    private final BufferRing ring;
    private final MemorySegment[] buffers;
    /** Bytes of each buffer the kernel has filled since it was last added; only with incremental consumption. */
    private final int[] used;

    RecvBuffers(IoUring uring, int group, int count, int size) throws ErrnoException {
        if (Integer.bitCount(count) != 1 || count > 32768) {
            throw new IllegalArgumentException("buffer count must be a power of two up to 32768: " + count);
        }
        MemorySegment slab = NativeMemory.mapPages((long) count * size, arena);
        buffers = new MemorySegment[count];
        try {
            ring = register(uring, count, group);
        } catch (ErrnoException | RuntimeException e) {
            arena.close();
            throw e;
        }
        used = ring.incremental() ? new int[count] : null;
        for (int bid = 0; bid < count; bid++) {
            buffers[bid] = slab.asSlice((long) bid * size, size);
            ring.add(buffers[bid], bid, bid);
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

    int group() {
        return ring.groupId();
    }

    boolean incremental() {
        return used != null;
    }

    /** The buffer a data CQE's F_BUFFER id names. */
    MemorySegment buffer(int flags) {
        return buffers[CqeFlags.bufferId(flags)];
    }

    /** Where in {@link #buffer} the bytes of a data CQE with {@code flags} start. */
    int offset(int flags) {
        return used == null ? 0 : used[CqeFlags.bufferId(flags)];
    }

    /**
     * The handler is done with a data CQE's {@code length} bytes: hands the buffer back to the kernel, unless it is
     * consumed incrementally and has room left ({@code F_BUF_MORE}), in which case the kernel still holds it.
     */
    void release(int flags, int length) {
        int bid = CqeFlags.bufferId(flags);
        if (used != null) {
            if ((flags & CqeFlags.F_BUF_MORE) != 0) {
                used[bid] += length;
                return;
            }
            used[bid] = 0;
        }
        ring.add(buffers[bid], bid, 0);
        ring.advance(1);
    }

    /** Unregisters the group and frees the slab; only once no receive can pick from it. */
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
